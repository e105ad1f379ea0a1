package ad_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/ad"
	"github.com/langevin-go/langevin/transform"
)

// packedCase: a Poisson model with a two-column design, a varying
// intercept and slope over 7 groups and an offset, written twice — on the
// arrays, and on a minibatch's records gathered from an ad.Packed — and the
// rows of a batch with repeats, negative codes shifted, large counts.
type packedCase struct {
	n                  int
	X, Z               *ad.Matrix
	codes              []int
	k                  []int
	offset             []float64
	pk                 *ad.Packed
	hx, hz, hc, hk, ho int
}

func newPackedCase(t *testing.T, n int) *packedCase {
	rng := rand.New(rand.NewPCG(3, 4))
	c := &packedCase{n: n, codes: make([]int, n), k: make([]int, n), offset: make([]float64, n)}
	X := mat.NewDense(n, 2, nil)
	Z := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		X.Set(i, 0, rng.NormFloat64())
		X.Set(i, 1, rng.Float64())
		Z.Set(i, 0, 1)
		Z.Set(i, 1, X.At(i, 0))
		c.codes[i] = rng.IntN(7)
		c.k[i] = rng.IntN(5)
		c.offset[i] = rng.NormFloat64() / 10
	}
	c.X, c.Z = ad.NewMatrix(X), ad.NewMatrix(Z)
	c.pk = ad.NewPacked(n)
	c.hx, c.hz = c.pk.Matrix(c.X), c.pk.Matrix(c.Z)
	c.ho = c.pk.Floats(c.offset)
	c.hc, c.hk = c.pk.Ints(c.codes), c.pk.Ints(c.k)
	if err := c.pk.Pack(); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *packedCase) model(packed bool) *ad.Model {
	l := &transform.Layout{}
	bb := l.Add("b", transform.Identity(2))
	br := l.Add("r", transform.Identity(14))
	return ad.New(l, c.n, nil, func(t *ad.Tape, batch []int) ad.Vec {
		X, Z, codes, k, off := c.X, c.Z, c.codes, c.k, c.offset
		if packed && len(batch) > 0 {
			g := t.Gather(c.pk, batch)
			X, Z, codes, k, off, batch = g.Matrix(c.hx), g.Matrix(c.hz), g.Ints(c.hc), g.Ints(c.hk), g.Floats(c.ho), g.Index()
		}
		eta := t.Add(t.MatVec(X, t.Param(bb), batch), t.GroupMatVec(Z, t.Param(br), codes, batch))
		eta = t.Add(eta, t.Rows(off, batch))
		return t.PoissonLog(t.IntRows(k, batch), eta)
	})
}

// TestPackedSameBitForBit: the log likelihood and its gradient on a
// minibatch's gathered records equal those on the arrays bit for bit, for
// LogLik and for both halves of LogLikPair (which gathers once), batch
// after batch of different sizes on one tape; a full-data pass is the
// arrays'. Fails if a record's column were misplaced (a gradient moves) or
// LogLikPair's second evaluation read a stale batch.
func TestPackedSameBitForBit(t *testing.T) {
	c := newPackedCase(t, 500)
	plain, packed := c.model(false), c.model(true)
	rng := rand.New(rand.NewPCG(5, 6))
	d := plain.Dim()
	for trial, size := range []int{50, 200, 7, 500, 1, 200} {
		batch := make([]int, size)
		for i := range batch {
			batch[i] = rng.IntN(c.n)
		}
		if trial == 3 {
			batch = nil // full data
		}
		a, b := make([]float64, d), make([]float64, d)
		for j := range a {
			a[j], b[j] = rng.NormFloat64()/3, rng.NormFloat64()/3
		}
		g1, g2, g3, g4 := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		l1 := plain.LogLik(a, batch, g1)
		l2 := packed.LogLik(a, batch, g2)
		la, lb := packed.LogLikPair(a, b, batch, g3, g4)
		gb := make([]float64, d)
		lbPlain := plain.LogLik(b, batch, gb)
		if l1 != l2 || l1 != la || lb != lbPlain {
			t.Fatalf("batch %d: log lik %v (arrays) %v (packed) %v (pair); at b %v vs %v", trial, l1, l2, la, lbPlain, lb)
		}
		for j := range g1 {
			if g1[j] != g2[j] || g1[j] != g3[j] || gb[j] != g4[j] {
				t.Fatalf("batch %d, gradient %d: %v (arrays) %v (packed) %v (pair); at b %v vs %v", trial, j, g1[j], g2[j], g3[j], gb[j], g4[j])
			}
		}
	}
}

// TestPackedInts: integer columns round-trip through their 32-bit halves
// (negative values, both halves of a word, an odd count of columns), and
// a value beyond 32 bits is an error naming it.
func TestPackedInts(t *testing.T) {
	cols := [][]int{{-1, 5, math.MaxInt32, math.MinInt32}, {0, -7, 3, 2}, {9, 8, -2147483647, 1}}
	p := ad.NewPacked(4)
	for _, c := range cols {
		p.Ints(c)
	}
	if err := p.Pack(); err != nil {
		t.Fatal(err)
	}
	if p.Stride() != 2 {
		t.Errorf("stride %d words for 3 int32 columns, want 2", p.Stride())
	}
	m := ad.New(&transform.Layout{}, 4, nil, func(tp *ad.Tape, batch []int) ad.Vec {
		g := tp.Gather(p, batch)
		for h, c := range cols {
			for k, r := range batch {
				if got := g.Ints(h)[k]; got != c[r] {
					t.Errorf("column %d, row %d: %d, want %d", h, r, got, c[r])
				}
			}
		}
		return tp.Const(0)
	})
	m.LogLik(nil, []int{3, 0, 2, 1, 1}, nil)
	big := ad.NewPacked(2)
	big.Ints([]int{1, 1 << 40})
	if err := big.Pack(); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("a count beyond 32 bits: err %v, want one naming row 2", err)
	}
}

var _ langevin.PairLogLik = (*ad.Model)(nil)
