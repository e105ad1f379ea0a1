package approx_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/model"
)

// counting wraps a model without an exact Hessian and counts its full-data
// log-likelihood evaluations; after `cancelAt` of them it calls cancel.
type counting struct {
	langevin.Model
	calls    *atomic.Int64
	cancelAt int64
	cancel   context.CancelFunc
}

func (c counting) LogLik(theta []float64, batch []int, grad []float64) float64 {
	if n := c.calls.Add(1); c.cancel != nil && n == c.cancelAt {
		c.cancel()
	}
	return c.Model.LogLik(theta, batch, grad)
}

func gaussModel(t *testing.T) *model.Gaussian {
	rng := rand.New(rand.NewPCG(4, 4))
	cov := randSPD(4, rng)
	g, err := model.NewGaussian([]float64{1, -1, 0.5, 2}, cov)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRunLaplaceOnce checks that however often the parts of a run ask, the
// MAP and the Hessian are computed once, and that the answer is the exact
// Laplace approximation of a Gaussian (its mean and covariance).
func TestRunLaplaceOnce(t *testing.T) {
	t.Parallel()
	g := gaussModel(t)
	var calls atomic.Int64
	r := &approx.RunLaplace{Model: counting{Model: g, calls: &calls}}
	ctx := context.Background()
	mode, err := r.MAP(ctx)
	if err != nil {
		t.Fatal(err)
	}
	afterMAP := calls.Load()
	for range 3 {
		if _, err := r.MAP(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Approx(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Diag(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if maps, hes := r.Counts(); maps != 1 || hes != 1 {
		t.Errorf("%d MAPs and %d Hessians, want 1 and 1", maps, hes)
	}
	d := int64(g.Dim())
	if got := calls.Load() - afterMAP; got != 2*d {
		t.Errorf("%d gradient evaluations after the MAP, want 2d = %d (one finite-difference Hessian)", got, 2*d)
	}
	l, _ := r.Approx(ctx)
	for j, want := range []float64{1, -1, 0.5, 2} {
		if math.Abs(mode[j]-want) > 1e-6 {
			t.Errorf("MAP[%d] = %v, want %v", j, mode[j], want)
		}
	}
	if !mat.EqualApprox(l.Cov, g.Cov(), 1e-5) {
		t.Errorf("Laplace covariance\n%v\nwant\n%v", mat.Formatted(l.Cov), mat.Formatted(g.Cov()))
	}
}

// TestRunLaplaceContext checks that a cancelled context stops the MAP search
// and the finite-difference Hessian, and that the error is remembered.
func TestRunLaplaceContext(t *testing.T) {
	t.Parallel()
	g := gaussModel(t)
	var calls atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &approx.RunLaplace{Model: counting{Model: g, calls: &calls, cancelAt: 3, cancel: cancel}}
	if _, err := r.MAP(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("MAP with an interrupt: %v, want context.Canceled", err)
	}
	if _, err := r.Approx(context.Background()); !errors.Is(err, context.Canceled) {
		t.Errorf("Approx after an interrupted MAP: %v, want the remembered context.Canceled", err)
	}

	// The MAP is known; the interrupt comes during the Hessian's columns.
	calls.Store(0)
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	r2 := &approx.RunLaplace{
		Model:   counting{Model: g, calls: &calls, cancelAt: 3, cancel: cancel2},
		FindMAP: func(context.Context, langevin.Model) ([]float64, error) { return []float64{1, -1, 0.5, 2}, nil },
	}
	if _, err := r2.Diag(ctx2); !errors.Is(err, context.Canceled) {
		t.Errorf("Hessian with an interrupt: %v, want context.Canceled", err)
	}
	if n := calls.Load(); n >= 2*int64(g.Dim()) {
		t.Errorf("%d gradient evaluations: the Hessian ran to the end after the interrupt", n)
	}
}
