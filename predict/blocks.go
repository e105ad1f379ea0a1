package predict

import (
	"iter"
	"math"

	"gonum.org/v1/gonum/mat"
)

// BlockScore is what ClassifyBlocks measures over all test points: the
// metrics of Evaluate and the means of the entropies of Classify.
type BlockScore struct {
	Metrics *Metrics
	// Means over the points of the total, expected (aleatoric) and
	// epistemic (mutual information) entropies, in nats (NaN with
	// ProbsOnly).
	Entropy, Expected, MutualInfo float64
}

// ClassifyBlocks is Classify and Evaluate over a test set given a block of
// rows at a time (features and labels; data.Blocks reads them from a file),
// so that its memory is that of one block whatever the number of test
// points; each, when not nil, sees each block's Classification and labels
// (to write the per-point predictions). Each point's numbers, and the
// metrics, equal those of Classify and Evaluate on all the rows at once, bit
// for bit.
func ClassifyBlocks(c Classifier, draws [][]float64, blocks iter.Seq2[*mat.Dense, []float64], opt ClassifyOptions, bins int,
	each func(*Classification, []float64) error) (*BlockScore, error) {
	ev, err := NewEvaluator(c.NumClasses(), bins)
	if err != nil {
		return nil, err
	}
	var h, e, mi float64
	for X, y := range blocks {
		res, err := Classify(c, draws, X, opt)
		if err != nil {
			return nil, err
		}
		if err := ev.Add(res.Probs, y); err != nil {
			return nil, err
		}
		for i := 0; i < len(y) && !opt.ProbsOnly; i++ {
			h += res.Entropy[i]
			e += res.Expected[i]
			mi += res.MutualInfo[i]
		}
		if each != nil {
			if err := each(res, y); err != nil {
				return nil, err
			}
		}
	}
	m := ev.Metrics()
	n := float64(m.N)
	if opt.ProbsOnly {
		h, e, mi = math.NaN(), math.NaN(), math.NaN()
	}
	return &BlockScore{Metrics: m, Entropy: h / n, Expected: e / n, MutualInfo: mi / n}, nil
}
