package experiment

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// credit --out also writes report Figures 3–5 (PNG and SVG: traces with
// the burn-in, marginals, autocorrelations, predictive bands) and a page
// embedding them.
func TestCreditFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("experiment acceptance test: skipped with -short")
	}
	dir := t.TempDir()
	code, out, errOut := runMain("experiment", "credit", "--draws", "300", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !bytes.Contains([]byte(out), []byte("credit-predictive.png")) {
		t.Errorf("stdout does not name the figures:\n%s", out)
	}
	for _, name := range []string{"credit-traces", "credit-marginals", "credit-acf", "credit-predictive"} {
		b, err := os.ReadFile(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s.png: %v", name, err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, name+".svg")); err != nil || !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s.svg: %v", name, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil || bytes.Count(b, []byte("data:image/png;base64,")) != 4 || !bytes.Contains(b, []byte("NUTS")) {
		t.Errorf("index.html: %v", err)
	}
}
