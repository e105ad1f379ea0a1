package formula

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// TestWriteSim writes simulated CSV files for the command and for brms
// (LANGEVIN_FORMULA_SIM=DIR).
func TestWriteSim(t *testing.T) {
	dir := os.Getenv("LANGEVIN_FORMULA_SIM")
	if dir == "" {
		t.Skip("set LANGEVIN_FORMULA_SIM=DIR")
	}
	for _, c := range []struct {
		name, family string
		n, J         int
	}{{"logistic", "bernoulli", 2000, 20}, {"poisson", "poisson", 1000, 15}, {"gaussian", "gaussian", 600, 12}} {
		f := simFrame(c.n, c.J, c.family, 7)
		if err := writeCSV(dir+"/"+c.name+".csv", f); err != nil {
			t.Fatal(err)
		}
	}
}

func writeCSV(path string, f *Frame) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	for k, n := range f.Names() {
		if k > 0 {
			fmt.Fprint(fh, ",")
		}
		fmt.Fprint(fh, n)
	}
	fmt.Fprintln(fh)
	for i := 0; i < f.Len(); i++ {
		for k, n := range f.Names() {
			if k > 0 {
				fmt.Fprint(fh, ",")
			}
			c, _ := f.Column(n)
			if c.Num != nil {
				fmt.Fprint(fh, strconv.FormatFloat(c.Num[i], 'g', -1, 64))
			} else {
				fmt.Fprint(fh, c.Levels[c.Codes[i]])
			}
		}
		fmt.Fprintln(fh)
	}
	return nil
}
