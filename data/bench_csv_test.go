package data

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
)

// numericCSV returns a CSV file of n rows of p columns of numbers as a
// scientific data set holds them (17 significant digits, mixed signs and
// exponents), with a header.
func numericCSV(n, p int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for j := range p {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString("x" + strconv.Itoa(j+1))
	}
	b.WriteByte('\n')
	var num []byte
	for range n {
		for j := range p {
			if j > 0 {
				b.WriteByte(',')
			}
			num = strconv.AppendFloat(num[:0], rng.NormFloat64()*100, 'g', -1, 64)
			b.Write(num)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkParseCSV reads 10⁵ rows × 20 columns of full-precision numbers
// (about 37 MB). MB/s is the wall-clock speed, cpu-MB/s the speed per
// CPU-second (user + system), which other processes on a shared machine do
// not inflate.
func BenchmarkParseCSV(b *testing.B) {
	in := numericCSV(100000, 20)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		if _, err := ParseCSV(bytes.NewReader(in), "bench", CSVOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := (cpuTime() - c0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(len(in))*float64(b.N)/1e6/cpu, "cpu-MB/s")
	}
}
