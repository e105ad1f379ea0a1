package model

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// Spec describes a model without its data: the kind and the settings that,
// with a data set, build it. It is JSON-serialisable, so a run can record the
// model it sampled (the run directory's model.json) and a later prediction can
// rebuild the same model over new rows.
//
// Kinds and the fields they read:
//
//	linear     NoIntercept, PriorScale (√v of β | σ² ~ N(0, σ²vI); 0: v = 100)
//	logistic   NoIntercept, PriorScale (σ₀ of β ~ N(0, σ₀²I); 0: 1)
//	softmax    NoIntercept, PriorScale (σ₀; precision λ = 1/σ₀²; 0: λ = 1), Classes (0: from the labels)
//	mlp        Hidden, Activation, Likelihood ("" : from the labels), Classes, NoiseVar, LearnNoise,
//	           PriorScale (s of every layer; 0: 1)
//	poisson    NoIntercept, PriorScale (s₀ of the slopes; 0: 2.5), Offset, Exposure (see GLM)
//	negbin     as poisson
//	probit     NoIntercept, PriorScale
//	robust     NoIntercept, PriorScale, Nu (0: ν estimated)
//	gauss2     Rho (a toy target that needs no data)
//	mixture25  (a toy target that needs no data)
//
// GradNoise > 0 wraps the model in [NoisyGradient] with Seed. Call
// [Spec.Resolve] on the training labels before recording a Spec, so that the
// settings inferred from them (the MLP's likelihood, the number of classes)
// are written down and the model rebuilds the same on other rows.
type Spec struct {
	Kind        string  `json:"model"`
	NoIntercept bool    `json:"no_intercept,omitempty"`
	PriorScale  float64 `json:"prior_scale,omitempty"`
	Classes     int     `json:"classes,omitempty"`

	Hidden     []int  `json:"hidden,omitempty"`
	Activation string `json:"activation,omitempty"`
	Likelihood string `json:"likelihood,omitempty"`
	// NoiseVar is MLPOptions.NoiseVar: y's σ², except with YStandardized,
	// where it is of the standardised response z = (y − ȳ)/s_y (the caller,
	// who standardised y, divides y's σ² by s_y²: langevin run does).
	NoiseVar   float64 `json:"noise_var,omitempty"`
	LearnNoise bool    `json:"learn_noise,omitempty"`
	// Hetero makes a Gaussian network's noise heteroscedastic
	// (MLPOptions.Hetero: log σ²(x) is its second output).
	Hetero bool `json:"hetero,omitempty"`
	// NetDefaults builds the MLP with [MLPDefaults] (fan-in prior;
	// Gaussian: standardised response), LearnNoise then applying to the
	// Gaussian likelihood only.
	NetDefaults bool `json:"net_defaults,omitempty"`
	// YStandardized: the caller standardised the Gaussian response
	// (data.Scaler.FitTarget) before Build: MLPOptions.YStandardized.
	YStandardized bool `json:"y_standardized,omitempty"`

	// Offset names the data column holding the count models' offsets oᵢ,
	// taken out of the features; with Exposure the column holds exposures
	// uᵢ > 0 and oᵢ = log uᵢ. BuildOffset takes the column's values.
	Offset   string  `json:"offset,omitempty"`
	Exposure bool    `json:"exposure,omitempty"`
	Nu       float64 `json:"nu,omitempty"`

	Rho       float64 `json:"rho,omitempty"`
	GradNoise float64 `json:"grad_noise,omitempty"`
	Seed      uint64  `json:"seed,omitempty"`
}

// A kind is one row of the table of model kinds (kinds): what Spec's
// methods do for it. A new model kind is its model file, its test and one
// row of kinds.
type kind struct {
	name string
	toy  bool // a target that needs no data
	// classifies reports whether the response is a class label (nil: no).
	classifies func(s Spec) bool
	// resolve fills in the settings inferred from the training labels (nil: none).
	resolve func(s *Spec, y []float64)
	// validate checks the kind's own settings (nil: none).
	validate func(s Spec) error
	// build builds the model on X, y and the offsets (nil without Offset).
	build func(s Spec, X *mat.Dense, y, offset []float64) (langevin.Model, error)
	// buildRows, when not nil, builds the model on rows read as needed.
	buildRows func(s Spec, src Rows) (langevin.Model, error)
	// responses returns a *ResponseError for the first response the kind
	// cannot model (nil: any number).
	responses func(s Spec, y []float64) error
	// binary reports whether the response is a binary label 0/1 (nil: no).
	binary func(s Spec) bool
}

// kinds is the table of model kinds, in the order of Kinds.
var kinds = []kind{
	{name: "linear", build: buildLinear},
	{name: "logistic", classifies: always, build: buildLogistic, buildRows: buildLogisticRows, responses: binaryResponses, binary: always},
	{name: "softmax", classifies: always, resolve: resolveClasses, build: buildSoftmax, responses: classResponses},
	{name: "mlp", classifies: mlpClassifies, resolve: resolveMLP, validate: validateMLP, build: buildMLP, binary: mlpBinary},
	{name: "poisson", validate: validateGLM, build: buildGLM, responses: countResponses},
	{name: "negbin", validate: validateGLM, build: buildGLM, responses: countResponses},
	{name: "probit", classifies: always, validate: validateGLM, build: buildGLM, responses: binaryResponses, binary: always},
	{name: "robust", validate: validateGLM, build: buildGLM},
	{name: "gauss2", toy: true, build: func(s Spec, _ *mat.Dense, _, _ []float64) (langevin.Model, error) { return NewGauss2(s.Rho) }},
	{name: "mixture25", toy: true, build: func(Spec, *mat.Dense, []float64, []float64) (langevin.Model, error) { return NewMixture25(), nil }},
}

// Kinds lists the model kinds a Spec builds.
var Kinds = func() []string {
	var names []string
	for _, k := range kinds {
		names = append(names, k.name)
	}
	return names
}()

// RowKinds lists the model kinds that BuildRows builds on rows read as
// needed (data larger than memory).
var RowKinds = func() []string {
	var names []string
	for _, k := range kinds {
		if k.buildRows != nil {
			names = append(names, k.name)
		}
	}
	return names
}()

// kindOf returns the row of s's kind, or nil.
func (s Spec) kindOf() *kind {
	for i := range kinds {
		if kinds[i].name == s.Kind {
			return &kinds[i]
		}
	}
	return nil
}

func always(Spec) bool { return true }

// NeedsData reports whether the kind is fitted to data (false for the toy
// targets).
func (s Spec) NeedsData() bool {
	k := s.kindOf()
	return k == nil || !k.toy
}

// Classifies reports whether the model's response is a class label.
func (s Spec) Classifies() bool {
	k := s.kindOf()
	return k != nil && k.classifies != nil && k.classifies(s)
}

func mlpClassifies(s Spec) bool { return s.Likelihood != LikGaussian.String() }

// mlpBinary: a Bernoulli likelihood, or one still to be guessed from the
// labels (GuessLikelihood reads labels 0/1 as Bernoulli).
func mlpBinary(s Spec) bool { return s.Likelihood == "" || s.Likelihood == LikBernoulli.String() }

// BinaryLabels reports whether the kind, with its likelihood, models a
// binary label 0/1 (logistic, probit; an MLP whose likelihood is Bernoulli or
// is guessed from the labels): a response of two other values is then
// recoded to 0/1 (data.TwoLabels) before the model is built.
func (s Spec) BinaryLabels() bool {
	k := s.kindOf()
	return k != nil && k.binary != nil && k.binary(s)
}

// Resolve fills in the settings that Build would infer from the training
// labels y: the MLP's likelihood ([GuessLikelihood]) and, for categorical
// MLPs and softmax regression, the number of classes (at least one more than
// the largest label). Bad labels are left for Build to report.
func (s *Spec) Resolve(y []float64) {
	if k := s.kindOf(); k != nil && k.resolve != nil {
		k.resolve(s, y)
	}
}

func resolveMLP(s *Spec, y []float64) {
	if s.Likelihood == "" {
		s.Likelihood = GuessLikelihood(y).String()
	}
	if s.Likelihood == LikCategorical.String() {
		s.Classes = max(s.Classes, largestLabel(y)+1)
	}
}

func resolveClasses(s *Spec, y []float64) { s.Classes = max(s.Classes, largestLabel(y)+1) }

func largestLabel(y []float64) int {
	k := 0
	for _, v := range y {
		if v >= 0 && v < 1<<20 {
			k = max(k, int(v))
		}
	}
	return k
}

// Validate checks the settings that do not depend on data.
func (s Spec) Validate() error {
	k := s.kindOf()
	if k == nil {
		return fmt.Errorf("model: unknown kind %q: expected one of %s", s.Kind, strings.Join(Kinds, ", "))
	}
	if k.validate != nil {
		if err := k.validate(s); err != nil {
			return err
		}
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"prior_scale", s.PriorScale}, {"noise_var", s.NoiseVar}, {"grad_noise", s.GradNoise}, {"nu", s.Nu}, {"rho", s.Rho}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			return fmt.Errorf("model: %s: %s %v: expected a finite number", s.Kind, v.name, v.x)
		}
	}
	if s.PriorScale < 0 || s.NoiseVar < 0 || s.GradNoise < 0 {
		return fmt.Errorf("model: %s: negative prior scale, noise variance or gradient noise", s.Kind)
	}
	if s.Classes < 0 {
		return fmt.Errorf("model: %s: classes %d: expected a positive count (0: from the labels)", s.Kind, s.Classes)
	}
	return nil
}

func validateGLM(s Spec) error {
	if s.Offset != "" && s.Kind != "poisson" && s.Kind != "negbin" {
		return fmt.Errorf("model: %s: an offset or exposure column applies to poisson and negbin only", s.Kind)
	}
	if s.Nu < 0 || math.IsNaN(s.Nu) {
		return fmt.Errorf("model: %s: nu %v: expected a positive number (0 to estimate it)", s.Kind, s.Nu)
	}
	return nil
}

func validateMLP(s Spec) error {
	if _, err := ParseActivation(s.Activation); err != nil {
		return err
	}
	if s.Likelihood != "" {
		if _, err := ParseLikelihood(s.Likelihood); err != nil {
			return err
		}
	}
	for _, h := range s.Hidden {
		if h < 1 {
			return fmt.Errorf("model: mlp: hidden width %d: expected positive widths", h)
		}
	}
	if _, err := mlpParams(append(append([]int{1}, s.Hidden...), 1)); err != nil {
		return fmt.Errorf("model: mlp: hidden widths %v: more than 2^30 = %d weights and biases", s.Hidden, MaxMLPParams)
	}
	return nil
}

// Build returns the model of s over the rows of X with responses y (the toy
// targets ignore both). A spec with an Offset column needs BuildOffset.
func (s Spec) Build(X *mat.Dense, y []float64) (langevin.Model, error) {
	return s.BuildOffset(X, y, nil)
}

// BuildOffset is Build with the values of the Offset column (as read: the
// exposures uᵢ with Exposure, taken as log uᵢ); nil without an Offset.
func (s Spec) BuildOffset(X *mat.Dense, y, offset []float64) (langevin.Model, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if (s.Offset != "") != (offset != nil) {
		if offset == nil {
			return nil, fmt.Errorf("model: %s: no values for the offset column %q", s.Kind, s.Offset)
		}
		return nil, fmt.Errorf("model: %s: offsets given without an offset column", s.Kind)
	}
	m, err := s.kindOf().build(s, X, y, offset)
	if err != nil {
		return nil, err
	}
	if s.GradNoise > 0 {
		m = NoisyGradient{Model: m, SD: s.GradNoise, Seed: s.Seed}
	}
	return m, nil
}

// BuildRows returns the model of s on the rows of src, read from src as the
// model needs them instead of held in memory (see [NewLogisticRows]), so
// that data larger than memory can be sampled. Only the kinds in RowKinds
// read rows; another kind, or an offset column, is an error.
func (s Spec) BuildRows(src Rows) (langevin.Model, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	k := s.kindOf()
	if s.Offset != "" {
		return nil, fmt.Errorf("model: %s: an offset column is not read from streamed rows", s.Kind)
	}
	if k.buildRows == nil {
		return nil, fmt.Errorf("model: %s: not built on streamed rows (only %s so far): it reads its data into memory", s.Kind, strings.Join(RowKinds, ", "))
	}
	m, err := k.buildRows(s, src)
	if err != nil {
		return nil, err
	}
	if s.GradNoise > 0 {
		m = NoisyGradient{Model: m, SD: s.GradNoise, Seed: s.Seed}
	}
	return m, nil
}

// ResponseError reports a response (label) that a model kind cannot take.
type ResponseError struct {
	Row   int     // 1-based row
	Value float64 // the response
	Label bool    // a class label (rather than a numeric response)
	What  string  // what was expected, e.g. "logistic regression expects labels 0/1 or −1/+1"
}

func (e *ResponseError) Error() string {
	noun := "response"
	if e.Label {
		noun = "label"
	}
	return fmt.Sprintf("row %d: %s %v: %s", e.Row, noun, e.Value, e.What)
}

// CheckResponses returns a *ResponseError for the first response of y that
// the kind cannot model: binary labels (0/1 or −1/+1, not mixed) for logistic
// and probit regression, class labels 0 … K−1 for softmax regression,
// non-negative integer counts for Poisson and negative binomial regression.
func (s Spec) CheckResponses(y []float64) error {
	if k := s.kindOf(); k != nil && k.responses != nil {
		return k.responses(s, y)
	}
	return nil
}

func binaryResponses(s Spec, y []float64) error {
	var le *LabelError
	if errors.As(CheckLabels(y), &le) {
		what := s.Kind + " regression expects labels 0/1 or −1/+1"
		if le.Other > 0 {
			what = "labels mix 0/1 with −1/+1"
		}
		return &ResponseError{Row: le.Row, Value: le.Value, Label: true, What: what}
	}
	return nil
}

func classResponses(_ Spec, y []float64) error {
	var ce *ClassLabelError
	if _, err := CheckClassLabels(y, 0); errors.As(err, &ce) {
		return &ResponseError{Row: ce.Row, Value: ce.Value, Label: true, What: "softmax regression expects integer class labels 0, 1, …, K−1"}
	}
	return nil
}

func countResponses(s Spec, y []float64) error {
	for i, v := range y {
		if !(v >= 0) || v != math.Trunc(v) || v > 1<<40 {
			return &ResponseError{Row: i + 1, Value: v, What: s.Kind + " regression expects non-negative integer counts"}
		}
	}
	return nil
}

// GuessLikelihood is the MLP likelihood that labels y suggest: Bernoulli for
// labels in {0, 1} (or ±1), categorical for class labels 0, …, K−1 with
// every class present, Gaussian otherwise. An integer response whose
// values skip some of 0…max (a rating from 3 to 8, a count) is a quantity,
// not class labels: classes that never occur would be a softmax's
// unidentified outputs (UCI wine's quality 3…8 was read as 9 classes).
func GuessLikelihood(y []float64) Likelihood {
	if CheckLabels(y) == nil {
		return LikBernoulli
	}
	seen := map[int]bool{}
	top := 0
	for _, v := range y {
		if v < 0 || v != float64(int(v)) || v > 1000 {
			return LikGaussian
		}
		seen[int(v)] = true
		top = max(top, int(v))
	}
	if len(seen) != top+1 {
		return LikGaussian
	}
	return LikCategorical
}

// The build functions of the table of kinds.

func buildLinear(s Spec, X *mat.Dense, y, _ []float64) (langevin.Model, error) {
	return NewLinear(X, y, LinearOptions{NoIntercept: s.NoIntercept, V: s.PriorScale * s.PriorScale})
}

func buildLogistic(s Spec, X *mat.Dense, y, _ []float64) (langevin.Model, error) {
	return NewLogistic(X, y, LogisticOptions{NoIntercept: s.NoIntercept, PriorScale: s.PriorScale})
}

func buildLogisticRows(s Spec, src Rows) (langevin.Model, error) {
	return NewLogisticRows(src, LogisticOptions{NoIntercept: s.NoIntercept, PriorScale: s.PriorScale})
}

func buildSoftmax(s Spec, X *mat.Dense, y, _ []float64) (langevin.Model, error) {
	opt := SoftmaxOptions{NoIntercept: s.NoIntercept, Classes: s.Classes}
	if s.PriorScale > 0 {
		opt.Precision = 1 / (s.PriorScale * s.PriorScale)
	}
	return NewSoftmax(X, y, opt)
}

func buildMLP(s Spec, X *mat.Dense, y, _ []float64) (langevin.Model, error) {
	act, _ := ParseActivation(s.Activation)
	lik := GuessLikelihood(y)
	if s.Likelihood != "" {
		lik, _ = ParseLikelihood(s.Likelihood)
	}
	het := s.Hetero && lik == LikGaussian
	opt := MLPOptions{Hidden: s.Hidden, Activation: act, Likelihood: lik, NoiseVar: s.NoiseVar, LearnNoise: s.LearnNoise && !het, Hetero: het}
	if s.NetDefaults {
		opt = MLPDefaults(opt)
		opt.LearnNoise = s.LearnNoise && lik == LikGaussian && !het
	}
	opt.YStandardized = s.YStandardized && opt.StandardizeY
	if lik == LikCategorical {
		opt.Classes = s.Classes
	}
	if s.PriorScale > 0 {
		opt.PriorScale = []float64{s.PriorScale}
	}
	return NewMLP(X, y, opt)
}

func buildGLM(s Spec, X *mat.Dense, y, offset []float64) (langevin.Model, error) {
	kind, _ := ParseGLMKind(s.Kind)
	opt := GLMOptions{NoIntercept: s.NoIntercept, PriorScale: s.PriorScale, Nu: s.Nu}
	if offset != nil {
		opt.Offset = make([]float64, len(offset))
		for i, v := range offset {
			if s.Exposure {
				if !(v > 0) || math.IsInf(v, 1) {
					return nil, fmt.Errorf("model: %s: row %d: exposure %v in column %q: expected a positive finite number", s.Kind, i+1, v, s.Offset)
				}
				v = math.Log(v)
			}
			opt.Offset[i] = v
		}
	}
	return NewGLM(kind, X, y, opt)
}
