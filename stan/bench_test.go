package stan

import "testing"

func BenchmarkLogPrior(b *testing.B) {
	for _, p := range posteriors[:3] {
		b.Run(p.model, func(b *testing.B) {
			m := load(b, p.model, p.data)
			theta := make([]float64, m.Dim())
			g := make([]float64, m.Dim())
			b.ReportAllocs()
			for b.Loop() {
				m.LogPrior(theta, g)
			}
		})
	}
}

func BenchmarkLogPriorArK(b *testing.B) {
	m := load(b, "arK", "arK")
	theta := make([]float64, m.Dim())
	g := make([]float64, m.Dim())
	b.ReportAllocs()
	for b.Loop() {
		m.LogPrior(theta, g)
	}
}
