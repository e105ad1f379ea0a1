package ad

// axpyCols adds Σⱼ b[j]·X[j][lo:lo+len(y)] into y, where X's columns are the
// rows of cols (column j at cols[j*n:]), four columns per pass over y so that
// y is loaded and stored once per four columns. (The reslicing to len(y)
// lets the compiler drop the bounds checks of the inner loops.)
func axpyCols(y, b, cols []float64, n, lo int) {
	m := len(y)
	j := 0
	for ; j+4 <= len(b); j += 4 {
		b0, b1, b2, b3 := b[j], b[j+1], b[j+2], b[j+3]
		c0 := cols[j*n+lo:][:m]
		c1 := cols[(j+1)*n+lo:][:m]
		c2 := cols[(j+2)*n+lo:][:m]
		c3 := cols[(j+3)*n+lo:][:m]
		k := 0
		if useAVX && m >= 4 {
			k = m &^ 3
			axpy4AVX(&y[0], &c0[0], &c1[0], &c2[0], &c3[0], k, b0, b1, b2, b3)
		}
		for ; k < m; k++ {
			y[k] += b0*c0[k] + b1*c1[k] + b2*c2[k] + b3*c3[k]
		}
	}
	for ; j < len(b); j++ {
		bj := b[j]
		c := cols[j*n+lo:][:m]
		for k := range y {
			y[k] += bj * c[k]
		}
	}
}

// dotCols adds d·X[j][lo:lo+len(d)] into g[j] for every column j, four
// columns per pass over d.
func dotCols(g, d, cols []float64, n, lo int) {
	m := len(d)
	j := 0
	for ; j+4 <= len(g); j += 4 {
		c0 := cols[j*n+lo:][:m]
		c1 := cols[(j+1)*n+lo:][:m]
		c2 := cols[(j+2)*n+lo:][:m]
		c3 := cols[(j+3)*n+lo:][:m]
		var s0, s1, s2, s3 float64
		k := 0
		if useAVX && m >= 4 {
			k = m &^ 3
			s0, s1, s2, s3 = dot4AVX(&d[0], &c0[0], &c1[0], &c2[0], &c3[0], k)
		}
		for ; k < m; k++ {
			v := d[k]
			s0 += v * c0[k]
			s1 += v * c1[k]
			s2 += v * c2[k]
			s3 += v * c3[k]
		}
		g[j] += s0
		g[j+1] += s1
		g[j+2] += s2
		g[j+3] += s3
	}
	for ; j < len(g); j++ {
		c := cols[j*n+lo:][:m]
		var s float64
		for k, v := range d {
			s += v * c[k]
		}
		g[j] += s
	}
}
