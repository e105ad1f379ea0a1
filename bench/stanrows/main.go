// Command stanrows writes a logistic regression data set twice — as CSV for
// langevin run --model logistic and as CmdStan JSON for the same regression
// written in Stan (logistic.stan, run with --rows N) — for the comparison
// of docs/stan.md ("Minibatches"):
//
//	go run ./bench/stanrows -n 1000000 -out /tmp/stanrows
//	bench/stanrows/run.sh /tmp/stanrows
//
// Rows i = 1…n: five features xᵢⱼ = 0.7 zᵢ + 0.7 εᵢⱼ (correlated, sd about
// 1), yᵢ ~ Bernoulli(logit⁻¹(0.3 + xᵢᵀβ)), β = (1, −0.5, 0.25, 0.8, −1.2),
// from a fixed seed.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

const program = `data {
  int<lower=0> N;
  int<lower=1> K;
  matrix[N, K] X;
  array[N] int<lower=0, upper=1> y;
}
parameters {
  real alpha;
  vector[K] beta;
}
model {
  alpha ~ normal(0, 1);
  beta ~ normal(0, 1);
  y ~ bernoulli_logit(alpha + X * beta);
}
`

func main() {
	n := flag.Int("n", 1000000, "rows")
	out := flag.String("out", "stanrows", "output `DIR`")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*out, "logistic.stan"), []byte(program), 0o644); err != nil {
		log.Fatal(err)
	}
	const k = 5
	beta := []float64{1, -0.5, 0.25, 0.8, -1.2}
	rng := rand.New(rand.NewPCG(1, 7))
	csvF, err := os.Create(filepath.Join(*out, "data.csv"))
	if err != nil {
		log.Fatal(err)
	}
	jsonF, err := os.Create(filepath.Join(*out, "data.json"))
	if err != nil {
		log.Fatal(err)
	}
	c, j := bufio.NewWriter(csvF), bufio.NewWriter(jsonF)
	fmt.Fprintln(c, "y,x1,x2,x3,x4,x5")
	fmt.Fprintf(j, "{\"N\": %d, \"K\": %d, \"X\": [", *n, k)
	y := make([]byte, 0, 2*(*n)+2)
	x := make([]float64, k)
	for i := 0; i < *n; i++ {
		z := rng.NormFloat64()
		eta := 0.3
		for l := range x {
			x[l] = 0.7*z + 0.7*rng.NormFloat64()
			eta += beta[l] * x[l]
		}
		yi := byte('0')
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			yi = '1'
		}
		c.WriteByte(yi)
		if i > 0 {
			j.WriteString(", ")
			y = append(y, ',', ' ')
		}
		y = append(y, yi)
		j.WriteByte('[')
		for l, v := range x {
			s := strconv.FormatFloat(v, 'g', 10, 64)
			c.WriteByte(',')
			c.WriteString(s)
			if l > 0 {
				j.WriteString(", ")
			}
			j.WriteString(s)
		}
		j.WriteByte(']')
		c.WriteByte('\n')
	}
	fmt.Fprintf(j, "], \"y\": [%s]}\n", y)
	for _, w := range []*bufio.Writer{c, j} {
		if err := w.Flush(); err != nil {
			log.Fatal(err)
		}
	}
	csvF.Close()
	jsonF.Close()
}
