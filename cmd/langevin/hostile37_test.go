package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostilePredictAndSpecs: input that panicked — formula predict on new
// rows with text in a numeric column (a predictor, the response), a
// model.json whose layer widths overflow the parameter count, a prior
// argument that is not a finite number — is refused with exit 2 and a
// message naming what is wrong.
func TestHostilePredictAndSpecs(t *testing.T) {
	tmp := t.TempDir()
	train := filepath.Join(tmp, "houses.csv")
	if err := os.WriteFile(train, []byte(houses(100, 1, true)), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	frun := filepath.Join(tmp, "formula")
	if code, _, errOut := runMain("run", "--data", train, "--formula", "price ~ area + rooms", "--chains", "1", "--quiet", "--out", frun); code != 0 {
		t.Fatalf("formula run: exit %d: %s", code, errOut)
	}
	expectExit2(t, "text in a predictor", []string{"predict", "--samples", frun, "--data", write("p.csv", "area,rooms\n120.5,3\nbig,2\n")},
		`p.csv:3:1: cannot parse "big" as a number: column "area" holds numbers`)
	expectExit2(t, "text in the response", []string{"predict", "--samples", frun, "--data", write("r.csv", "area,rooms,price\n120.5,3,100\n80,2,n/a\n")},
		`r.csv:3:3: cannot parse "n/a" as a number: column "price" holds numbers`)
	// A numbers-only table still predicts, with and without the response.
	for _, text := range []string{"area,rooms\n120.5,3\n80,2\n", "area,rooms,price\n120.5,3,130\n80,2,95\n"} {
		if code, _, errOut := runMain("predict", "--samples", frun, "--data", write("ok.csv", text)); code != 0 {
			t.Errorf("predict %q: exit %d: %s", text, code, errOut)
		}
	}

	for _, p := range []string{"b ~ normal(NaN, 1)", "b ~ normal(0, Inf)", "Intercept ~ student_t(3, -inf, 2.5)"} {
		expectExit2(t, "prior "+p, []string{"run", "--data", train, "--formula", "price ~ area + rooms", "--priors", p, "--quiet"},
			"--priors", "expected a finite number")
	}

	mrun := filepath.Join(tmp, "mlp")
	if code, _, errOut := runMain("run", "--model", "mlp", "--data", "moons", "--n", "100", "--hidden", "3", "--iters", "200", "--burnin", "100",
		"--thin", "10", "--step", "1e-4", "--map-iters", "100", "--chains", "1", "--quiet", "--out", mrun); code != 0 {
		t.Fatalf("mlp run: exit %d: %s", code, errOut)
	}
	spec := filepath.Join(mrun, "model.json")
	b, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, hidden := range [][]int{{1 << 32, 1 << 32}, {3037000500, 3037000500}, {9223372036854775807}, {100000, 100000}} {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m["hidden"] = hidden
		nb, _ := json.Marshal(m)
		if err := os.WriteFile(spec, nb, 0o644); err != nil {
			t.Fatal(err)
		}
		errOut := expectExit2(t, "hidden widths in model.json", []string{"predict", "--samples", mrun, "--data", "moons", "--n", "20"},
			"model.json", "weights and biases")
		if strings.Contains(errOut, "goroutine") {
			t.Errorf("a panic: %s", errOut)
		}
	}
}
