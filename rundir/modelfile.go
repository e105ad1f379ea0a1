package rundir

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
)

// ModelFile is DIR/model.json: the model's spec (model.Spec, whose fields
// it inlines) and what langevin predict needs to read new data as the
// training data were read. The standardisation is DIR/scaler.json.
type ModelFile struct {
	model.Spec
	Data     string   `json:"data"`
	Target   string   `json:"target"`
	Features []string `json:"features"`
	// Split is the seeded train/test split the run made of Data (nil when
	// the test set came from --test or a generated set): predict --split
	// test scores only the held-out rows.
	Split *Split `json:"split,omitempty"`
	// Columns is how the data's columns became the features and the target
	// (text columns' levels and reference, text labels, the ID column,
	// dropped columns and rows; data.Coding): predict reads new rows by it.
	Columns *data.Coding `json:"columns,omitempty"`
	// Labels, when not nil, are the two values of a numeric response that
	// the run recoded as the classes 0 and 1 (data.TwoLabels: the larger
	// is the event): predict reads new rows' labels by them, and its p.1
	// is the probability of Labels[1].
	Labels []float64 `json:"labels,omitempty"`
	// Formula, for a run of langevin run --formula, is the formula model's
	// record (formula.Record: formula, family, priors, the training data
	// and its SHA-256, the group levels, the new-levels rule); the model
	// spec is then empty.
	Formula json.RawMessage `json:"formula,omitempty"`
	// ChainWeights, for a network's run of several chains, are the chains'
	// weights in its posterior predictive, in chain order (summing to 1),
	// and ChainWeighting how they were chosen ("stacking" or "equal"):
	// predict mixes the chain files, cut to the shortest, with them.
	// Absent: every draw alike.
	ChainWeights   []float64 `json:"chain_weights,omitempty"`
	ChainWeighting string    `json:"chain_weighting,omitempty"`
	// Read is how the run read its data file (--na, --sep, --decimal as
	// given; absent when none was): predict reads new rows in the same
	// format by it, unless its own flags say otherwise.
	Read *data.ReadSettings `json:"read,omitempty"`
	// Files written before scaler.json and model.Spec (read only).
	Mean      []float64 `json:"standardize_mean,omitempty"`
	Scale     []float64 `json:"standardize_scale,omitempty"`
	Intercept *bool     `json:"intercept,omitempty"`
}

// Split is data.TrainTest(data, TestFrac, Seed) of a data set of Rows rows:
// the split a run made, which predict --split repeats.
type Split struct {
	Rows     int     `json:"rows"`
	TestFrac float64 `json:"test_frac"`
	Seed     uint64  `json:"seed"`
}

// DecodeModelFile decodes model.json's contents: an older file's
// "intercept": false is NoIntercept, and the spec must be valid
// (model.Spec.Validate).
func DecodeModelFile(b []byte) (*ModelFile, error) {
	var mf ModelFile
	if err := json.Unmarshal(b, &mf); err != nil {
		return nil, err
	}
	if mf.Intercept != nil && !*mf.Intercept {
		mf.NoIntercept = true
	}
	if mf.Formula != nil {
		return &mf, nil // a formula model: formula.Record checks itself
	}
	if err := mf.Spec.Validate(); err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(mf.Features))
	for i, name := range mf.Features {
		if seen[name] {
			return nil, fmt.Errorf("features[%d] %q named twice: expected the training data's column names, each once", i, name)
		}
		seen[name] = true
	}
	if mf.ChainWeights != nil {
		var sum float64
		for k, w := range mf.ChainWeights {
			if !(w >= 0 && w <= 1) {
				return nil, fmt.Errorf("chain_weights[%d] = %g: expected a weight between 0 and 1", k, w)
			}
			sum += w
		}
		if math.Abs(sum-1) > 1e-6 {
			return nil, fmt.Errorf("chain_weights sum to %g: expected weights summing to 1", sum)
		}
	}
	return &mf, nil
}
