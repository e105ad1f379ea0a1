package experiment

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// checkCreditFigures checks that credit --out, run with its stdout out, also
// wrote report Figures 3–5 and 10 into dir (PNG and SVG: traces with the
// burn-in, marginals, autocorrelations, predictive bands, confusion
// matrices) and a page embedding them.
// TestExperimentCredit calls it on its run.
func checkCreditFigures(t *testing.T, dir, out string) {
	t.Helper()
	if !bytes.Contains([]byte(out), []byte("credit-predictive.png")) {
		t.Errorf("stdout does not name the figures:\n%s", out)
	}
	for _, name := range []string{"credit-traces", "credit-marginals", "credit-acf", "credit-predictive", "credit-confusion"} {
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
	if n := bytes.Count(b, []byte("data:image/png;base64,")); err != nil || n != 5 || !bytes.Contains(b, []byte("NUTS")) {
		t.Errorf("index.html: %v (%d embedded images, want the 5 figures; NUTS named: %v)", err, n, bytes.Contains(b, []byte("NUTS")))
	}
}
