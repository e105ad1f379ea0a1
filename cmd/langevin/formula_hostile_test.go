package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRunFormulaHostile: formulas that cannot give an answer are refused
// with exit 2 and a message naming the column (or the formula's position):
// nesting past formula.MaxDepth, y ~ y, a predictor that separates a
// bernoulli response under the flat prior on b; a message about a 100 KB
// term or a 1 MB level stays under 2,000 bytes.
func TestRunFormulaHostile(t *testing.T) {
	path := formulaCSV(t, 60)
	sep := writeFile(t, t.TempDir(), "sep.csv", "y,x,z\n0,-1,0.3\n0,-2,-0.5\n0,-0.5,1.1\n1,1,0.2\n1,2,-0.7\n1,0.5,0.9\n0,-3,0.1\n1,3,-0.2\n")
	bigLevel := writeFile(t, t.TempDir(), "big.csv", "y,x,g\n1,0.5,s1\n2,0.1,"+strings.Repeat("L", 1<<20)+"\n")
	deep := "y ~ I(" + strings.Repeat("log(", 100_000) + "x" + strings.Repeat(")", 100_000) + ")"
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--data", path, "--formula", deep}, []string{"--formula: formula: column 403: nested deeper than 100 levels"}},
		{[]string{"--data", path, "--formula", "y ~ y"}, []string{"column 5: the response's column y is also a predictor"}},
		{[]string{"--data", path, "--formula", "y ~ x + (1 | y)"}, []string{"the response's column y is also the grouping factor"}},
		{[]string{"--data", sep, "--formula", "y ~ x + z", "--family", "bernoulli"}, []string{"the predictor x separates the outcomes of y", "b_x", "--priors 'b ~ normal(0, 2.5)'"}},
		// Long input is named, not copied: a 100 KB term, a 1 MB level.
		{[]string{"--data", path, "--formula", "y ~ x + I(" + strings.Repeat("x+", 50_000) + "zz)"}, []string{`no column "zz" in the data`}},
		{[]string{"--data", path, "--formula", "y ~ x + (1 | g)", "--test", bigLevel}, []string{`column "g": level "LLLL`, "…"}},
	} {
		code, _, errs := runMain(append([]string{"run", "--quiet"}, tc.args...)...)
		ok := code == 2 && len(errs) < 2000
		for _, w := range tc.want {
			ok = ok && strings.Contains(errs, w)
		}
		if !ok {
			t.Errorf("%.60s: exit %d, %.500s; want exit 2 and %q", strings.Join(tc.args, " "), code, errs, tc.want)
		}
	}
	// Under a proper prior on b, separation is a warning printed with the model.
	code, out, errs := runMain("run", "--quiet", "--data", sep, "--formula", "y ~ x + z", "--family", "bernoulli", "--priors", "b ~ normal(0, 2.5)", "--target-ess", "100", "--chains", "2")
	if code != 0 || !strings.Contains(out, "warning:  the predictor x separates the outcomes of y") {
		t.Errorf("separation under a proper prior: exit %d, %s\n%s", code, errs, out)
	}
}

// TestRunFormulaManyLevels: y ~ x + lvl with 10⁵ levels in 10⁶ rows is
// refused with exit 2, naming the column and the group-level term to write,
// with a bounded peak RSS (it once grew 20 MB/s until killed).
func TestRunFormulaManyLevels(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 10⁶-row file")
	}
	path := filepath.Join(t.TempDir(), "levels.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("y,x,lvl\n")
	for i := range 1_000_000 {
		fmt.Fprintf(w, "%d.5,%d,L%d\n", i%7, i%13, i%100_000)
	}
	w.Flush()
	f.Close()
	var stderr bytes.Buffer
	cmd := exec.Command("sh", "-c", `ulimit -v 4194304 && exec "$0" run --quiet --formula 'y ~ x + lvl' --data "$1"`, pureBinary(t), path)
	cmd.Stderr = &stderr
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss >> 10
	msg := stderr.String()
	t.Logf("exit %d, peak RSS %d MiB: %s", code, rss, msg)
	if code != 2 || !strings.Contains(msg, "lvl has 100000 levels in 1000000 rows") || !strings.Contains(msg, "(1 | lvl)") || rss > 1024 {
		t.Errorf("exit %d, peak RSS %d MiB: %s", code, rss, msg)
	}
}
