package report_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/report"
)

func TestRunTitle(t *testing.T) {
	for _, tc := range []struct {
		settings   [][2]string
		title      string
		trajectory bool
	}{
		{nil, "langevin run", false},
		{[][2]string{{"model", "logistic"}, {"algorithm", "sgld"}}, "langevin run: logistic, SGLD", false},
		{[][2]string{{"algorithm", "sgd"}, {"model", "linear"}}, "langevin run, SGD: linear", true},
		{[][2]string{{"model", "mlp"}, {"algorithm", "gd"}, {"seed", "1"}}, "langevin run: mlp, GD", true},
	} {
		title, traj := report.RunTitle(tc.settings)
		if title != tc.title || traj != tc.trajectory {
			t.Errorf("RunTitle(%v) = %q, %v; want %q, %v", tc.settings, title, traj, tc.title, tc.trajectory)
		}
	}
}

// TestWriteFile writes the page into a directory it creates.
func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "report.html")
	if err := report.WriteFile(path, "a title", iidTrace(3, 2, 100), report.Options{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "a title") || !strings.Contains(string(b), "</html>") {
		t.Errorf("%s is not the whole page:\n%.300s", path, b)
	}
}
