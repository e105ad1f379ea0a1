package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLooReport: langevin loo --report writes DIR/report.html when there is
// none (as langevin report does) with a LOO section holding the loo table,
// the k̂ plot and the LOO-PIT; a second call replaces the section, and a
// page of langevin run --report keeps its own sections beside it.
func TestLooReport(t *testing.T) {
	data := looData(t, 60)
	tmp := t.TempDir()
	names := []string{"plain", "withreport"}
	if testing.Short() {
		names = names[:1] // run --report's page takes seconds
	}
	for _, d := range []struct {
		name  string
		extra []string
	}{{"plain", nil}, {"withreport", []string{"--report"}}}[:len(names)] {
		args := append([]string{"run", "--model", "linear", "--data", data, "--target", "y", "--out", filepath.Join(tmp, d.name)}, quick...)
		if code, _, errOut := runMain(append(args, d.extra...)...); code != 0 {
			t.Fatalf("run: exit %d: %s", code, errOut)
		}
	}
	for _, name := range names {
		dir := filepath.Join(tmp, name)
		var before []byte
		if name == "withreport" {
			before, _ = os.ReadFile(filepath.Join(dir, "report.html"))
		}
		for range 2 {
			code, out, errOut := runMain("loo", dir, "--report")
			if code != 0 || !strings.Contains(out, "(section LOO)") {
				t.Fatalf("loo --report: exit %d: %s%s", code, out, errOut)
			}
		}
		page, err := os.ReadFile(filepath.Join(dir, "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		s := string(page)
		for _, want := range []string{"<h2>LOO</h2>", `alt="Pareto k̂ by row"`, `alt="LOO-PIT"`, "elpd_loo", "<h2>Summary</h2>"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: report.html lacks %q", name, want)
			}
		}
		if n := strings.Count(s, "<!-- section loo -->"); n != 1 {
			t.Errorf("%s: %d LOO sections", name, n)
		}
		if before != nil && !strings.HasPrefix(s, string(before[:strings.LastIndex(string(before), "</body>")])) {
			t.Errorf("%s: the run's page changed before the LOO section", name)
		}
	}
}
