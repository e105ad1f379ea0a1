package predict

import (
	"bufio"
	"fmt"
	"io"

	"gonum.org/v1/gonum/mat"
)

// WriteCSV writes one row per test point: the label y, then for each class k
// p.k (the model average) with p.k.lower and p.k.upper (its credible
// interval; 0 without one), then entropy, expected_entropy and mutual_info.
func (c *Classification) WriteCSV(w io.Writer, y []float64) error {
	bw := bufio.NewWriter(w)
	_, k := c.Probs.Dims()
	writeClassHeader(bw, k)
	c.writeRows(bw, y)
	return bw.Flush()
}

// WriteCSVRows writes the rows of WriteCSV without the header: a block of
// the points of ClassifyBlocks (write the header once, with
// WriteClassHeader).
func (c *Classification) WriteCSVRows(w io.Writer, y []float64) error {
	bw := bufio.NewWriter(w)
	c.writeRows(bw, y)
	return bw.Flush()
}

// WriteClassHeader writes the header line of Classification.WriteCSV for k
// classes.
func WriteClassHeader(w io.Writer, k int) error {
	bw := bufio.NewWriter(w)
	writeClassHeader(bw, k)
	return bw.Flush()
}

func writeClassHeader(bw *bufio.Writer, k int) {
	fmt.Fprint(bw, "y")
	for j := 0; j < k; j++ {
		fmt.Fprintf(bw, ",p.%d,p.%d.lower,p.%d.upper", j, j, j)
	}
	fmt.Fprintln(bw, ",entropy,expected_entropy,mutual_info")
}

func (c *Classification) writeRows(bw *bufio.Writer, y []float64) {
	_, k := c.Probs.Dims()
	at := func(m *mat.Dense, i, j int) float64 {
		if m == nil {
			return 0
		}
		return m.At(i, j)
	}
	for i, v := range y {
		fmt.Fprintf(bw, "%g", v)
		for j := 0; j < k; j++ {
			fmt.Fprintf(bw, ",%.6g,%.6g,%.6g", c.Probs.At(i, j), at(c.Lower, i, j), at(c.Upper, i, j))
		}
		fmt.Fprintf(bw, ",%.6g,%.6g,%.6g\n", c.Entropy[i], c.Expected[i], c.MutualInfo[i])
	}
}

// WriteCSV writes one row per test point: the response y, the predictive
// mean, the interval of f (f_lower, f_upper) and of a new observation
// (y_lower, y_upper).
func (r *Regression) WriteCSV(w io.Writer, y []float64) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "y,mean,f_lower,f_upper,y_lower,y_upper")
	for i, v := range y {
		fmt.Fprintf(bw, "%g,%.6g,%.6g,%.6g,%.6g,%.6g\n", v, r.Mean[i], r.Lower[i], r.Upper[i], r.ObsLower[i], r.ObsUpper[i])
	}
	return bw.Flush()
}
