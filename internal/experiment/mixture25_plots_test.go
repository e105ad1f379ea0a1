package experiment

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// mixture25 --out also writes the density figure (PNG and SVG) and a page
// embedding it.
func TestMixture25Figures(t *testing.T) {
	if testing.Short() {
		t.Skip("experiment acceptance test: skipped with -short")
	}
	dir := t.TempDir()
	code, out, errOut := runMain("experiment", "mixture25", "--seeds", "2", "--iters", "3000", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !bytes.Contains([]byte(out), []byte("density.png")) {
		t.Errorf("stdout does not name density.png:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "density.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() < 1000 {
		t.Errorf("density.png: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "density.svg")); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("density.svg: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "index.html")); err != nil || !bytes.Contains(b, []byte("data:image/png;base64,")) || !bytes.Contains(b, []byte("cSGLD")) {
		t.Errorf("index.html: %v", err)
	}
}
