package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
)

// TestRunParquetAndStoreData: --data accepts a Parquet file written by
// another tool (DuckDB) and a data.Store converted from it, and both give the
// run of the same data embedded as text, table for table.
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
	args := []string{"run", "--iters", "600", "--burnin", "200", "--thin", "4", "--chains", "2", "--quiet"}
	table := func(dataArgs ...string) string {
		t.Helper()
		code, out, errs := runMain(append(args, dataArgs...)...)
		if code != 0 {
			t.Fatalf("%v: %s", dataArgs, errs)
		}
		// The table and the test metrics; the first line names the file.
		_, rest, _ := strings.Cut(out, "\n")
		rest, _, _ = strings.Cut(rest, "draws:")
		return rest
	}
	want := table("--data", "australian")
	for _, d := range [][]string{{"--data", pq, "--target", "class"}, {"--data", store}, {"--data", store, "--format", "store"}} {
		if got := table(d...); got != want {
			t.Errorf("%v:\n%s\nwant (embedded text data):\n%s", d, got, want)
		}
	}
	code, _, errs := runMain(append(args, "--data", store, "--target", "A3")...)
	if code != 2 || !strings.Contains(errs, `the store's target column is "class"`) {
		t.Errorf("--target A3 on a store: exit %d, %s", code, errs)
	}
}
