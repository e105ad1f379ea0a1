package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExperimentPackage checks that langevin experiment NAME reaches the
// experiments of package internal/experiment, with their exit codes: 0 for
// a run and for -h, 2 for a bad flag.
func TestExperimentPackage(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runMain("experiment", "schedules", "--out", dir, "--iters", "500")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "schedules.png")); err != nil || !strings.Contains(out, "index.md") {
		t.Errorf("no figure or page: %v\n%s", err, out)
	}
	if code, _, errOut := runMain("experiment", "schedules", "--nope"); code != 2 || !strings.Contains(errOut, "--nope") {
		t.Errorf("bad flag: exit %d, %q; want 2 naming --nope", code, errOut)
	}
	if code, out, _ := runMain("experiment", "schedules", "-h"); code != 0 || !strings.Contains(out, "-iters") {
		t.Errorf("-h: exit %d, %q", code, out)
	}
	if code, out, _ := runMain("experiment", "-h"); code != 0 || !strings.Contains(out, "lecture-fixed-step") {
		t.Errorf("experiment -h: exit %d; the list lacks lecture-fixed-step:\n%s", code, out)
	}
}
