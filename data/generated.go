package data

import (
	"errors"
	"fmt"
	"strings"
)

// GenOptions are the settings of the data sets that Generated names.
type GenOptions struct {
	N     int     // points (moons, spirals: in total, gap1d); fashion-mnist: the first N training images, 0 all
	Noise float64 // noise sd: of the points (moons), of the angle (spirals), of y (gap1d)
	K     int     // spirals: arms (classes), at least 2
	Seed  uint64
	// MaxBytes, if positive, bounds the numbers an installed data set
	// (fashion-mnist) holds in memory, as CSVOptions.MaxBytes: more is an
	// error wrapping ErrTooLarge.
	MaxBytes int64
}

// MaxGenerated bounds the number of points of a generated data set (moons,
// spirals, gap1d): 10⁷ points of two features and a label take 240 MB; a
// larger request is a typing slip, refused before any allocation.
const MaxGenerated = 10_000_000

// GeneratedNames lists the data sets Generated knows.
var GeneratedNames = []string{"moons", "spirals", "gap1d", "fashion-mnist"}

// Generated returns the generated or installed data set called name (case
// insensitive): moons ([Moons]), spirals ([Spirals], N/K points per arm),
// gap1d ([Gap1D]) or fashion-mnist ([FashionMNIST] from [FashionMNISTDir],
// which also returns its test set). ok is false, with no error, when name is
// none of them.
func Generated(name string, o GenOptions) (train, test *Dataset, ok bool, err error) {
	switch strings.ToLower(name) {
	case "moons", "spirals", "gap1d":
		if o.N > MaxGenerated {
			return nil, nil, true, fmt.Errorf("%d points: expected at most %d for generated data (%s)", o.N, MaxGenerated, name)
		}
	}
	switch strings.ToLower(name) {
	case "moons":
		train, err = Moons(o.N, o.Noise, o.Seed)
	case "spirals":
		if o.K < 2 {
			return nil, nil, true, fmt.Errorf("%d arms: expected at least 2", o.K)
		}
		train, err = Spirals(o.K, o.N/o.K, o.Noise, o.Seed)
	case "gap1d":
		train, err = Gap1D(o.N, o.Noise, o.Seed)
	case "fashion-mnist":
		if train, err = fashionMNIST(FashionMNISTDir, true, o.MaxBytes); err != nil {
			if errors.Is(err, ErrTooLarge) {
				return nil, nil, true, err
			}
			return nil, nil, true, fmt.Errorf("%v (install the Debian package dataset-fashion-mnist)", err)
		}
		if o.N > 0 {
			if o.N > train.Len() {
				return nil, nil, true, fmt.Errorf("%d images: expected at most %d", o.N, train.Len())
			}
			idx := make([]int, o.N)
			for i := range idx {
				idx[i] = i
			}
			train = train.Subset(idx)
		}
		test, err = fashionMNIST(FashionMNISTDir, false, o.MaxBytes)
	default:
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, true, err
	}
	return train, test, true, nil
}
