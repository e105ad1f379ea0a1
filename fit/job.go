package fit

import (
	"context"
	"fmt"
	"io"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// TestSplit is the seeded split data.TrainTest(d, TestFrac, Seed) of a
// data set d of Rows rows: the split a run made, which a prediction on the
// same data repeats.
type TestSplit struct {
	Rows     int
	TestFrac float64
	Seed     uint64
}

// Problem is one langevin run: its configuration and what the run made of it.
type Problem struct {
	C             *Config
	Stderr        io.Writer // warnings about the data
	Train, Test   *data.Dataset
	Scaler        *data.Scaler // the standardisation applied, if any
	Spec          model.Spec   // resolved against the training labels
	FormulaRecord []byte       // {formula}: model.json's record (formula.Record)
	// ModelSettings, when set, are the settings that name the model the run
	// built, in place of {model}'s ("model" first): a {formula} run's
	// model (glmm or glm), formula, family and priors (SettingsOf).
	ModelSettings [][2]string
	M             langevin.Model
	// offTrain and offTest are the {offset}/{exposure} column's values, as
	// read (nil without one).
	offTrain, OffTest []float64
	Env               *BuildEnv  // the sampler's build: its schedule and step
	Rows              *Streamed  // {data} a store, streamed (train and test are stubs)
	TestSplit         *TestSplit // the seeded train/test split of the data, if the run made one
	uci               *data.UCI  // {data} a UCI benchmark folder
	// NoiseNote is the noise rule's auto: line of a regression network
	// ("" when no rule ran).
	NoiseNote string
	// DataNotes are lines about how {data} was read, printed with the
	// model (a {formula} run's rows dropped for missing values).
	DataNotes []string
	// Relabel, when not nil, gives the summary table the names the command
	// prints (a formula's brms names), which the run's warnings name.
	Relabel func(diag.Table) diag.Table
}

// chooseNoise sets s.Hetero for a regression network: {noise-model} hetero
// or homo as asked, and with auto (the default) by [ChooseNoise]'s rule
// unless {noise-var} or {learn-noise} fixes a homoscedastic noise.
func (j *Problem) chooseNoise(s *model.Spec) error {
	c := j.C
	if s.Kind != "mlp" || s.Likelihood != "gaussian" {
		return nil
	}
	switch {
	case c.Mlp.NoiseModel == "hetero":
		s.Hetero = true
		j.NoiseNote = Note{"auto", "noise: heteroscedastic (log σ²(x) the network's second output), as {noise-model} asks"}.String()
		return nil
	case c.Mlp.NoiseModel == "homo":
		return nil
	case c.Set["noise-var"] || c.Set["learn-noise"]:
		j.NoiseNote = Note{"auto", "noise: homoscedastic (one σ²), as {noise-var}/{learn-noise} ask ({noise-model} auto chooses otherwise)" + j.noiseVarText(*s)}.String()
		return nil
	}
	batch := 0
	if c.Set["batch"] {
		batch = c.Batch
	}
	ch, err := ChooseNoise(context.Background(), *s, j.Train.X, j.Train.Y, c.Seed, batch)
	if err != nil {
		j.NoiseNote = Note{"auto", fmt.Sprintf("noise: homoscedastic (one σ²): the rule could not run (%v)", err)}.String()
		return nil
	}
	s.Hetero = ch.Hetero
	j.NoiseNote = Note{"auto", ch.String()}.String()
	return nil
}

// noiseVarText says, for the auto: noise line of a homoscedastic network
// on a standardised response, what the fixed σ² (or, learned, a Glorot
// start's σ²) is in y's units and in the standardised ones: "" when the
// response is not standardised here (the model converts {noise-var}
// itself then).
func (j *Problem) noiseVarText(s model.Spec) string {
	if !s.YStandardized || j.Scaler == nil {
		return ""
	}
	sy := j.Scaler.TargetScale
	role := "fixed"
	if s.LearnNoise {
		role = "the start of the learned σ² outside {sampler} auto (whose plan starts at the response's variance)"
	}
	if j.C.Set["noise-var"] {
		return fmt.Sprintf("; σ² = %g in y's units ({noise-var}), %.4g on the standardised response (÷ s_y² = %.4g²), %s", j.C.Mlp.NoiseVar, s.NoiseVar, sy, role)
	}
	if s.LearnNoise {
		return ""
	}
	return fmt.Sprintf("; σ² = the response's variance s_y² = %.4g in y's units (1 on the standardised response; {noise-var} V fixes y's σ² at V), %s", sy*sy, role)
}

func testLen(d *data.Dataset) int {
	if d == nil {
		return 0
	}
	return d.Len()
}

// BuildModel builds the model of the configuration on the training data,
// with its spec resolved against the training labels. A {formula} model is
// built by the command (package formula's tests import fit).
func (j *Problem) BuildModel() error {
	c := j.C
	s := c.Spec()
	s.Classes = max(s.Classes, j.classes())
	if j.Rows != nil {
		return j.buildRowsModel()
	}
	if !s.NeedsData() {
		m, err := s.Build(nil, nil)
		if err != nil {
			return InputErrorf("{rho}: %v", err)
		}
		j.M, j.Spec = m, s
		return nil
	}
	if j.uci != nil && s.Kind == "mlp" && s.Likelihood == "" {
		// A regression benchmark: integer targets (wine's quality 3…8) are
		// responses, not class labels.
		s.Likelihood = "gaussian"
	}
	s.Resolve(j.Train.Y)
	if j.uci != nil && s.Kind == "mlp" && !c.Set["hidden"] {
		s.Hidden = []int{j.uci.Hidden} // the benchmark's protocol (n_hidden.txt)
	}
	j.standardizeTarget(&s)
	if err := j.chooseNoise(&s); err != nil {
		return err
	}
	m, err := s.BuildOffset(j.Train.X, j.Train.Y, j.offTrain)
	if err != nil {
		if c.Model == "mlp" {
			return InputErrorf("{data} %s: %v", c.Data, err)
		}
		return InputError{Err: err}
	}
	j.M, j.Spec = m, s
	return nil
}

// LaplaceHook, when set (by tests), sees the run's Laplace approximation
// after the run, to count its MAPs and Hessians.
var LaplaceHook func(*approx.RunLaplace)

// NewRunLaplace returns the run's one MAP and Laplace approximation
// (NewLaplace); an MLP's MAP is Adam's from a
// Glorot start, and only with {init} map: by the network plan's rule
// (NetMAP: 300 epochs, learning rate 10⁻² decaying to 10⁻³) unless
// {map-lr} asks for a constant learning rate ({map-iters}, {map-batch}).
func NewRunLaplace(c *Config, m langevin.Model) *approx.RunLaplace {
	lap := NewLaplace(m)
	if mlp, ok := m.(*model.MLP); ok {
		lap.FindMAP = func(ctx context.Context, _ langevin.Model) ([]float64, error) {
			if c.Init != "map" {
				return nil, nil
			}
			theta := make([]float64, mlp.Dim())
			rng := langevin.ChainRNG(c.Seed, 1000)
			mlp.GlorotInit(theta, rng)
			if !c.Set["map-lr"] {
				return NetMAP(ctx, mlp, theta, netMAPIters(c, mlp.Len()), c.Mlp.MapBatch, rng)
			}
			return sampler.FitAdam(ctx, mlp, theta, sampler.AdamFit{Iters: c.Mlp.MapIters, Batch: c.Mlp.MapBatch, LR: c.Mlp.MapLR}, rng)
		}
	}
	return lap
}

// DerivedNames are the names of the model's derived quantities (σ² of the
// linear model), which follow the parameters in the draws.
func DerivedNames(m langevin.Model) []string {
	if d, ok := m.(langevin.Deriver); ok {
		return d.DerivedNames()
	}
	return nil
}

// ModelTitle names the model of a run in its first line: "logistic
// regression", and for a network its likelihood ("mlp, bernoulli
// likelihood"), since a classifier is no regression.
func ModelTitle(name string, m langevin.Model) string {
	if n, ok := m.(*model.MLP); ok {
		if n.Hetero() {
			return fmt.Sprintf("%s, %s likelihood with heteroscedastic noise (log σ²(x) its second output)", name, n.Likelihood())
		}
		return fmt.Sprintf("%s, %s likelihood", name, n.Likelihood())
	}
	return name + " regression"
}
