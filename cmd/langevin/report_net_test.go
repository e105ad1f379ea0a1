package main

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The report of a network regression, from the run directory alone
// (langevin report DIR): the settings panel shows the network plan that ran
// (its preconditioner, the chains' starts at the Adam modes and their
// number), the weights' summary is collapsed under one line and gives no
// warnings, and the page has the predictions a practitioner reads — each
// chain's stacking weight, the test table, the function-space check per
// chain and between chains, the posterior predictive band with its coverage
// and σ² in y's units.
func TestReportNetworkRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("a network run: skipped with -short")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	// --out named as the data: the report must read --data gap1d as the
	// generated set, not as the directory of that name.
	out := "gap1d"
	code, _, errOut := runMain("run", "--model", "mlp", "--data", "gap1d", "--n", "300", "--hidden", "8",
		"--chains", "3", "--iters", "3000", "--map-iters", "1000", "--out", out)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	page := filepath.Join(dir, "report.html")
	if code, _, errOut = runMain("report", "-o", page, out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{
		`<span class="key">precond</span> fisher-groups<`,
		`<span class="key">init</span> modes<`,
		`<span class="key">modes</span> 3<`,
		"<details class=\"weights\"><summary>",
		"chain weights: stacking",
		"function space (",
		"between chains: max R̂",
		"test set (",
		"<h2>Posterior predictive</h2>",
		"Coverage of the 90% interval of a new observation",
		"The noise variance σ² in y&#39;s units",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the network's report lacks %q", want)
		}
	}
	summary := regexp.MustCompile(`(?s)<table class="summary" id="summary">.*?</table>`).FindString(html)
	if rows := strings.Count(summary, "<tr><td>w."); rows > 0 {
		t.Errorf("%d weight rows in the summary table: expected them collapsed", rows)
	}
	warnings := regexp.MustCompile(`(?s)<ul class="warnings">.*?</ul>`).FindString(html)
	if n := strings.Count(warnings, "<li>"); n > 5 {
		t.Errorf("%d warnings: expected at most 5 (σ² and log σ²'s R̂ and ESS, the function-space check), none for the weights", n)
	}
	// A failing function-space check is a warning of the page, not only a
	// line of its printed account.
	if strings.Contains(html, "fail the per-chain check") && !strings.Contains(warnings, "fail the per-chain check") {
		t.Error("the function-space check fails but the page's warnings do not say so")
	}
	if strings.Contains(warnings, "w.1.") {
		t.Error("a weight's R̂ or ESS is a warning")
	}
	// The predictions come before the weights' plots.
	if strings.Index(html, "function space (") > strings.Index(html, "<h2>Parameters</h2>") {
		t.Error("the function-space check comes after the parameter plots")
	}
}

// Every regression's report has a posterior predictive section: the linear
// model's too, from run --report and from the directory.
func TestReportLinearPredictive(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs: skipped with -short")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "lin")
	code, _, errOut := runMain("run", "--model", "linear", "--data", "lecture", "--sampler", "nuts", "--chains", "2", "--report", "--out", out)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	page := filepath.Join(dir, "again.html")
	if code, _, errOut = runMain("report", "-o", page, out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	cov := regexp.MustCompile(`Coverage of the 90% interval of a new observation: ([0-9.]+)`)
	for _, p := range []string{filepath.Join(out, "report.html"), page} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m := cov.FindStringSubmatch(string(b))
		if m == nil {
			t.Errorf("%s: no posterior predictive section with its coverage", p)
			continue
		}
		// 2,000 test rows of a correctly specified model: within 4 binomial
		// se (0.027) of 0.90.
		if v, err := strconv.ParseFloat(m[1], 64); err != nil || math.Abs(v-0.9) > 0.027 {
			t.Errorf("%s: coverage %s of the 90%% interval: expected 0.90 ± 0.027", p, m[1])
		}
	}
}
