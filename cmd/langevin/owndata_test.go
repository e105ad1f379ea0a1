package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/rundir"
)

// churnTruth are the coefficients docs/data/churn.csv was simulated with, on
// the data's own scale: P(churn = yes) = logistic(η), η = intercept +
// Σ β·x, the categorical columns treatment-coded against their first level
// in byte order (region: east, plan: basic), as langevin codes them.
var churnTruth = map[string]float64{
	"intercept":          -2.3,
	"beta.age":           0.04,
	"beta.income":        -0.02,
	"beta.region[north]": 0.5,
	"beta.region[south]": 1.3,
	"beta.region[west]":  0.8,
	"beta.plan[max]":     -0.7,
	"beta.plan[pro]":     0.6,
}

// messyChurn writes the realistic messy table of docs/your-own-data.md: n
// customers with an ID (C00000, …), age and income (numbers, a few NA and
// empty cells), region (4 levels, a few NA) and plan (3 levels), and a
// yes/no target drawn from churnTruth. The randomness is a PCG stream's raw
// 64-bit outputs turned into uniforms and Box–Muller normals here, so the
// file does not depend on math/rand's helpers.
func messyChurn(n int, seed uint64) []byte {
	rng := rand.NewPCG(seed, 21)
	unif := func() float64 { return (float64(rng.Uint64()>>11) + 0.5) / (1 << 53) }
	norm := func() float64 { return math.Sqrt(-2*math.Log(unif())) * math.Cos(2*math.Pi*unif()) }
	regions := []string{"north", "south", "east", "west"}
	plans := []string{"basic", "pro", "max"}
	var b bytes.Buffer
	b.WriteString("customer,age,income,region,plan,churn\n")
	for i := range n {
		age := math.Round((45+12*norm())*10) / 10
		income := math.Round((50+15*norm())*100) / 100
		region := regions[int(unif()*4)]
		plan := plans[int(unif()*3)]
		eta := churnTruth["intercept"] + churnTruth["beta.age"]*age + churnTruth["beta.income"]*income
		if region != "east" {
			eta += churnTruth["beta.region["+region+"]"]
		}
		if plan != "basic" {
			eta += churnTruth["beta.plan["+plan+"]"]
		}
		churn := "no"
		if unif() < 1/(1+math.Exp(-eta)) {
			churn = "yes"
		}
		a, inc := fmt.Sprintf("%.1f", age), fmt.Sprintf("%.2f", income)
		if unif() < 0.01 {
			a = "NA"
		}
		if unif() < 0.005 {
			inc = ""
		}
		if unif() < 0.003 {
			region = "NA"
		}
		fmt.Fprintf(&b, "C%05d,%s,%s,%s,%s,%s\n", i, a, inc, region, plan, churn)
	}
	return b.Bytes()
}

// TestYourOwnData runs docs/your-own-data.md: the messy table runs with one
// command plus --id and --missing drop, its coefficients named after the
// columns and on the data's own scale recover the simulated truth (each
// within 3.5 posterior sd: 8 coefficients, a miss by chance has probability
// under 0.4%), and predict on new rows without the target writes one
// prediction per row beside the ID; an unseen level exits 2 naming line,
// column and level.
func TestYourOwnData(t *testing.T) {
	csv := messyChurn(5000, 1)
	committed, err := os.ReadFile("../../docs/data/churn.csv")
	if err != nil || !bytes.Equal(committed, csv) {
		if os.Getenv("LANGEVIN_WRITE_CHURN") != "" {
			os.MkdirAll("../../docs/data", 0o755)
			if err := os.WriteFile("../../docs/data/churn.csv", csv, 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			t.Errorf("docs/data/churn.csv is not messyChurn(5000, 1) (%v): regenerate with LANGEVIN_WRITE_CHURN=1", err)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "churn.csv")
	os.WriteFile(path, csv, 0o644)
	out := filepath.Join(dir, "run")

	// Without --missing drop: exit 2 naming the column and the count.
	code, _, errOut := runMain("run", "--data", path, "--target", "churn", "--id", "customer", "--quiet")
	if code != 2 || !strings.Contains(errOut, `churn.csv:112:3: missing value (empty cell) in column "income": 38 rows have one; column "age": 51 rows have one; column "region": 13 rows have one`) || !strings.Contains(errOut, "--missing drop") {
		t.Errorf("without --missing drop: exit %d, %s", code, errOut)
	}

	args := []string{"run", "--data", path, "--target", "churn", "--id", "customer", "--missing", "drop", "--quiet", "--out", out}
	if testing.Short() {
		// The documented command's rules and files with half its chains
		// and a quarter of its ESS target (the coefficients are checked
		// in posterior sds, which do not depend on the run's length).
		args = append(args, "--chains", "2", "--target-ess", "100")
	}
	code, stdout, errOut := runMain(args...)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`columns: column "region": categorical, 4 levels, treatment coding against reference "east"`,
		`columns: target "churn": text labels "no" → 0, "yes" → 1`,
		`columns: column "customer": ID, not a feature`,
		"columns: missing values: ",
		"coefficients on the data's own scale",
		"beta.region[south]",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run output lacks %q:\n%s", want, stdout)
		}
	}
	r, err := rundir.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	mf, sc, err := readModelFile(r)
	if err != nil {
		t.Fatal(err)
	}
	if mf.Columns == nil || mf.Columns.RowsDropped == 0 || mf.Columns.ID != "customer" {
		t.Fatalf("model.json columns %+v", mf.Columns)
	}
	table, ok := fit.DataScaleTable(r.Trace, mf.Features, sc)
	if !ok || len(table) != len(churnTruth) {
		t.Fatalf("no table on the data's scale: %v", table)
	}
	worst := 0.0
	for _, s := range table {
		truth, ok := churnTruth[s.Name]
		if !ok {
			t.Fatalf("unexpected coefficient %s", s.Name)
		}
		z := (s.Mean - truth) / s.SD
		worst = max(worst, math.Abs(z))
		if math.Abs(z) > 3.5 {
			t.Errorf("%s: posterior mean %.4g ± %.2g, truth %g: %.1f sd off", s.Name, s.Mean, s.SD, truth, z)
		}
		if !strings.Contains(stdout, s.Name) {
			t.Errorf("run output lacks %s", s.Name)
		}
	}
	t.Logf("largest miss: %.2f posterior sd", worst)
	// summary and compare know the same names.
	if code, sout, serr := runMain("summary", out); code != 0 || !strings.Contains(sout, "beta.region[south]") || !strings.Contains(sout, `reference "east"`) {
		t.Errorf("summary: exit %d: %s%s", code, sout, serr)
	}
	if code, _, cerr := runMain("compare", "--params", "beta.age,beta.region[south]", out); code != 0 {
		t.Errorf("compare --params beta.age,beta.region[south]: exit %d: %s", code, cerr)
	}

	// New rows without the target, columns in another order, a new ID.
	newRows := "plan,region,age,income,customer\npro,north,60.5,71.74,N1\nbasic,west,39,57.07,N2\nmax,east,47,26.99,N3\n"
	npath := filepath.Join(dir, "new.csv")
	os.WriteFile(npath, []byte(newRows), 0o644)
	pred := filepath.Join(dir, "pred.csv")
	code, stdout, errOut = runMain("predict", "--samples", out, "--data", npath, "--out", pred)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "predictions only, no metrics") || strings.Contains(stdout, "accuracy") {
		t.Errorf("predict without the target:\n%s", stdout)
	}
	b, _ := os.ReadFile(pred)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "customer,p.0,") || !strings.HasPrefix(lines[1], "N1,") || !strings.HasPrefix(lines[3], "N3,") {
		t.Errorf("predictions file:\n%s", b)
	}
	// An unseen level: exit 2 naming line, column and level.
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("customer,age,income,region,plan\nX1,40,50,north,pro\nX2,40,50,moon,pro\n"), 0o644)
	code, _, errOut = runMain("predict", "--samples", out, "--data", bad)
	if want := `bad.csv:3:4: level "moon" of column "region" is not one of the training data's levels (east, north, south, west; reference "east")`; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("unseen level: exit %d, %s; want %s", code, errOut, want)
	}
	// The training file itself needs --split; with --split test, metrics.
	code, _, errOut = runMain("predict", "--samples", out, "--data", path)
	if code != 2 || !strings.Contains(errOut, "the data the run was fitted to") {
		t.Errorf("predict on the training file: exit %d, %s", code, errOut)
	}
	code, stdout, errOut = runMain("predict", "--samples", out, "--data", path, "--split", "test")
	if code != 0 || !strings.Contains(stdout, "accuracy") {
		t.Errorf("predict --split test: exit %d, %s%s", code, stdout, errOut)
	}
}
