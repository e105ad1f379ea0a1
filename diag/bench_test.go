package diag

import (
	"math"
	"testing"
)

func benchChains(m, n int) [][]float64 {
	c := make([][]float64, m)
	var s uint64 = 1
	for j := range c {
		c[j] = make([]float64, n)
		var x float64
		for i := range c[j] {
			s = s*6364136223846793005 + 1442695040888963407
			u := float64(s>>11) / (1 << 53)
			x = 0.9*x + math.Tan(math.Pi*(u-0.5))
			c[j][i] = x
		}
	}
	return c
}

func BenchmarkSummarize4x1000(b *testing.B) {
	c := benchChains(4, 1000)
	b.ReportAllocs()
	for b.Loop() {
		Summarize([]string{"x"}, [][][]float64{c})
	}
}

func BenchmarkSummarize4x100000(b *testing.B) {
	c := benchChains(4, 100000)
	b.ReportAllocs()
	for b.Loop() {
		Summarize([]string{"x"}, [][][]float64{c})
	}
}

func BenchmarkESSBulk4x1000(b *testing.B) {
	c := benchChains(4, 1000)
	b.ReportAllocs()
	for b.Loop() {
		ESSBulk(c)
	}
}
