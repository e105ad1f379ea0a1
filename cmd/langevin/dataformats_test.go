package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
)

// TestRunParquetAndStoreData: --data accepts a Parquet file written by
// another tool (DuckDB) and a data.Store converted from it, and both give the
// run of the same data embedded as text, table for table (the store, which
// is split its own way, on all the rows).
func TestRunParquetAndStoreData(t *testing.T) {
	pq := filepath.Join("..", "..", "data", "testdata", "parquet", "australian.parquet")
	src, err := data.OpenParquet(pq, data.ParquetOptions{Target: "class"})
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(t.TempDir(), "australian.lvs")
	if _, err := data.WriteStore(store, src, data.StoreOptions{Source: pq}); err != nil {
		t.Fatal(err)
	}
	src.Close()
	// Short runs: the tables are compared, whatever the draws.
	args := []string{"run", "--iters", "300", "--burnin", "100", "--thin", "2", "--chains", "2", "--quiet"}
	table := func(dataArgs ...string) string {
		t.Helper()
		code, out, errs := runMain(append(args, dataArgs...)...)
		if code != 0 {
			t.Fatalf("%v: %s", dataArgs, errs)
		}
		// The table and the test metrics; the first line names the file.
		_, rest, _ := strings.Cut(out, "\n")
		rest, _, _ = strings.Cut(rest, "draws:")
		// Without the table on the data's scale, printed for files only.
		if i := strings.Index(rest, "coefficients on the data's own scale"); i >= 0 {
			if j := strings.Index(rest[i:], "\n\n"); j >= 0 {
				rest = rest[:i] + rest[i+j+2:]
			}
		}
		return rest
	}
	want := table("--data", "australian")
	if got := table("--data", pq, "--target", "class"); got != want {
		t.Errorf("Parquet:\n%s\nwant (embedded text data):\n%s", got, want)
	}
	// A store is streamed, with its own split (data.SplitRows), so compare
	// the runs without a split: the same file as training and test data. (The
	// in-memory split would also permute the training rows.)
	want = table("--data", pq, "--target", "class", "--test", pq)
	for _, d := range [][]string{{"--data", store, "--test", store}, {"--data", store, "--test", pq, "--target", "class"}, {"--data", store, "--format", "store", "--test", store}} {
		if got := table(d...); got != want {
			t.Errorf("%v:\n%s\nwant (Parquet in memory):\n%s", d, got, want)
		}
	}
	code, out, errs := runMain(append(args, "--data", store, "--test-frac", "0")...)
	if code != 0 || !strings.Contains(out, "(N = 690 train, 0 test, d = 15)") {
		t.Errorf("--test-frac 0 on a store: exit %d, %s\n%s", code, errs, out)
	}
	code, _, errs = runMain(append(args, "--data", store, "--target", "A3")...)
	if code != 2 || !strings.Contains(errs, `the store's target column is "class"`) {
		t.Errorf("--target A3 on a store: exit %d, %s", code, errs)
	}
}
