// Command stanrows writes a logistic regression data set twice — as CSV for
// langevin run --model logistic and as CmdStan JSON for the same regression
// written in Stan (logistic.stan, run with --rows N) — for the comparison
// of docs/stan.md ("Minibatches"):
//
//	go run ./bench/stanrows -n 1000000 -out /tmp/stanrows
//	bench/stanrows/run.sh /tmp/stanrows
//
// run.sh ends with go run ./bench/stanrows -compare /tmp/stanrows, which
// prints the table of docs/stan.md from the runs' summary.csv files and
// their cpu: lines.
//
// Rows i = 1…n: five features xᵢⱼ = 0.7 zᵢ + 0.7 εᵢⱼ (correlated, sd about
// 1), yᵢ ~ Bernoulli(logit⁻¹(0.3 + xᵢᵀβ)), β = (1, −0.5, 0.25, 0.8, −1.2),
// from a fixed seed.
package main

import (
	"bufio"
	"encoding/csv"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	cmp := flag.String("compare", "", "print the comparison table of the runs in `DIR` (run.sh) and exit")
	flag.Parse()
	if *cmp != "" {
		if err := compare(*cmp); err != nil {
			log.Fatal(err)
		}
		return
	}
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

// summary reads a run's summary.csv: mean and sd by variable.
func summary(path string) (map[string][2]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	out := map[string][2]float64{}
	for _, r := range rows[1:] {
		m, _ := strconv.ParseFloat(r[1], 64)
		s, _ := strconv.ParseFloat(r[2], 64)
		out[r[0]] = [2]float64{m, s}
	}
	return out, nil
}

// cpuCols returns a run's CPU columns from its log: the total, its ratio to
// base (when base > 0), the phases of the cpu: line, and the peak memory of
// the time: line.
func cpuCols(path string, base float64) (string, float64) {
	b, _ := os.ReadFile(path)
	total, phases, rss := math.NaN(), "?", "?"
	for _, l := range strings.Split(string(b), "\n") {
		if s, ok := strings.CutPrefix(l, "cpu:"); ok {
			s = strings.TrimSpace(s)
			fmt.Sscan(s, &total)
			if _, after, ok := strings.Cut(s, "): "); ok {
				phases = after
			}
		}
		if _, after, ok := strings.Cut(l, "max RSS "); ok {
			var kb float64
			fmt.Sscan(after, &kb)
			rss = fmt.Sprintf("%.0f MB", kb/1024)
		}
	}
	ratio := ""
	if base > 0 {
		ratio = fmt.Sprintf("%.2f", total/base)
	}
	return fmt.Sprintf("%.2f | %s | %s | %s", total, ratio, phases, rss), total
}

// compare prints the runs of run.sh side by side: each Stan run against
// the --model logistic run, parameter by parameter, and the CPU of each.
func compare(dir string) error {
	ref, err := summary(filepath.Join(dir, "out-logistic", "summary.csv"))
	if err != nil {
		return err
	}
	names := [][2]string{{"alpha", "intercept"}}
	for j := 1; j <= 5; j++ {
		b := fmt.Sprintf("beta.%d", j)
		names = append(names, [2]string{b, b})
	}
	fmt.Println("| run | max \\|Δmean\\| / sd | sd / sd of `--model logistic` | CPU s (user + system) | ratio | phases (CPU s) | max RSS |")
	fmt.Println("|---|---|---|---|---|---|---|")
	cols, base := cpuCols(filepath.Join(dir, "logistic.log"), 0)
	fmt.Printf("| `--model logistic`, CSV | | | %s |\n", cols)
	for _, run := range []struct{ dir, log, name string }{
		{"out-stan", "stan.log", "Stan `--rows N`, JSON, the same seed (1)"},
		{"out-stan-seed2", "stan-seed2.log", "Stan `--rows N`, JSON, `--seed 2`"},
	} {
		got, err := summary(filepath.Join(dir, run.dir, "summary.csv"))
		if err != nil {
			return err
		}
		dm, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
		for _, n := range names {
			g, r := got[n[0]], ref[n[1]]
			dm = max(dm, math.Abs(g[0]-r[0])/r[1])
			lo, hi = min(lo, g[1]/r[1]), max(hi, g[1]/r[1])
		}
		cols, _ := cpuCols(filepath.Join(dir, run.log), base)
		fmt.Printf("| %s | %.3f | %.3f–%.3f | %s |\n", run.name, dm, lo, hi, cols)
	}
	return nil
}
