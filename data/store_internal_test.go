package data

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestStoreDecodeUnaligned checks the portable decoder (used for unaligned
// bytes and on big-endian machines) against the native one.
func TestStoreDecodeUnaligned(t *testing.T) {
	for _, elem := range []int{4, 8} {
		s := &Store{p: 2, elem: elem, rec: 3 * elem}
		vals := []float64{1.5, -2.25, 1, 3 << 30, 0.125, 0}
		raw := make([]byte, 1+len(vals)*elem)
		for k, v := range vals {
			if elem == 4 {
				binary.LittleEndian.PutUint32(raw[1+4*k:], math.Float32bits(float32(v)))
			} else {
				binary.LittleEndian.PutUint64(raw[1+8*k:], math.Float64bits(v))
			}
		}
		x, y := make([]float64, 4), make([]float64, 2)
		x2, y2 := make([]float64, 4), make([]float64, 2)
		s.decode(raw[1:], x, y) // odd address: the portable path
		aligned := append(make([]byte, 0, len(raw)), raw[1:]...)
		s.decode(aligned, x2, y2)
		want := []float64{1.5, -2.25, 3 << 30, 0.125}
		for j := range x {
			if x[j] != want[j] || x2[j] != want[j] {
				t.Errorf("elem %d: x[%d] = %v, %v, want %v", elem, j, x[j], x2[j], want[j])
			}
		}
		if y[0] != 1 || y[1] != 0 || y2[0] != 1 || y2[1] != 0 {
			t.Errorf("elem %d: y = %v, %v", elem, y, y2)
		}
	}
}
