package formula_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/formula"
)

// langevin run --formula 'y ~ x + (1 | g)' --data testdata/groups.csv as a
// library call: the same reader, model and plan, so the same draws, bit
// for bit (cmd/langevin's TestFitRunEqualsFormulaCommand compares them).
func Example_run() {
	f, err := formula.Parse("y ~ x + (1 | g)")
	if err != nil {
		log.Fatal(err)
	}
	tab, _, err := formula.Read("testdata/groups.csv", "auto", f, data.TableOptions{})
	if err != nil {
		log.Fatal(err)
	}
	m, err := formula.New(f, tab, formula.Options{}) // gaussian, brms's default priors
	if err != nil {
		log.Fatal(err)
	}
	res, err := fit.Run(context.Background(), fit.Job{Model: m}, fit.Settings{}, nil)
	if err != nil {
		log.Fatal(err)
	}
	names := m.PrintedNames() // θ's columns → brms's names
	for _, s := range res.Table {
		if n, ok := names[s.Name]; ok && !strings.HasPrefix(n, "r_") {
			fmt.Printf("%-16s mean %6.3f  sd %5.3f\n", n, s.Mean, s.SD)
		}
	}
	// Output:
	// b_Intercept      mean  1.217  sd 0.456
	// b_x              mean  0.545  sd 0.060
	// sd_g__Intercept  mean  1.107  sd 0.473
	// sigma            mean  0.477  sd 0.046
}
