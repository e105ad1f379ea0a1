package fit

import "testing"

// The kept-draw bound of --sampler auto leaves room for the ESS target: at
// least 2·target kept draws in all, never fewer than autoMaxKeep per chain.
func TestMaxKeep(t *testing.T) {
	for _, tc := range []struct {
		target float64
		chains int
		want   int
	}{
		{400, 4, 400},
		{100, 4, autoMaxKeep},
		{2000, 4, 2000},
		{2000, 1, 8000},
		{1000, 3, 1334},
	} {
		if got := MaxKeep(tc.target, tc.chains); got != tc.want {
			t.Errorf("MaxKeep(%v, %d) = %d, want %d", tc.target, tc.chains, got, tc.want)
		}
		if tc.want/2*tc.chains < int(2*tc.target) && tc.want != autoMaxKeep {
			t.Errorf("MaxKeep(%v, %d): fewer than 2·target kept draws", tc.target, tc.chains)
		}
	}
}
