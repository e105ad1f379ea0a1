package formula

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// NewLevels is the rule for a group level of new data that the training
// data did not have (brms's allow_new_levels).
type NewLevels int

const (
	// NewLevelsPopulation predicts a new level at the population level: its
	// group effects are 0 (brms's predictions with re_formula = NA for that
	// term). The mean of the new-level distribution, not a draw from it.
	NewLevelsPopulation NewLevels = iota
	// NewLevelsSample draws a new level's effects from the group
	// distribution, r ~ N(0, diag(sd) Ω diag(sd)), once per posterior draw
	// and level, shared by the level's rows (brms's allow_new_levels = TRUE,
	// sample_new_levels = "gaussian"): predictive intervals then include
	// the between-group spread.
	NewLevelsSample
	// NewLevelsError refuses new levels: an error names the first.
	NewLevelsError
)

func (r NewLevels) String() string {
	return [...]string{"population", "sample", "error"}[r]
}

// Prediction is the linear predictor and the mean of the response for each
// posterior draw (rows) and row of new data (columns).
type Prediction struct {
	Eta, Mean [][]float64
	// NewLevels lists, for each grouping factor with levels absent from
	// the training data, "g: level, …" (empty when there were none).
	NewLevels []string
}

// Predict returns, for each draw (a θ, as the run stores it: DerivedNames
// need not follow) and each row of tab, η = b_Intercept + xᵀb + Σ z_gᵀ r_g +
// offset and the mean of y given η (the inverse link: identity, logistic,
// Φ or exp). tab is coded as the training data were (levels, poly's
// recurrence, scale's centre); its response column is not needed. A group
// level absent from the training data follows rule; rng draws its effects
// under NewLevelsSample.
func (m *Model) Predict(tab Table, draws [][]float64, rule NewLevels, rng *rand.Rand) (*Prediction, error) {
	e := &env{tab: tab, book: m.book, train: false}
	names, cols, err := e.terms(m.Formula.Terms, m.Formula.Intercept)
	if err != nil {
		return nil, err
	}
	if len(names) != len(m.xnames) {
		return nil, fmt.Errorf("new data give %d population-level columns, the model %d", len(names), len(m.xnames))
	}
	n := tab.Len()
	offset := make([]float64, n)
	for _, o := range m.Formula.Offsets {
		v, err := e.num(o)
		if err != nil {
			return nil, err
		}
		for i, u := range v {
			offset[i] += u
		}
	}
	type gnew struct {
		codes []int
		z     [][]float64 // K columns
		newID map[int]int // row → index of its new level
		nNew  int
	}
	gd := make([]gnew, len(m.groups))
	pred := &Prediction{}
	for gi, g := range m.groups {
		gn, gc, err := e.terms(g.src.Terms, g.src.Intercept)
		if err != nil {
			return nil, err
		}
		if g.src.Intercept {
			one := make([]float64, n)
			for i := range one {
				one[i] = 1
			}
			gc = append([][]float64{one}, gc...)
		}
		if len(gc) != g.K {
			return nil, fmt.Errorf("new data give %d columns for the group-level term on %s, the model %d (%v)", len(gc), g.name, g.K, gn)
		}
		codes, _, err := e.grouping(g.src)
		if err != nil {
			return nil, err
		}
		// The new levels, by their values in tab.
		lv := map[string]int{}
		newID := map[int]int{}
		var listed []string
		raw, rawLevels, _ := (&env{tab: tab, book: codebook{}, train: true}).grouping(g.src)
		for i, c := range codes {
			if c >= 0 {
				continue
			}
			name := rawLevels[raw[i]]
			id, ok := lv[name]
			if !ok {
				id = len(lv)
				lv[name] = id
				listed = append(listed, name)
			}
			newID[i] = id
		}
		if len(listed) > 0 {
			if rule == NewLevelsError {
				return nil, &NewLevelError{Group: g.name, Level: listed[0], Count: len(listed)}
			}
			pred.NewLevels = append(pred.NewLevels, fmt.Sprintf("%s: %s (%s)", g.name, preview(listed), rule))
		}
		gd[gi] = gnew{codes: codes, z: gc, newID: newID, nNew: len(lv)}
	}
	der := make([]float64, m.gen.Len())
	pred.Eta = make([][]float64, len(draws))
	pred.Mean = make([][]float64, len(draws))
	for d, th := range draws {
		m.Derive(th, der)
		eta := make([]float64, n)
		for i := range eta {
			v := offset[i]
			if m.intercept {
				v += der[m.genBI.Off]
			}
			for j := range names {
				v += cols[j][i] * der[m.genB.Off+j]
			}
			eta[i] = v
		}
		for gi, g := range m.groups {
			r := der[g.genR.Off : g.genR.Off+g.genR.Len]
			var rNew []float64 // nNew × K
			if gd[gi].nNew > 0 && rule == NewLevelsSample {
				rNew = sampleEffects(g, der, gd[gi].nNew, rng)
			}
			for i := 0; i < n; i++ {
				var eff []float64
				if c := gd[gi].codes[i]; c >= 0 {
					eff = r[c*g.K : (c+1)*g.K]
				} else if rNew != nil {
					id := gd[gi].newID[i]
					eff = rNew[id*g.K : (id+1)*g.K]
				} else {
					continue
				}
				for k, v := range eff {
					eta[i] += gd[gi].z[k][i] * v
				}
			}
		}
		mean := make([]float64, n)
		for i, v := range eta {
			mean[i] = m.inverseLink(v)
		}
		pred.Eta[d], pred.Mean[d] = eta, mean
	}
	return pred, nil
}

// sampleEffects draws n new levels' effects r = diag(sd) L z, z ~ N(0, I),
// with L the Cholesky factor of the draw's correlation matrix.
func sampleEffects(g *groupTerm, der []float64, n int, rng *rand.Rand) []float64 {
	K := g.K
	sd := der[g.genSD.Off : g.genSD.Off+K]
	L := make([]float64, K*K)
	for k := 0; k < K; k++ {
		L[k*K+k] = 1
	}
	if g.corr && K > 1 {
		cor := der[g.genCor.Off : g.genCor.Off+g.genCor.Len]
		S := mat.NewSymDense(K, nil)
		p := 0
		for k := 0; k < K; k++ {
			S.SetSym(k, k, 1)
		}
		for k := 1; k < K; k++ {
			for j := 0; j < k; j++ {
				S.SetSym(j, k, cor[p])
				p++
			}
		}
		var ch mat.Cholesky
		if ch.Factorize(S) {
			var lt mat.TriDense
			ch.LTo(&lt)
			for i := 0; i < K; i++ {
				for j := 0; j <= i; j++ {
					L[i*K+j] = lt.At(i, j)
				}
			}
		}
	}
	out := make([]float64, n*K)
	z := make([]float64, K)
	for l := 0; l < n; l++ {
		for k := range z {
			z[k] = rng.NormFloat64()
		}
		for k := 0; k < K; k++ {
			var s float64
			for j := 0; j <= k; j++ {
				s += L[k*K+j] * z[j]
			}
			out[l*K+k] = sd[k] * s
		}
	}
	return out
}

// inverseLink returns the mean of y given η.
func (m *Model) inverseLink(eta float64) float64 {
	switch m.Family {
	case "bernoulli", "binomial": // binomial: the probability of success
		return 1 / (1 + math.Exp(-eta))
	case "probit":
		return 0.5 * math.Erfc(-eta/math.Sqrt2)
	case "poisson", "negbinomial":
		return math.Exp(eta)
	}
	return eta
}

// NewLevelError is Predict's error for a group level of the new data that
// the training data did not have, under NewLevelsError.
type NewLevelError struct {
	Group, Level string // Level in full; Error clips it
	Count        int    // new levels of the factor in the new data
}

func (e *NewLevelError) Error() string {
	return fmt.Sprintf("grouping factor %s: level %q of the new data was not in the training data (%d new level(s); predict with new levels at the population level or sampled from the group distribution)", e.Group, clip(e.Level), e.Count)
}
