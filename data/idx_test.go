package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func idxBytes(typ, rank byte, dims []uint32, data []byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, typ, rank})
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, d)
	}
	b.Write(data)
	return b.Bytes()
}

func TestReadIDX(t *testing.T) {
	dir := t.TempDir()
	img := idxBytes(8, 3, []uint32{2, 2, 3}, []byte{0, 255, 51, 1, 2, 3, 10, 20, 30, 40, 50, 60})
	lab := idxBytes(8, 1, []uint32{2}, []byte{7, 0})
	for _, gz := range []bool{false, true} {
		ip, lp := filepath.Join(dir, "img"), filepath.Join(dir, "lab")
		wi, wl := img, lab
		if gz {
			ip, lp = ip+".gz", lp+".gz"
			wi, wl = gzipBytes(t, string(img)), gzipBytes(t, string(lab))
		}
		if err := os.WriteFile(ip, wi, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(lp, wl, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := ReadIDX(ip, lp)
		if err != nil {
			t.Fatalf("gzip=%v: %v", gz, err)
		}
		if d.Len() != 2 || d.Dim() != 6 {
			t.Fatalf("gzip=%v: %d×%d, want 2×6", gz, d.Len(), d.Dim())
		}
		if got := d.X.At(0, 1); got != 1 {
			t.Errorf("X[0,1] = %v, want 1", got)
		}
		if got := d.X.At(0, 2); got != 0.2 {
			t.Errorf("X[0,2] = %v, want 0.2", got)
		}
		if got := d.X.At(1, 5); got != 60.0/255 {
			t.Errorf("X[1,5] = %v, want 60/255", got)
		}
		if d.Y[0] != 7 || d.Y[1] != 0 {
			t.Errorf("Y = %v, want [7 0]", d.Y)
		}
		if d.Names[0] != "px.1.1" || d.Names[5] != "px.2.3" {
			t.Errorf("names %v", d.Names)
		}
	}
}

func TestParseIDXErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		rank int
		want string
	}{
		{"empty", nil, 1, "byte 0: file ends early"},
		{"magic", []byte{1, 2, 8, 1}, 1, "expected an IDX file"},
		{"type", []byte{0, 0, 0x0d, 1, 0, 0, 0, 0}, 1, "byte 2: element type 0x0d: expected 0x08"},
		{"rank", idxBytes(8, 2, []uint32{1, 1}, []byte{0}), 3, "byte 3: 2 dimensions: expected 3"},
		{"short dims", []byte{0, 0, 8, 3, 0, 0, 0, 1}, 3, "byte 8: file ends early: expected dimension 2 of 3"},
		{"short data", idxBytes(8, 1, []uint32{5}, []byte{1, 2}), 1, "byte 10: file ends early: expected 5 data bytes"},
		{"trailing", idxBytes(8, 1, []uint32{1}, []byte{1, 2}), 1, "byte 9: data continue"},
		{"huge", idxBytes(8, 3, []uint32{1 << 20, 1 << 20, 1 << 20}, nil), 3, "too large"},
	} {
		_, _, err := parseIDX(bytes.NewReader(tc.in), "f.idx", tc.rank, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "f.idx: ") {
			t.Errorf("%s: err = %v, want f.idx: …%s…", tc.name, err, tc.want)
		}
	}
}

func TestReadIDXMismatch(t *testing.T) {
	dir := t.TempDir()
	ip, lp := filepath.Join(dir, "img"), filepath.Join(dir, "lab")
	os.WriteFile(ip, idxBytes(8, 3, []uint32{2, 1, 1}, []byte{1, 2}), 0o644)
	os.WriteFile(lp, idxBytes(8, 1, []uint32{3}, []byte{1, 2, 3}), 0o644)
	if _, err := ReadIDX(ip, lp); err == nil || !strings.Contains(err.Error(), "3 labels, but") {
		t.Errorf("err = %v", err)
	}
	if _, err := ReadIDX(filepath.Join(dir, "nope"), lp); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing file: err = %v", err)
	}
}

// TestFashionMNIST reads the real test set when Debian's
// dataset-fashion-mnist is installed (it is not needed in CI).
func TestFashionMNIST(t *testing.T) {
	if _, err := os.Stat(FashionMNISTDir); err != nil {
		t.Skip("dataset-fashion-mnist not installed")
	}
	d, err := FashionMNIST(FashionMNISTDir, false)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 10000 || d.Dim() != 784 {
		t.Fatalf("test set %d×%d, want 10000×784", d.Len(), d.Dim())
	}
	var count [10]int
	for _, y := range d.Y {
		count[int(y)]++
	}
	for k, c := range count {
		if c != 1000 {
			t.Errorf("class %d (%s): %d images, want 1000", k, FashionMNISTClasses[k], c)
		}
	}
}

// TestReadIDXBound: an IDX file whose dimensions would hold more numbers
// than the bound is refused from its header, before its data are read,
// with an error naming the file, its dimensions and the bound (issue 24:
// every reader bounded); within the bound it reads as before.
func TestReadIDXBound(t *testing.T) {
	dir := t.TempDir()
	ip, lp := filepath.Join(dir, "img"), filepath.Join(dir, "lab")
	// A header announcing 60,000 images of 28×28 (376 MB of features),
	// followed by only a few bytes.
	os.WriteFile(ip, idxBytes(8, 3, []uint32{60000, 28, 28}, make([]byte, 100)), 0o644)
	os.WriteFile(lp, idxBytes(8, 1, []uint32{60000}, make([]byte, 100)), 0o644)
	_, err := readIDX(ip, lp, 100<<20)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), ip) || !strings.Contains(err.Error(), "[60000 28 28] would hold 358 MiB") || !strings.Contains(err.Error(), "bound of 100 MiB") {
		t.Fatalf("over the bound: %v", err)
	}
	small := idxBytes(8, 3, []uint32{2, 2, 3}, make([]byte, 12))
	os.WriteFile(ip, small, 0o644)
	os.WriteFile(lp, idxBytes(8, 1, []uint32{2}, []byte{1, 0}), 0o644)
	if _, err := readIDX(ip, lp, 96); err != nil { // 12 features × 8 bytes = 96
		t.Fatalf("at the bound: %v", err)
	}
	if _, err := readIDX(ip, lp, 95); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("one byte over the bound: %v", err)
	}
}
