package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailedRunLeavesNoDirectory: the messy-file example of
// docs/your-own-data.md run first without --missing drop fails on its input
// (exit 2) and removes what it made (the lock file, resume.json, the
// directory and the parents it created), so the corrected command runs
// without --overwrite; a directory the user made is kept, empty.
func TestFailedRunLeavesNoDirectory(t *testing.T) {
	tmp := t.TempDir()
	churn := filepath.Join("..", "..", "docs", "data", "churn.csv")
	out := filepath.Join(tmp, "runs", "churn-run")
	wrong := append([]string{"run", "--data", churn, "--target", "churn", "--id", "customer", "--out", out}, quick...)
	code, _, errOut := runMain(wrong...)
	if code != 2 || !strings.Contains(errOut, "--missing drop") {
		t.Fatalf("without --missing drop: exit %d, %q; want exit 2 naming --missing drop", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(tmp, "runs")); !os.IsNotExist(err) {
		t.Errorf("the failed run left %s behind (%v)", filepath.Join(tmp, "runs"), err)
	}
	right := append([]string{"run", "--data", churn, "--target", "churn", "--id", "customer", "--missing", "drop", "--out", out}, quick...)
	// The same mistake twice, then the corrected command: no --overwrite.
	runMain(wrong...)
	if code, _, errOut := runMain(right...); code != 0 {
		t.Fatalf("the corrected command: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(out, "chain-1.csv")); err != nil {
		t.Error(err)
	}

	// A directory that existed is kept, and emptied of what the run made.
	mine := filepath.Join(tmp, "mine")
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runMain(append([]string{"run", "--data", churn, "--target", "churn", "--out", mine}, quick...)...); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if ents, err := os.ReadDir(mine); err != nil || len(ents) != 0 {
		t.Errorf("%s: %v, %d entries left (want it kept, empty)", mine, err, len(ents))
	}
	// A run refused because --out holds another run removes none of its
	// files.
	if code, _, errOut := runMain(right...); code != 2 || !strings.Contains(errOut, "--overwrite") {
		t.Errorf("a second run into a finished run's directory: exit %d, %q; want it refused (--overwrite)", code, errOut)
	}
	for _, name := range []string{"chain-1.csv", "model.json", "resume.json"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("the finished run's %s: %v", name, err)
		}
	}
}
