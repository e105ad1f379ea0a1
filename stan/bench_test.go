package stan

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

// BenchmarkLogPrior evaluates the log density and gradient of three
// posteriordb posteriors: eight schools (vectorised, 10 parameters), kidiq
// (a vectorised regression on 434 rows) and arK (a loop of scalars).
func BenchmarkLogPrior(b *testing.B) {
	for _, p := range pdbIndex(b) {
		switch p.Name {
		case "eight_schools-eight_schools_noncentered", "kidiq-kidscore_momiq", "arK-arK", "earnings-earn_height", "diamonds-diamonds":
		default:
			continue
		}
		b.Run(p.Model, func(b *testing.B) {
			m, err := pdbLoad(b, p)
			if err != nil {
				b.Fatal(err)
			}
			theta := make([]float64, m.Dim())
			g := make([]float64, m.Dim())
			b.ReportAllocs()
			for b.Loop() {
				m.LogPrior(theta, g)
			}
		})
	}
}

// BenchmarkVsHandWritten evaluates the log posterior and its gradient of
// the same logistic regression (posteriordb's wells data, 3020 rows, two
// coefficients, a N(0, 10²) prior) written three ways, side by side: as a
// vectorised Stan program, as a Stan program with a loop over the rows
// (interpreted scalars), and as the hand-written model.Logistic.
func BenchmarkVsHandWritten(b *testing.B) {
	data := string(mustRead(b, "testdata/wells_data.json"))
	progs := []struct{ name, src string }{
		{"stan-vectorised", `
data { int<lower=0> N; array[N] int<lower=0, upper=1> switched; vector[N] dist; }
parameters { vector[2] beta; }
model {
  target += normal_lpdf(beta | 0, 10);
  target += bernoulli_logit_lpmf(switched | beta[1] + beta[2] * dist);
}`},
		{"stan-loop", `
data { int<lower=0> N; array[N] int<lower=0, upper=1> switched; vector[N] dist; }
parameters { vector[2] beta; }
model {
  target += normal_lpdf(beta | 0, 10);
  for (n in 1:N)
    target += bernoulli_logit_lpmf(switched[n] | beta[1] + beta[2] * dist[n]);
}`},
	}
	theta := []float64{0.1, -0.01}
	g := make([]float64, 2)
	for _, p := range progs {
		b.Run(p.name, func(b *testing.B) {
			m, err := loadSrc(b, p.src, data)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				m.LogPrior(theta, g)
			}
		})
	}
	b.Run("model.Logistic", func(b *testing.B) {
		d, _ := ParseData("wells_data.json", mustRead(b, "testdata/wells_data.json"))
		_, dist, _ := d.read("dist", []int{3020}, false)
		sw, _, _ := d.read("switched", []int{3020}, true)
		y := make([]float64, len(sw))
		for i, v := range sw {
			y[i] = float64(v)
		}
		h, err := model.NewLogistic(mat.NewDense(len(dist), 1, dist), y, model.LogisticOptions{PriorScale: 10})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			langevin.LogPosterior(h, theta, g)
		}
	})
}

// BenchmarkReadData reads a logistic regression's data (10,000 rows of 5
// features) in CmdStan JSON.
func BenchmarkReadData(b *testing.B) {
	js, _, _ := logisticData(10000, 5, 1)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseData("d.json", []byte(js)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRows evaluates the row terms and their gradient of a logistic
// regression on 10,000 rows of 5 features, as a Stan program under NewRows
// (y ~ bernoulli_logit(alpha + X * beta)) and as model.Logistic, on all
// rows and on a minibatch of 100 at two points (a control variate's pair).
func BenchmarkRows(b *testing.B) {
	js, X, y := logisticData(10000, 5, 1)
	d, _ := ParseData("rows.json", []byte(js))
	prog, _ := Parse("rows.stan", rowsPrograms["vectorised"])
	m, err := NewRows(prog, d, "N")
	if err != nil {
		b.Fatal(err)
	}
	h, _ := model.NewLogistic(X, y, model.LogisticOptions{PriorScale: 1})
	theta := []float64{0.1, 0.2, -0.1, 0.3, 0.1, -0.2}
	theta2 := []float64{0.11, 0.2, -0.1, 0.31, 0.1, -0.2}
	g, g2 := make([]float64, 6), make([]float64, 6)
	batch := make([]int, 100)
	for k := range batch {
		batch[k] = (k * 7919) % 10000
	}
	for _, c := range []struct {
		name string
		m    langevin.Model
	}{{"stan", m}, {"model.Logistic", h}} {
		b.Run(c.name+"/all", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.m.LogLik(theta, nil, g)
			}
		})
		b.Run(c.name+"/pair100", func(b *testing.B) {
			p := c.m.(langevin.PairLogLik)
			b.ReportAllocs()
			for b.Loop() {
				p.LogLikPair(theta, theta2, batch, g, g2)
			}
		})
	}
}
