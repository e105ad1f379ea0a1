package data

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseLIBSVM(t *testing.T) {
	in := "+1 1:0.5 3:2\n\n-1 2:-1 # comment\n# whole-line comment\r\n1\t4:1e-3 \r\n"
	d, err := ParseLIBSVM(strings.NewReader(in), "in.svm", 0)
	if err != nil {
		t.Fatal(err)
	}
	checkDataset(t, d, []string{"V1", "V2", "V3", "V4"}, "label",
		[]float64{
			0.5, 0, 2, 0,
			0, -1, 0, 0,
			0, 0, 0, 1e-3,
		}, []float64{1, -1, 1})

	d, err = ParseLIBSVM(strings.NewReader(in), "in.svm", 6)
	if err != nil {
		t.Fatal(err)
	}
	if d.Dim() != 6 || d.X.At(2, 3) != 1e-3 || d.X.At(2, 5) != 0 {
		t.Errorf("dim 6: got %d columns", d.Dim())
	}
}

func TestParseLIBSVMErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		dim  int
		want string
	}{
		{"empty", "", 0, "f.svm: empty file: expected a data row"},
		{"comments only", "# x\n\n", 0, "f.svm: empty file: expected a data row"},
		{"no features", "1\n-1\n", 0, "f.svm: no features: no line has an index:value item"},
		{"bad label", "1 1:2\nx 1:2\n", 0, `f.svm:2:1: label: cannot parse "x" as a number`},
		{"nan label", "nan 1:2\n", 0, "f.svm:1:1: label: NaN is not allowed"},
		{"no colon", "1 1:2 3\n", 0, `f.svm:1:3: expected index:value, got "3"`},
		{"bad index", "1 a:2\n", 0, `f.svm:1:2: cannot parse index "a"`},
		{"huge index", "1 99999999999999999999:2\n", 0, `f.svm:1:2: cannot parse index "999999999999"...`},
		{"zero index", "1 0:2\n", 0, "f.svm:1:2: index 0 is not positive: indices are 1-based"},
		{"decreasing", "1 3:2 2:1\n", 0, "f.svm:1:3: index 2 follows index 3: indices must be strictly increasing"},
		{"duplicate", "1 3:2 3:1\n", 0, "f.svm:1:3: index 3 follows index 3: indices must be strictly increasing"},
		{"exceeds dim", "1 1:1\n1 1:2 5:1\n", 4, "f.svm:2:3: index 5 exceeds the dimension 4"},
		{"bad value", "1 1:abc\n", 0, `f.svm:1:2: cannot parse "abc" as a number`},
		{"empty value", "1 1:\n", 0, "f.svm:1:2: missing value (empty field)"},
		{"inf value", "1 1:inf\n", 0, "f.svm:1:2: Inf is not allowed"},
		{"negative dim", "1 1:1\n", -1, "f.svm: invalid dimension -1: must be positive, or 0 to use the largest index"},
		{"too large", "1 1:1 300000000:1\n", 0, "f.svm: 1 rows × 300000000 features is too large for a dense matrix"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseLIBSVM(strings.NewReader(tc.in), "f.svm", tc.dim)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %T %v, want *ParseError", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got %s\nwant %s", err, tc.want)
			}
		})
	}
}

func TestReadLIBSVMGzip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.svm")
	if err := os.WriteFile(path, gzipBytes(t, "-1 2:3\n+1 1:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := ReadLIBSVM(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkDataset(t, d, []string{"V1", "V2"}, "label", []float64{0, 3, 1, 0}, []float64{-1, 1})
}

// The LIBSVM copy of the Australian data has the same values as the
// embedded file up to float32 rounding (58.669998 for 58.67), with labels ±1
// instead of 0/1.
func TestReadLIBSVMAustralian(t *testing.T) {
	path := filepath.Join(sharedData, "australian_libsvm")
	if _, err := os.Stat(path); err != nil {
		t.Skip("australian_libsvm not available")
	}
	d, err := ReadLIBSVM(path, 14)
	if err != nil {
		t.Fatal(err)
	}
	a := Australian()
	if d.Len() != a.Len() || d.Dim() != a.Dim() {
		t.Fatalf("dims %d×%d, want %d×%d", d.Len(), d.Dim(), a.Len(), a.Dim())
	}
	for i := range d.Len() {
		if d.Y[i] != 2*a.Y[i]-1 {
			t.Fatalf("row %d: label %v vs class %v", i, d.Y[i], a.Y[i])
		}
		for j := range d.Dim() {
			if v, w := d.X.At(i, j), a.X.At(i, j); math.Abs(v-w) > 1e-6*math.Max(1, math.Abs(w)) {
				t.Fatalf("row %d col %d: %v vs %v", i, j, d.X.At(i, j), a.X.At(i, j))
			}
		}
	}
}
