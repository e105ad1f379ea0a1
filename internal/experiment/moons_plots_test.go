package experiment

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// moons --out also draws the report's Figure 8 and the display of its Figure 5 (PNG and SVG) and a
// page embedding them. A short run: the figures, not the numbers, are tested
// here (TestMoonsAcceptance checks the numbers).
func TestMoonsFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("experiment acceptance test: skipped with -short")
	}
	dir := t.TempDir()
	code, out, errOut := runMain("experiment", "moons", "--n", "200", "--map-iters", "500", "--cycles", "5", "--ensemble", "0", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !bytes.Contains([]byte(out), []byte("maps.png")) {
		t.Errorf("stdout does not name maps.png:\n%s", out)
	}
	for _, name := range []string{"maps", "predictive"} {
		b, err := os.ReadFile(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if img, err := png.Decode(bytes.NewReader(b)); err != nil || img.Bounds().Dx() < 500 {
			t.Errorf("%s.png: %v", name, err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, name+".svg")); err != nil || !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s.svg: %v", name, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil || bytes.Count(b, []byte("data:image/png;base64,")) != 2 || !bytes.Contains(b, []byte("far/train ratio")) {
		t.Errorf("index.html: %v (want two embedded images and the results)", err)
	}
}
