package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestIsNetworkWeight(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"w.1.3.2", true}, {"b.2.1", true}, {"w.10.12.300", true},
		{"b.1", false}, {"beta.1", false}, {"sigma2", false}, {"w.1.x", false}, {"w..1", false}, {"intercept", false},
	} {
		if got := IsNetworkWeight(c.name); got != c.want {
			t.Errorf("IsNetworkWeight(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

// A network's report collapses its weights: they leave the summary table
// and the warnings (chains at different modes give them R̂ far above 1.01),
// one line summarises them, and the other columns keep their warnings. The
// same trace without Options.Network warns about every weight.
func TestNetworkReportCollapsesWeights(t *testing.T) {
	tr := synth(synthOpts{phi: 0.5, shift: 3})
	tr.Names = []string{"w.1.1.1", "sigma2"}
	build := func(network bool) (*Report, string) {
		r, err := FromTrace("net", tr, Options{Network: network, MaxParams: 1})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := r.WriteHTML(&buf); err != nil {
			t.Fatal(err)
		}
		return r, buf.String()
	}
	plain, _ := build(false)
	if !has(plain.Warnings, "w.1.1.1: R-hat") {
		t.Fatalf("without Network the shifted weight gives no R-hat warning: %q", plain.Warnings)
	}
	r, html := build(true)
	if has(r.Warnings, "w.1.1.1") {
		t.Errorf("a network's weight is warned about: %q", r.Warnings)
	}
	if len(r.Table) != 1 || r.Table[0].Name != "sigma2" || len(r.Weights) != 1 {
		t.Errorf("table %v, weights %v: expected sigma2 in the table, the weight collapsed", r.Table, r.Weights)
	}
	if !strings.Contains(r.WeightsNote, "1 weights and biases (1 of them with R-hat > 1.01") {
		t.Errorf("weights note %q", r.WeightsNote)
	}
	if !strings.Contains(html, `<details class="weights">`) || !strings.Contains(html, "trace of sigma2") || strings.Contains(html, "trace of w.1.1.1") {
		t.Error("the page does not collapse the weights or draws a weight before σ²")
	}
}
