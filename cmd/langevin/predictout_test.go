package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestPredictOutAtomic: predict --out FILE is written beside FILE and
// renamed when whole; before, it was created under its final name, so a
// SIGTERM (or an error) while it was written left a torn CSV there.
func TestPredictOutAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pred.csv")
	if err := os.WriteFile(path, []byte("old,complete\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := writeCSV(path, func(w io.Writer) error {
		io.WriteString(w, "y,mean\n1,0.")
		if b, _ := os.ReadFile(path); string(b) != "old,complete\n" {
			t.Errorf("while written, %s holds %q", path, b)
		}
		return errors.New("cut short")
	})
	if err == nil {
		t.Fatal("no error")
	}
	if b, _ := os.ReadFile(path); string(b) != "old,complete\n" {
		t.Errorf("after a failed write, %s holds %q, want the old file", path, b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
	if err := writeCSV(path, func(w io.Writer) error { _, err := io.WriteString(w, "y,mean\n1,0.5\n"); return err }); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "y,mean\n1,0.5\n" || st.Mode().Perm() != 0o644 {
		t.Errorf("written: %q, mode %v", b, st.Mode())
	}
}
