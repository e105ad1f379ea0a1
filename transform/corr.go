package transform

import (
	"fmt"
	"math"
)

// CholeskyCorr is the lower Cholesky factor L (K×K, row-major, zeros above
// the diagonal) of a K×K correlation matrix LLᵀ, from K(K−1)/2 unconstrained
// values taken row by row (Stan's cholesky_factor_corr). Row i has canonical
// partial correlations zᵢⱼ = tanh(x), j < i, and with wᵢ₀ = 1,
//
//	Lᵢⱼ = zᵢⱼ √wᵢⱼ,  wᵢ,ⱼ₊₁ = wᵢⱼ (1 − zᵢⱼ²),  Lᵢᵢ = √wᵢᵢ,
//
// so every row has unit norm. With uᵢⱼ = log(1 − zᵢⱼ²) (the log derivative
// of tanh), log wᵢⱼ = Σ_{l<j} uᵢₗ and
//
//	log|J| = Σᵢ Σ_{j<i} uᵢⱼ + ½ Σᵢ Σ_{1≤j<i} log wᵢⱼ
//	       = Σᵢ Σ_{j<i} (1 + ½ (i − 1 − j)) uᵢⱼ.
type CholeskyCorr int

func (t CholeskyCorr) Size() int      { k := int(t); return k * (k - 1) / 2 }
func (t CholeskyCorr) Len() int       { return int(t) * int(t) }
func (t CholeskyCorr) Prefix() string { return "free_" }

// logSech2 returns log(1 − tanh² x) = 2 (log 2 − |x| − log(1 + e^(−2|x|))).
func logSech2(x float64) float64 {
	a := math.Abs(x)
	return 2 * (math.Ln2 - a - math.Log1p(math.Exp(-2*a)))
}

func (t CholeskyCorr) Forward(y, x []float64) float64 {
	k := int(t)
	clear(y[:k*k])
	y[0] = 1
	var lj float64
	p := 0
	for i := 1; i < k; i++ {
		row := y[i*k : i*k+k]
		w := 1.0
		for j := 0; j < i; j++ {
			z := math.Tanh(x[p])
			u := logSech2(x[p])
			lj += (1 + 0.5*float64(i-1-j)) * u
			row[j] = z * math.Sqrt(w)
			w *= 1 - z*z
			p++
		}
		row[i] = math.Sqrt(w)
	}
	return lj
}

// Backward uses ∂Lᵢⱼ/∂zᵢⱼ = √wᵢⱼ, ∂Lᵢⱼ/∂uᵢₗ = ½ Lᵢⱼ for l < j ≤ i, and
// ∂uᵢⱼ/∂zᵢⱼ = −2zᵢⱼ/(1 − zᵢⱼ²), ∂zᵢⱼ/∂x = 1 − zᵢⱼ².
func (t CholeskyCorr) Backward(gx, x, y, gy []float64, gj float64) {
	k := int(t)
	p := 0
	for i := 1; i < k; i++ {
		row := y[i*k : i*k+k]
		var grow []float64
		if gy != nil {
			grow = gy[i*k : i*k+k]
		}
		// suffix = Σ_{j'>j} ½ ḡL_{ij'} L_{ij'}, over j' ≤ i.
		var suffix float64
		if grow != nil {
			suffix = 0.5 * grow[i] * row[i]
		}
		w := row[i] * row[i] // w_{i,i}; w_{ij} recovered backwards
		for j := i - 1; j >= 0; j-- {
			z := math.Tanh(x[p+j])
			w /= 1 - z*z // now w_{ij}
			ubar := suffix + gj*(1+0.5*float64(i-1-j))
			var zbar float64
			if grow != nil {
				zbar = grow[j] * math.Sqrt(w)
				suffix += 0.5 * grow[j] * row[j]
			}
			zbar += ubar * (-2 * z / (1 - z*z))
			gx[p+j] += zbar * (1 - z*z)
		}
		p += i
	}
}

func (t CholeskyCorr) Inverse(x, y []float64) error {
	k := int(t)
	p := 0
	for i := 0; i < k; i++ {
		row := y[i*k : i*k+k]
		var ss float64
		for j, v := range row {
			if j > i && v != 0 {
				return fmt.Errorf("transform: Cholesky factor entry (%d, %d) = %v above the diagonal: expected 0", i+1, j+1, v)
			}
			ss += v * v
		}
		if math.Abs(ss-1) > 1e-8 || !(row[i] > 0) {
			return fmt.Errorf("transform: Cholesky factor row %d: norm² %v and diagonal %v: expected a unit row with a positive diagonal", i+1, ss, row[i])
		}
		w := 1.0
		for j := 0; j < i; j++ {
			z := row[j] / math.Sqrt(w)
			if !(math.Abs(z) < 1) {
				return fmt.Errorf("transform: Cholesky factor entry (%d, %d) = %v: partial correlation %v outside (−1, 1)", i+1, j+1, row[j], z)
			}
			x[p] = math.Atanh(z)
			w *= 1 - z*z
			p++
		}
	}
	return nil
}
