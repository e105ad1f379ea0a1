package report

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
)

// synth builds a trace of k chains: 2 parameters drawn as AR(1) series with
// coefficient phi (0: independent) around mean shift·c for chain c, burn-in
// draws saved, and SGLD's statistics: injected noise 1e-3, gradient noise
// gradEnd at the end of burn-in (decaying from 100× that), clipped__
// counting clipRate of the steps, and divergent__ set in ndiv draws.
type synthOpts struct {
	phi, shift, gradEnd, clipRate float64
	ndiv                          int
}

func synth(o synthOpts) *langevin.Trace {
	const k, nw, n, thin = 4, 100, 1000, 10
	tr := &langevin.Trace{
		Names: []string{"a", "b"}, Dim: 2, BurnIn: nw * thin, Thin: thin,
		StatNames: []string{"lp__", "stepsize__", "noise_inj__", "noise_grad__", "clipped__", "divergent__"},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	div := o.ndiv
	for c := 0; c < k; c++ {
		x := []float64{rng.NormFloat64(), rng.NormFloat64()}
		row := func(it int) ([]float64, []float64) {
			for j := range x {
				x[j] = o.phi*x[j] + math.Sqrt(1-o.phi*o.phi)*rng.NormFloat64()
			}
			th := []float64{x[0] + o.shift*float64(c), x[1]}
			grad := o.gradEnd * 100 * math.Exp(-math.Log(100)*float64(it)/float64(nw*thin))
			st := []float64{-1, 1e-3, 1e-3, grad, math.Floor(o.clipRate * float64(it)), 0}
			if it > nw*thin && div > 0 {
				st[5] = 1
				div--
			}
			return th, st
		}
		var w langevin.Draws
		for t := 0; t < nw; t++ {
			it := 1 + t*thin
			th, st := row(it)
			w.Theta, w.Stats, w.Iters = append(w.Theta, th), append(w.Stats, st), append(w.Iters, it)
		}
		var th, st [][]float64
		var its []int
		for t := 0; t < n; t++ {
			it := nw*thin + 1 + t*thin
			a, b := row(it)
			th, st, its = append(th, a), append(st, b), append(its, it)
		}
		tr.Warmup = append(tr.Warmup, w)
		tr.Draws, tr.Stats, tr.Iters = append(tr.Draws, th), append(tr.Stats, st), append(tr.Iters, its)
	}
	return tr
}

func warnings(o synthOpts) []string {
	tr := synth(o)
	return Warnings(tr, diag.Summarize(tr.Names, tr.Params()))
}

func has(ws []string, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

// Each warning fires on a trace built to trip it and stays silent on a
// healthy one.
func TestWarnings(t *testing.T) {
	healthy := synthOpts{gradEnd: 1e-4, clipRate: 0.01}
	if ws := warnings(healthy); len(ws) != 0 {
		t.Fatalf("healthy trace: %q", ws)
	}
	for _, c := range []struct {
		name string
		o    synthOpts
		want string
	}{
		{"chains disagree", synthOpts{shift: 0.5, gradEnd: 1e-4}, "R-hat"},
		{"sticky chains", synthOpts{phi: 0.995, gradEnd: 1e-4}, "bulk-ESS"},
		{"divergences", synthOpts{gradEnd: 1e-4, ndiv: 3}, "3 divergent transitions"},
		{"frequent clipping", synthOpts{gradEnd: 1e-4, clipRate: 0.2}, "clipping fired in 20.0% of the steps"},
		{"still optimising", synthOpts{gradEnd: 1e-2}, "optimisation phase"},
	} {
		ws := warnings(c.o)
		if !has(ws, c.want) {
			t.Errorf("%s: no warning containing %q in %q", c.name, c.want, ws)
		}
	}
}

var imgRE = regexp.MustCompile(`<img alt="[^"]*" src="data:image/png;base64,([^"]+)">`)

// The page holds the settings, the summary table with a row per column, the
// warnings, and only embedded images that decode as PNG; it refers to no
// network resource and escapes what it prints.
func TestWriteHTML(t *testing.T) {
	tr := synth(synthOpts{gradEnd: 1e-2})
	tr.Names[1] = "<b>"
	r, err := FromTrace("test <report>", tr, Options{
		Settings:  [][2]string{{"batch", "10"}},
		Reference: map[string]func(float64) float64{"a": func(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }},
		RefLabel:  "N(0, 1)",
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`<table class="summary" id="summary">`, `<li><span class="key">batch</span> 10</li>`, "optimisation phase", "test &lt;report&gt;", "<td>&lt;b&gt;</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<b>") {
		t.Error("column name not escaped")
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") || strings.Contains(page, "<script") || strings.Contains(page, "<link") {
		t.Error("page refers to external resources or holds scripts")
	}
	imgs := imgRE.FindAllStringSubmatch(page, -1)
	// 2 parameters × (trace, density, ACF) + pair + step size + noise crossover.
	if len(imgs) != 9 || strings.Count(page, "<img") != len(imgs) {
		t.Errorf("%d embedded images (%d <img> tags), want 9", len(imgs), strings.Count(page, "<img"))
	}
	for i, m := range imgs {
		b, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("image %d: %v", i, err)
		}
	}
	if n := strings.Count(page, "<tr><td>"); n != len(tr.Names) {
		t.Errorf("%d table rows, want %d", n, len(tr.Names))
	}
}

func TestFromTraceErrors(t *testing.T) {
	if _, err := FromTrace("x", nil, Options{}); err == nil {
		t.Error("nil trace accepted")
	}
	tr := synth(synthOpts{})
	for c := range tr.Draws {
		tr.Draws[c] = tr.Draws[c][:1]
	}
	if _, err := FromTrace("x", tr, Options{}); err == nil {
		t.Error("one draw per chain accepted")
	}
}

// TestFromTraceWithoutIters: a Trace built by hand, without iteration
// numbers, plots its draws against their position instead of panicking.
func TestFromTraceWithoutIters(t *testing.T) {
	tr := synth(synthOpts{})
	tr.Iters = nil
	r, err := FromTrace("x", tr, Options{})
	if err != nil || r == nil {
		t.Fatalf("FromTrace without Iters: %v", err)
	}
}

// An optimiser's trajectory gets a note instead of ESS and R-hat warnings.
func TestTrajectory(t *testing.T) {
	tr := synth(synthOpts{shift: 0.5, phi: 0.995, gradEnd: 1e-2})
	r, err := FromTrace("sgd", tr, Options{Trajectory: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 0 || strings.Contains(buf.String(), "<h2>Warnings</h2>") || !strings.Contains(buf.String(), "trajectory") {
		t.Errorf("trajectory: warnings %q", r.Warnings)
	}
}

func TestPredictiveSection(t *testing.T) {
	probs := [][]float64{{0.1, 0.8, 0.5}, {0.2, 0.9, 0.4}, {0.15, 0.7, 0.6}}
	sec, err := PredictiveSection(probs, []float64{0, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.Figures) != 1 || len(sec.Figures[0].PNG) == 0 || sec.Title == "" {
		t.Errorf("section %q with %d figures", sec.Title, len(sec.Figures))
	}
	if _, err := PredictiveSection(nil, nil); err == nil {
		t.Error("no draws: no error")
	}
}
