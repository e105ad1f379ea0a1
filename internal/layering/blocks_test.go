package layering

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// oneRowGrad matches a gradient of one row handed to a model or an
// expansion: LogLik or Rest called with a one-row batch (a slice named one,
// x[i:i+1] or []int{i}) and a gradient that is not nil.
var oneRowGrad = regexp.MustCompile(`\b(LogLik|Rest)\([^()]*(, one,|\[[a-z]+ ?: ?[a-z]+ ?\+ ?1\],|\[\]int\{[a-z]+\},) *[^n )][^)]*\)`)

// TestOnePerRowGradientLoop fails on a per-row gradient loop outside
// langevin.RowGrads (rowgrads.go), the module's one: a non-test file that
// calls LogLik or a Taylor's Rest on a one-row batch with a gradient.
// Per-row log-likelihood values (a nil gradient) are not gradients.
func TestOnePerRowGradientLoop(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"m.LogLik(theta, one, g)", true},
		{"m.LogLik(c.theta, batch[i:i+1], c.gi)", true},
		{"m.LogLik(mp, []int{i}, p.grads.RawRowView(i))", true},
		{"dst[j] = m.LogLik(theta, rows[j:j+1], nil)", false},
		{"m.LogLik(theta, batch, g)", false},
	} {
		if got := oneRowGrad.MatchString(tc.line); got != tc.want {
			t.Errorf("%s: matched %v, want %v", tc.line, got, tc.want)
		}
	}
	var found []string
	filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != "../.." && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.ToSlash(path) == "../../rowgrads.go" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if oneRowGrad.MatchString(line) {
				found = append(found, path+":"+itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	for _, f := range found {
		t.Errorf("%s: a per-row gradient loop of its own; use langevin.RowGrads", f)
	}
}
