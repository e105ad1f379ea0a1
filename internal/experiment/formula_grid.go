package experiment

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

func init() {
	Register(Experiment{
		Name:    "formula-grid",
		Summary: "formula models with no flag on a grid of generated data (N, groups, family, intercepts/slopes, continuous/discrete x, natural/standardised units) against --sampler nuts: the sampler chosen, CPU, |Δmean|/sd and sd ratios",
		Run:     runFormulaGrid,
	})
}

// gridCell is one cell of the formula grid: generated data of N rows in
// Groups levels (assigned uniformly at random, so levels' sizes vary),
// y ~ x + (1 | g) (Slopes false) or y ~ x + (1 + x | g), x continuous
// (normal) or discrete (nine values), in natural units (x·12 + 40, like an
// age in years) or standardised.
type gridCell struct {
	N, Groups int
	Family    string // gaussian, bernoulli, poisson
	Slopes    bool
	Discrete  bool
	Natural   bool
}

func (c gridCell) name() string {
	t, x, u := "int", "cont", "std"
	if c.Slopes {
		t = "slopes"
	}
	if c.Discrete {
		x = "disc"
	}
	if c.Natural {
		u = "nat"
	}
	return fmt.Sprintf("%s-n%d-g%d-%s-%s-%s", c.Family, c.N, c.Groups, t, x, u)
}

func (c gridCell) formula() string {
	if c.Slopes {
		return "y ~ x + (1 + x | g)"
	}
	return "y ~ x + (1 | g)"
}

// gridTruth is the generating model: η = a + b·x_s + r_g0 + r_g1·x_s with
// x_s the standardised x, (r_g0, r_g1) ~ N(0, [sd0², ρ sd0 sd1; ·, sd1²]);
// gaussian y = 2 + η + 0.7ε; bernoulli logit; poisson log link with
// smaller effects (counts of a few).
func gridTruth(family string) (a, b, sd0, sd1, rho float64) {
	if family == "poisson" {
		return 0.5, 0.3, 0.5, 0.3, 0.4
	}
	return 0.3, 0.7, 0.8, 0.5, 0.4
}

// writeGridData writes the cell's data as CSV (y,x,g) to path.
func writeGridData(path string, c gridCell, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, uint64(c.N)*1000+uint64(c.Groups)))
	a, b, sd0, sd1, rho := gridTruth(c.Family)
	r0 := make([]float64, c.Groups)
	r1 := make([]float64, c.Groups)
	for j := range r0 {
		z0, z1 := rng.NormFloat64(), rng.NormFloat64()
		r0[j] = sd0 * z0
		if c.Slopes {
			r1[j] = sd1 * (rho*z0 + math.Sqrt(1-rho*rho)*z1)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, "y,x,g")
	buf := make([]byte, 0, 64)
	for i := 0; i < c.N; i++ {
		var xs, x float64
		if c.Discrete {
			k := rng.IntN(9)
			xs = (float64(k) - 4) / math.Sqrt(20.0/3) // nine values, sd 1
			x = xs
			if c.Natural {
				x = float64(k) * 1000 // thousands of a unit
			}
		} else {
			xs = rng.NormFloat64()
			x = xs
			if c.Natural {
				x = 40 + 12*xs
			}
		}
		g := rng.IntN(c.Groups)
		eta := a + b*xs + r0[g] + r1[g]*xs
		var y float64
		switch c.Family {
		case "gaussian":
			y = 2 + eta + 0.7*rng.NormFloat64()
		case "bernoulli":
			if rng.Float64() < 1/(1+math.Exp(-eta)) {
				y = 1
			}
		case "poisson":
			y = float64(poissonDraw(rng, math.Exp(eta)))
		}
		buf = buf[:0]
		buf = strconv.AppendFloat(buf, y, 'g', 8, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, x, 'g', 8, 64)
		buf = append(buf, ',', 'g')
		buf = strconv.AppendInt(buf, int64(g+1), 10)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// poissonDraw draws Poisson(mu) by Knuth's product of uniforms (mu small).
func poissonDraw(rng *rand.Rand, mu float64) int {
	L, k, p := math.Exp(-mu), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= L {
			return k
		}
		k++
	}
}

// gridRun is one run of the command on a cell.
type gridRun struct {
	code    int
	cpu     time.Duration
	maxRSS  int64 // KiB
	sampler string
	summary map[string][3]float64 // mean, sd, mcse of b_, sd_, cor_, sigma
	minESS  float64               // the least bulk-ESS of those rows
	maxRhat float64               // the largest R̂ of those rows
	tail    string                // the last lines of stderr when the run failed
}

var samplerLine = regexp.MustCompile(`(?m)^auto:\s+sampler: (\S+)`)
var fallbackLine = regexp.MustCompile(`(?m)^auto:\s+fallback:`)

// runLangevin runs this executable's run command with args (its --out
// dir), and reads dir/summary.csv.
func runLangevin(ctx context.Context, dir string, args []string) (gridRun, error) {
	exe, err := os.Executable()
	if err != nil {
		return gridRun{}, err
	}
	full := append([]string{"run", "--out", dir, "--overwrite"}, args...)
	cmd := exec.CommandContext(ctx, exe, full...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var r gridRun
	if cmd.ProcessState == nil {
		return r, err
	}
	r.code = cmd.ProcessState.ExitCode()
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	r.maxRSS = maxRSS(cmd.ProcessState)
	if m := samplerLine.FindStringSubmatch(stdout.String()); m != nil {
		r.sampler = m[1]
		if fallbackLine.MatchString(stdout.String()) {
			r.sampler += " (fallback)"
		}
	}
	if r.code != 0 {
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		r.tail = lines[len(lines)-1]
		return r, nil
	}
	if err := os.WriteFile(filepath.Join(dir, "stdout.txt"), []byte(stdout.String()), 0o644); err != nil {
		return r, err
	}
	r.summary, r.minESS, r.maxRhat, err = readGridSummary(filepath.Join(dir, "summary.csv"))
	return r, err
}

// readGridSummary reads the mean, sd and MCSE of the population-level,
// scale, correlation and σ rows of a summary.csv, and their least bulk-ESS
// and largest R̂.
func readGridSummary(path string) (out map[string][3]float64, minESS, maxRhat float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	minESS = math.Inf(1)
	out = map[string][3]float64{}
	for _, row := range rows[1:] {
		n := row[0]
		if !(strings.HasPrefix(n, "b_") || strings.HasPrefix(n, "sd_") || strings.HasPrefix(n, "cor_") || n == "sigma") {
			continue
		}
		var v [3]float64
		for k := range v {
			if v[k], err = strconv.ParseFloat(row[1+k], 64); err != nil {
				return nil, 0, 0, fmt.Errorf("%s: %s: %w", path, n, err)
			}
		}
		out[n] = v
		// columns: variable,mean,sd,mcse_mean,q5,q50,q95,ess_bulk,ess_tail,rhat
		if len(row) >= 10 {
			ess, _ := strconv.ParseFloat(row[7], 64)
			rh, _ := strconv.ParseFloat(row[9], 64)
			minESS, maxRhat = math.Min(minESS, ess), math.Max(maxRhat, rh)
		}
	}
	return out, minESS, maxRhat, nil
}

// gridCompare returns max |Δmean|/sd_ref, the range of sd/sd_ref, and
// whether every quantity is within 0.1 sd and 10% or within 3 combined
// Monte Carlo standard errors of the mean (and of the sd, about
// sd/√(2·ESS) ≈ 1.5 MCSE of the mean in sd units, taken as 3·…).
func gridCompare(got, ref map[string][3]float64) (dmax, rlo, rhi float64, ok bool) {
	rlo, rhi, ok = math.Inf(1), math.Inf(-1), len(ref) > 0
	for n, r := range ref {
		g, has := got[n]
		if !has {
			return math.NaN(), math.NaN(), math.NaN(), false
		}
		d := math.Abs(g[0]-r[0]) / r[1]
		ratio := g[1] / r[1]
		dmax = math.Max(dmax, d)
		rlo, rhi = math.Min(rlo, ratio), math.Max(rhi, ratio)
		se := math.Hypot(g[2], r[2])
		if d > 0.1 && math.Abs(g[0]-r[0]) > 3*se {
			ok = false
		}
		// The sd's relative Monte Carlo error is about 1/√2 times the
		// mean's MCSE over the sd (ESS = (sd/mcse)²).
		sre := math.Hypot(g[2]/g[1], r[2]/r[1]) / math.Sqrt2
		if math.Abs(ratio-1) > 0.1 && math.Abs(ratio-1) > 3*sre {
			ok = false
		}
	}
	return dmax, rlo, rhi, ok
}

func gridInts(s, flagName string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ReplaceAll(f, "_", ""))
		if f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64) // 1e6 allowed
		if err != nil || v < 1 || v != math.Trunc(v) {
			return nil, Usagef("--%s: %q is not a positive whole number", flagName, f)
		}
		out = append(out, int(v))
	}
	return out, nil
}

func gridChoice(s, flagName string, allowed []string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !slices.Contains(allowed, f) {
			return nil, Usagef("--%s: %q: expected one of %s", flagName, f, strings.Join(allowed, ", "))
		}
		out = append(out, f)
	}
	return out, nil
}

func runFormulaGrid(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("formula-grid", flag.ContinueOnError)
	out := fs.String("out", "formula-grid", "directory for the generated data, the runs and index.md")
	ns := fs.String("n", "300,3000,30000", "rows N of the cells, comma-separated (the full grid: 300,3000,30000,300000,1000000)")
	gs := fs.String("groups", "10,100,1000", "levels of g, comma-separated")
	fams := fs.String("family", "gaussian,bernoulli,poisson", "families, comma-separated")
	terms := fs.String("terms", "intercepts,slopes", "group terms: intercepts (1 | g), slopes (1 + x | g)")
	xs := fs.String("x", "continuous,discrete", "x continuous (normal) or discrete (nine values)")
	units := fs.String("units", "natural,standardised", "x in natural units (12·x + 40; discrete: thousands) or standardised")
	ref := fs.String("ref", "nuts", "reference: nuts (--sampler nuts, another seed) or none")
	minRows := fs.Int("min-rows", 3, "skip cells with fewer than this many rows a level on average")
	seed := fs.Uint64("seed", 1, "seed of the data")
	doc := fs.String("doc", "", "also write the page to this file (docs/formula-grid.md)")
	if err := ParseFlags(fs, args, stdout); err != nil {
		return err
	}
	nl, err := gridInts(*ns, "n")
	if err != nil {
		return err
	}
	gl, err := gridInts(*gs, "groups")
	if err != nil {
		return err
	}
	fl, err := gridChoice(*fams, "family", []string{"gaussian", "bernoulli", "poisson"})
	if err != nil {
		return err
	}
	tl, err := gridChoice(*terms, "terms", []string{"intercepts", "slopes"})
	if err != nil {
		return err
	}
	xl, err := gridChoice(*xs, "x", []string{"continuous", "discrete"})
	if err != nil {
		return err
	}
	ul, err := gridChoice(*units, "units", []string{"natural", "standardised"})
	if err != nil {
		return err
	}
	if *ref != "nuts" && *ref != "none" {
		return Usagef("--ref %q: expected nuts or none", *ref)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	var cells []gridCell
	for _, n := range nl {
		for _, g := range gl {
			if n < *minRows*g {
				continue
			}
			for _, f := range fl {
				for _, t := range tl {
					for _, x := range xl {
						for _, u := range ul {
							cells = append(cells, gridCell{N: n, Groups: g, Family: f, Slopes: t == "slopes", Discrete: x == "discrete", Natural: u == "natural"})
						}
					}
				}
			}
		}
	}
	if len(cells) == 0 {
		return Usagef("no cell: every N is below --min-rows × groups")
	}
	var tab strings.Builder
	fmt.Fprintln(&tab, "| cell | N | groups | family | terms | x | units | chosen | exit | CPU s | peak MB | reference CPU s | max \\|Δmean\\|/sd | sd ratios | within |")
	fmt.Fprintln(&tab, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	fmt.Fprintln(stdout, strings.TrimSpace(strings.SplitN(tab.String(), "\n", 2)[0]))
	failed := 0
	for _, c := range cells {
		if err := ctx.Err(); err != nil {
			return err
		}
		dir := filepath.Join(*out, c.name())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		data := filepath.Join(dir, "data.csv")
		if err := writeGridData(data, c, *seed); err != nil {
			return err
		}
		args := []string{"--data", data, "--formula", c.formula(), "--family", c.Family}
		auto, err := runLangevin(ctx, filepath.Join(dir, "auto"), args)
		if err != nil {
			return err
		}
		row := fmt.Sprintf("| %s | %d | %d | %s | %s | %s | %s | %s | %d | %.1f | %d |",
			c.name(), c.N, c.Groups, c.Family, map[bool]string{true: "slopes", false: "intercepts"}[c.Slopes],
			map[bool]string{true: "discrete", false: "continuous"}[c.Discrete], map[bool]string{true: "natural", false: "standardised"}[c.Natural],
			auto.sampler, auto.code, auto.cpu.Seconds(), auto.maxRSS>>10)
		if auto.code != 0 {
			failed++
			row += fmt.Sprintf(" — | — | — | exit %d: %s |", auto.code, strings.ReplaceAll(auto.tail, "|", "\\|"))
		} else if *ref == "nuts" {
			rr, err := runLangevin(ctx, filepath.Join(dir, "nuts"), append(args, "--sampler", "nuts", "--seed", "2", "--iters", "4000"))
			if err != nil {
				return err
			}
			if rr.code != 0 {
				row += fmt.Sprintf(" %.1f | — | — | reference exit %d |", rr.cpu.Seconds(), rr.code)
			} else {
				d, lo, hi, ok := gridCompare(auto.summary, rr.summary)
				verdict := "yes"
				switch {
				case rr.maxRhat > 1.01 || rr.minESS < 100:
					// Not a failure of the run under test: the
					// reference itself has not converged.
					verdict = fmt.Sprintf("reference unconverged (R̂ %.3f, bulk-ESS %.0f)", rr.maxRhat, rr.minESS)
				case !ok:
					verdict = "**no**"
					failed++
				}
				row += fmt.Sprintf(" %.1f | %.3f | %.2f–%.2f | %s |", rr.cpu.Seconds(), d, lo, hi, verdict)
			}
		} else {
			row += " — | — | — | not compared |"
		}
		fmt.Fprintln(stdout, row)
		fmt.Fprintln(&tab, row)
	}
	page := formulaGridPage(strings.Join(args, " "), tab.String())
	if err := os.WriteFile(filepath.Join(*out, "index.md"), []byte(page), 0o644); err != nil {
		return err
	}
	if *doc != "" {
		if err := os.WriteFile(*doc, []byte(page), 0o644); err != nil {
			return err
		}
	}
	if failed > 0 {
		return errors.New(fmt.Sprintf("formula-grid: %d of %d cells failed (exit code or outside 0.1 sd / 10%% beyond Monte Carlo error)", failed, len(cells)))
	}
	return nil
}

// formulaGridPage is the page the grid writes: what to run, the rule of
// the comparison, the table.
func formulaGridPage(args, table string) string {
	_ = args
	return `# Formula models on a grid, with no flag

` + "```sh\nlangevin experiment formula-grid --out grid --doc docs/formula-grid.md [--n 300,3000 --groups 10,100 --family bernoulli --terms slopes --x continuous --units natural]\n```" + `

generates each cell's data (y, x, g: N rows in groups levels assigned at random; y ~ x + (1 | g) or
y ~ x + (1 + x | g) with sd 0.8 and 0.5, correlation 0.4, b = 0.7 per sd of x — poisson 0.5, 0.3,
0.3 — gaussian σ = 0.7; x normal or nine values, in natural units, 12·x + 40 or thousands, or
standardised), runs ` + "`langevin run --data data.csv --formula … --family …`" + ` with no other flag, and
compares its b_, sd_, cor_ and sigma rows with ` + "`--sampler nuts --seed 2 --iters 4000`" + ` (4 chains × 3,000
draws after 1,000 warm-up) on the same data; a reference whose R̂ exceeds 1.01 or bulk-ESS is below 100
is reported as unconverged, not as an answer. A cell is
within when every quantity's mean is within 0.1 reference sd and its sd within 10% — or, where not,
the difference is within 3 combined Monte Carlo standard errors (two runs of ESS 400 differ by
0.07 sd in mean and 7% in sd at one standard error). CPU is user + system of the whole command
(MAP, plan, sampling, summaries) on 2 shared cores; "chosen" is the ` + "`auto: sampler`" + ` line (fallback:
the SG-MCMC plan's checks sent the run to NUTS). A failed cell makes the command exit 1.

` + table
}
