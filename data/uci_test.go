package data

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadUCITiny reads the fixture testdata/uci-tiny: data.txt has 5
// columns (the target V3 in the middle, V4 neither feature nor target),
// a trailing blank line, 40 rows and 2 splits of 32 + 8.
func TestReadUCITiny(t *testing.T) {
	u, err := ReadUCI("testdata/uci-tiny")
	if err != nil {
		t.Fatal(err)
	}
	if u.All.Len() != 40 || u.All.Dim() != 3 || u.Hidden != 8 || u.Splits != 2 {
		t.Fatalf("%d rows × %d features, hidden %d, splits %d; want 40 × 3, 8, 2", u.All.Len(), u.All.Dim(), u.Hidden, u.Splits)
	}
	if strings.Join(u.All.Names, ",") != "V1,V2,V5" || u.All.Target != "V3" {
		t.Errorf("names %v, target %s; want V1,V2,V5 and V3", u.All.Names, u.All.Target)
	}
	// Row 0 of data.txt: -0.705 -1.397 6.089 0.072 0.604.
	if u.All.X.At(0, 0) != -0.705 || u.All.X.At(0, 2) != 0.604 || u.All.Y[0] != 6.089 {
		t.Errorf("row 0: %v, y %v", u.All.X.RawRowView(0), u.All.Y[0])
	}
	for k := range u.Splits {
		train, test, err := u.Split(k)
		if err != nil {
			t.Fatal(err)
		}
		if train.Len() != 32 || test.Len() != 8 {
			t.Errorf("split %d: %d + %d rows, want 32 + 8", k, train.Len(), test.Len())
		}
	}
	if _, _, err := u.Split(2); err == nil || !strings.Contains(err.Error(), "split 2: expected 0…1") {
		t.Errorf("split 2: err = %v", err)
	}
}

// TestReadUCIErrors: bad folders give errors naming the file and line.
func TestReadUCIErrors(t *testing.T) {
	files := map[string]string{
		"data.txt": "1 2 3\n4 5 6\n7 8 9\n", "index_features.txt": "0\n1\n", "index_target.txt": "2\n",
		"n_hidden.txt": "50\n", "n_splits.txt": "1\n", "index_train_0.txt": "0\n1\n", "index_test_0.txt": "2\n",
	}
	for _, tc := range []struct{ file, content, want string }{
		{"index_features.txt", "0\n5\n", "index_features.txt:2:1: column 5: expected 0…2"},
		{"index_features.txt", "0\nx\n", "index_features.txt:2:1: cannot parse \"x\""},
		{"index_target.txt", "1\n", "column 1 is both the target and a feature"},
		{"index_target.txt", "1\n2\n", "2 column numbers: expected one target column"},
		{"n_splits.txt", "two", "n_splits.txt:1: \"two\": expected one positive integer"},
		{"index_test_0.txt", "1\n", "row 1 is in both the training and the test rows of split 0"},
		{"index_train_0.txt", "0\n3\n", "index_train_0.txt:2:1: row 3: expected 0…2"},
		{"data.txt", "1 2 3\n4 x 6\n", "data.txt:2:2"},
		{"n_hidden.txt", "", "expected one positive integer"},
	} {
		dir := t.TempDir()
		for f, c := range files {
			if f == tc.file {
				c = tc.content
			}
			if err := os.WriteFile(filepath.Join(dir, f), []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		u, err := ReadUCI(dir)
		if err == nil {
			_, _, err = u.Split(0)
		}
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %q: err = %v, want a *ParseError containing %q", tc.file, tc.content, err, tc.want)
		}
	}
	if IsUCIDir("testdata") || !IsUCIDir("testdata/uci-tiny") {
		t.Error("IsUCIDir")
	}
}

// TestReadUCIShared checks the reader against the README of the shared UCI
// folder: rows, features, splits, hidden units, the split sizes (90% / 10%,
// disjoint, covering every row) and the sha256 prefix of each data.txt.
func TestReadUCIShared(t *testing.T) {
	root := filepath.Join(sharedData, "uci")
	if _, err := os.Stat(root); err != nil {
		t.Skip("the UCI benchmark folder is not available")
	}
	for _, tc := range []struct {
		dir                    string
		rows, feats, splits, h int
		sha                    string
	}{
		{"bostonHousing", 506, 13, 20, 50, "baadf72995725d76"},
		{"energy", 768, 8, 20, 50, "7f8bf024cea43726"},
		{"power-plant", 9568, 4, 20, 50, "daebd20c408dfc5c"},
		{"protein-tertiary-structure", 45730, 9, 5, 100, "d35f332707e8a73f"},
		{"wine-quality-red", 1599, 11, 20, 50, "3ba41eaf4ab56208"},
		{"yacht", 308, 6, 20, 50, "00dfecc0fc01ddd4"},
	} {
		dir := filepath.Join(root, tc.dir)
		b, err := os.ReadFile(filepath.Join(dir, "data.txt"))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:])[:16]; got != tc.sha {
			t.Errorf("%s: sha256 %s, want %s", tc.dir, got, tc.sha)
		}
		if testing.Short() && tc.rows > 2000 {
			continue
		}
		u, err := ReadUCI(dir)
		if err != nil {
			t.Fatal(err)
		}
		if u.All.Len() != tc.rows || u.All.Dim() != tc.feats || u.Splits != tc.splits || u.Hidden != tc.h {
			t.Errorf("%s: %d × %d, %d splits, %d hidden; want %d × %d, %d, %d", tc.dir, u.All.Len(), u.All.Dim(), u.Splits, u.Hidden, tc.rows, tc.feats, tc.splits, tc.h)
		}
		for _, k := range []int{0, u.Splits - 1} {
			train, test, err := u.Split(k)
			if err != nil {
				t.Fatal(err)
			}
			// The PBP splits: the test set is round(0.1 n) rows... within one row of 10%.
			if train.Len()+test.Len() != tc.rows || test.Len() < tc.rows/10 || test.Len() > tc.rows/10+1 {
				t.Errorf("%s split %d: %d train + %d test rows of %d", tc.dir, k, train.Len(), test.Len(), tc.rows)
			}
		}
	}
}
