package stancsv_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"strings"

	"github.com/langevin-go/langevin/stancsv"
)

func ExampleWriter() {
	cfg := stancsv.Config{
		Model:      "normal_model",
		Algorithm:  "sgld",
		Metric:     "diag_e",
		NumWarmup:  2,
		NumSamples: 3,
		SaveWarmup: true,
		Seed:       42,
		ChainID:    1,
		Extra:      [][2]string{{"batch_size", "100"}},
	}
	w, err := stancsv.NewWriter(os.Stdout, cfg, []string{"lp__", "stepsize__", "mu", "theta.1"})
	if err != nil {
		log.Fatal(err)
	}
	// Warm-up draws.
	w.Write([]float64{-3.5, 0.1, 0.25, 1})
	w.Write([]float64{-2.75, 0.05, 0.5, math.Inf(1)})
	// End of warm-up: step size and diagonal inverse metric.
	w.WriteAdaptation(0.01, []float64{1, 1.2})
	// Sampling draws.
	w.Write([]float64{-1.25, 0.01, 1.0 / 3, math.NaN()})
	w.Write([]float64{-1, 0.01, 0.1, -2})
	w.Write([]float64{-0.5, 0.01, 1e-10, 2.5})
	if err := w.Close(0.125, 0.5); err != nil {
		log.Fatal(err)
	}

	// Output:
	// # model = normal_model
	// # method = sample
	// #   sample
	// #     num_samples = 3
	// #     num_warmup = 2
	// #     save_warmup = 1
	// #     thin = 1
	// #     algorithm = sgld
	// #       sgld
	// #         metric = diag_e
	// # id = 1
	// # random
	// #   seed = 42
	// # batch_size = 100
	// lp__,stepsize__,mu,theta.1
	// -3.5,0.1,0.25,1
	// -2.75,0.05,0.5,inf
	// # Adaptation terminated
	// # Step size = 0.01
	// # Diagonal elements of inverse mass matrix:
	// # 1, 1.2
	// -1.25,0.01,0.3333333333333333,nan
	// -1,0.01,0.1,-2
	// -0.5,0.01,1e-10,2.5
	// #
	// #  Elapsed Time: 0.125 seconds (Warm-up)
	// #                0.5 seconds (Sampling)
	// #                0.625 seconds (Total)
	// #
}

func ExampleRead() {
	const data = `# model = m
# method = sample
#     num_samples = 2
#     num_warmup = 1
#     save_warmup = 1
#     thin = 1
lp__,mu
-1.5,0.2
# Adaptation terminated
# Step size = 0.5
# Diagonal elements of inverse mass matrix:
# 1.5
-1,0.3
-0.75,nan
`
	f, err := stancsv.Read(strings.NewReader(data), "chain-1.csv")
	if err != nil {
		log.Fatal(err)
	}
	mu, _ := f.Column("mu")
	fmt.Println(f.ParamNames(), len(f.Warmup), "warm-up rows")
	fmt.Println("mu:", mu)
	fmt.Println("step size:", f.StepSize, "inverse metric:", f.InvMetric)
	fmt.Println("num_samples:", f.Config["num_samples"])

	_, err = stancsv.Read(strings.NewReader("lp__,mu\n-1,abc\n"), "chain-2.csv")
	fmt.Println(err)

	// Output:
	// [mu] 1 warm-up rows
	// mu: [0.3 NaN]
	// step size: 0.5 inverse metric: [1.5]
	// num_samples: 2
	// chain-2.csv:2:2: cannot parse "abc" as a number (column "mu")
}
