package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// houses writes a table of n houses: area (m²), rooms, price (in
// thousands: about 50 to 230, far from a standardised scale) and sold
// (yes/no), from a PCG stream.
func houses(n int, seed uint64, withTargets bool) string {
	rng := rand.New(rand.NewPCG(seed, 37))
	var b strings.Builder
	b.WriteString("area,rooms")
	if withTargets {
		b.WriteString(",price,sold")
	}
	b.WriteString("\n")
	for range n {
		area := 50 + 150*rng.Float64()
		rooms := 1 + rng.IntN(6)
		price := 0.9*area + 5*float64(rooms) + 10*rng.NormFloat64()
		sold := "no"
		if price+20*rng.NormFloat64() > 130 {
			sold = "yes"
		}
		fmt.Fprintf(&b, "%.1f,%d", area, rooms)
		if withTargets {
			fmt.Fprintf(&b, ",%.1f,%s", price, sold)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// readPredictions reads a predictions CSV file: its header and, per row,
// the numbers after the first column (y, or the row's number or ID).
func readPredictions(t *testing.T, path string) (header []string, rows [][]float64) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, r := range recs[1:] {
		var row []float64
		for _, s := range r[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", path, s, err)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return recs[0][1:], rows
}

// TestPredictWithAndWithoutTarget runs each model kind (linear, logistic,
// an MLP regression and classification, a formula) and predicts the same
// new rows with the target column and without it: the predictions must be
// the same numbers, and a regression's in the data's units (an MLP's
// regression predicted the standardised response on rows without the
// target).
func TestPredictWithAndWithoutTarget(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "houses.csv")
	labelled := filepath.Join(dir, "new-labelled.csv")
	unlabelled := filepath.Join(dir, "new.csv")
	prices := strings.Split(houses(20, 2, true), "\n")
	for path, text := range map[string]string{
		train:      houses(200, 1, true),
		labelled:   strings.Join(prices, "\n"),
		unlabelled: houses(20, 2, false),
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mlp := []string{"--model", "mlp", "--hidden", "5", "--iters", "400", "--burnin", "100", "--thin", "10", "--step", "1e-4", "--map-iters", "300"}
	for _, c := range []struct {
		name       string
		args       []string
		regression bool
	}{
		{"linear", []string{"--model", "linear", "--target", "price", "--drop", "sold"}, true},
		{"logistic", []string{"--target", "sold", "--drop", "price"}, false},
		{"mlp-regression", append([]string{"--target", "price", "--drop", "sold"}, mlp...), true},
		{"mlp-classification", append([]string{"--target", "sold", "--drop", "price"}, mlp...), false},
		{"formula", []string{"--formula", "price ~ area + rooms"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name)
			args := append([]string{"run", "--data", train, "--chains", "1", "--quiet", "--out", out}, c.args...)
			if code, _, errOut := runMain(args...); code != 0 {
				t.Fatalf("run %v: exit %d: %s", args, code, errOut)
			}
			var heads [2][]string
			var preds [2][][]float64
			for k, data := range []string{labelled, unlabelled} {
				pred := filepath.Join(dir, c.name+strconv.Itoa(k)+".csv")
				if code, stdout, errOut := runMain("predict", "--samples", out, "--data", data, "--out", pred); code != 0 {
					t.Fatalf("predict --data %s: exit %d: %s%s", data, code, stdout, errOut)
				}
				heads[k], preds[k] = readPredictions(t, pred)
			}
			if strings.Join(heads[0], ",") != strings.Join(heads[1], ",") || len(preds[0]) != len(preds[1]) {
				t.Fatalf("with the target: columns %v, %d rows; without: %v, %d rows", heads[0], len(preds[0]), heads[1], len(preds[1]))
			}
			for i := range preds[0] {
				for j, v := range preds[0][i] {
					if w := preds[1][i][j]; math.Abs(v-w) > 1e-9*math.Max(1, math.Abs(v)) {
						t.Errorf("row %d, %s: %g with the target column, %g without", i+1, heads[0][j], v, w)
					}
				}
			}
			if c.name == "mlp-regression" {
				// A scaler.json without the response's standardisation
				// cannot put the predictions in y's units: refused.
				sc := filepath.Join(out, "scaler.json")
				b, err := os.ReadFile(sc)
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]any
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatal(err)
				}
				delete(m, "target_mean")
				delete(m, "target_scale")
				if b, err = json.Marshal(m); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(sc, b, 0o644); err != nil {
					t.Fatal(err)
				}
				code, _, errOut := runMain("predict", "--samples", out, "--data", unlabelled)
				if code != 2 || !strings.Contains(errOut, "scaler.json") || !strings.Contains(errOut, "y_standardized") {
					t.Errorf("predict with a scaler.json without target_scale: exit %d, %q; want exit 2 naming scaler.json", code, errOut)
				}
			}
			if !c.regression {
				return
			}
			// The predictive means in the price's units: the RMSE against
			// the new rows' prices (their noise sd is 10) is well below
			// the prices' sd (about 40).
			var se float64
			for i, row := range preds[1] {
				y, err := strconv.ParseFloat(strings.Split(prices[i+1], ",")[2], 64)
				if err != nil {
					t.Fatal(err)
				}
				se += (row[0] - y) * (row[0] - y)
			}
			if rmse := math.Sqrt(se / float64(len(preds[1]))); !(rmse < 20) {
				t.Errorf("RMSE %g of the predictive means without the target column: not in the price's units (means %v)", rmse, preds[1])
			}
		})
	}
}
