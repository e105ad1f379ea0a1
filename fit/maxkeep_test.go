package fit

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

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

// A network run's rounds hold their draws at thin 1 until MaxKeep thins
// them: the rounds of a wide network are shortened to 1 GiB of draws (full
// Fashion-MNIST, 784-50-10 with 4 chains and its 31,569 burn-in, was refused
// for 19 GiB), and the rounds of the UCI networks keep their rule (a quarter
// of the burn-in, at least 200), whatever burn-in they plan.
func TestNetCheckEvery(t *testing.T) {
	net := func(in, hidden, classes int) langevin.Model {
		X := mat.NewDense(2, in, nil)
		X.Set(1, 0, 1)
		y := []float64{0.5, 1.5}
		opt := model.MLPOptions{Hidden: []int{hidden}, Likelihood: model.LikGaussian}
		if classes > 0 {
			y = []float64{0, float64(classes - 1)}
			opt = model.MLPOptions{Hidden: []int{hidden}, Likelihood: model.LikCategorical, Classes: classes}
		}
		m, err := model.NewMLP(X, y, model.MLPDefaults(opt))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	fashion, boston, protein := net(784, 50, 10), net(13, 50, 0), net(9, 100, 0)
	for _, tc := range []struct {
		name           string
		m              langevin.Model
		burnin, chains int
		want           int
	}{
		{"fashion-mnist", fashion, 31569, 4, 843},
		{"fashion-mnist, one chain", fashion, 31569, 1, 3374},
		{"fashion-mnist, short burn-in", fashion, 2000, 4, 500},
		{"boston", boston, 8000, 4, 2000},
		{"boston, tiny burn-in", boston, 300, 4, 200},
		{"protein", protein, 100000, 4, 25000},
	} {
		got := netCheckEvery(tc.burnin, tc.chains, tc.m)
		if got != tc.want {
			t.Errorf("%s: netCheckEvery(%d, %d) = %d, want %d", tc.name, tc.burnin, tc.chains, got, tc.want)
		}
		if b := int64(got) * int64(tc.chains) * rowBytes(tc.m); got > 200 && b > netRoundBytes {
			t.Errorf("%s: a round holds %d bytes of draws, more than %d", tc.name, b, netRoundBytes)
		}
	}
}
