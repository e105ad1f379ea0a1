package experiment

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// checkMixture25Figures checks that mixture25 --out, run with its stdout
// out, also wrote the density figure into dir (PNG and SVG) and a page
// embedding it. TestMixture25Command calls it on its run.
func checkMixture25Figures(t *testing.T, dir, out string) {
	t.Helper()
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
