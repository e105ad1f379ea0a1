//go:build ignore

// export writes the CLI's default training split of the embedded Australian
// credit data (seeded 80/20 split, seed 1, standardised with the training
// mean and sd) as australian_train.csv, for the Stan comparison:
//
//	go run bench/stan/export.go
package main

import (
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/langevin-go/langevin/data"
)

func main() {
	train, _ := data.TrainTest(data.Australian(), 0.2, 1)
	data.FitScaler(train.X).Transform(train.X)
	f, err := os.Create("bench/stan/australian_train.csv")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	n, p := train.X.Dims()
	cols := []string{"y"}
	for j := 1; j <= p; j++ {
		cols = append(cols, fmt.Sprintf("x%d", j))
	}
	fmt.Fprintln(f, strings.Join(cols, ","))
	for i := 0; i < n; i++ {
		row := []string{fmt.Sprint(train.Y[i])}
		for j := 0; j < p; j++ {
			row = append(row, fmt.Sprintf("%.17g", train.X.At(i, j)))
		}
		fmt.Fprintln(f, strings.Join(row, ","))
	}
}
