package approx_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/approx"
)

// The reverse-KL step of constant SGD (Mandt et al. 2017, Appendix C)
// against Theorem 1's η* = 2D/Tr C: with gradient-noise eigenvalues 1 and 9
// along the precision's eigenvectors, η* = 2/mean(cᵢ) = 0.4 while
// η_rev = 2·mean(1/cᵢ) ≈ 1.11, the harmonic against the arithmetic mean.
func ExampleReverseKLStep() {
	prec := mat.NewSymDense(2, []float64{2, 0, 0, 5})
	noise := mat.NewSymDense(2, []float64{1, 0, 0, 9})
	eta, _ := approx.ReverseKLStep(prec, noise)
	fmt.Printf("η_rev = %.4f, η* = %.4f\n", eta, 2*2/(1.0+9))
	// Output:
	// η_rev = 1.1111, η* = 0.4000
}
