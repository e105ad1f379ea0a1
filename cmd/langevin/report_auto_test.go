package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The report of a default run (--sampler auto, which chooses NUTS on the
// default data) names NUTS and its settings, as the run's own account says:
// not "AUTO (batch 10)", not SGLD's settings or its noise crossover.
func TestReportOfAutoNamesNUTS(t *testing.T) {
	out, dir := defaultRun(t)
	if !strings.Contains(out, "auto:     sampler: nuts") {
		t.Fatalf("the default run did not choose NUTS:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"<h1>langevin run: logistic regression, NUTS (full data)</h1>",
		`<span class="key">algorithm</span> nuts`,
		`<span class="key">metric</span> dense`,
		`<span class="key">burnin</span> 1000`,
		"auto:     sampler: nuts", // the run's account
		"tuning:   dual",
		"Step size (chain 1)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	for _, bad := range []string{"AUTO", "iters</span> 10000000", `<span class="key">batch</span>`, "noise crossover", `<span class="key">schedule</span>`} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html has %q, which describes the configuration before auto chose NUTS", bad)
		}
	}
}
