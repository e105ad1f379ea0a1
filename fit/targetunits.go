package fit

import (
	"fmt"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/rundir"
)

// sigma2Name is the derived column of a network's learned noise variance,
// exp(log_sigma2) (model.MLP's DerivedNames).
const sigma2Name = "sigma2"

// Sigma2InTargetUnits returns the draws of a summary table (params[j]
// the chains of names[j], CommonLength's) with a regression network's
// sigma2 in the response's units: when the run standardised the response
// (spec.YStandardized, sc.TargetScale = s_y > 0), the model's draws of
// sigma2 = exp(log_sigma2) are of z = (y − ȳ)/s_y and y's noise variance
// is s_y²·sigma2. The other rows (log_sigma2 among them, a parameter of the
// standardised model) are the draws as sampled; params itself is not
// changed (the sigma2 row is a copy). note is the line that says so under
// the table, "" when nothing was converted.
func Sigma2InTargetUnits(names []string, params [][][]float64, spec model.Spec, sc *data.Scaler) (out [][][]float64, note string) {
	if spec.Kind != "mlp" || !spec.YStandardized || sc == nil || !(sc.TargetScale > 0) {
		return params, ""
	}
	k := -1
	for j, n := range names {
		if n == sigma2Name {
			k = j
		}
	}
	if k < 0 {
		return params, ""
	}
	s2 := sc.TargetScale * sc.TargetScale
	out = append([][][]float64(nil), params...)
	out[k] = make([][]float64, len(params[k]))
	for c, ch := range params[k] {
		out[k][c] = make([]float64, len(ch))
		for i, v := range ch {
			out[k][c][i] = s2 * v
		}
	}
	return out, fmt.Sprintf("sigma2:   the noise variance in y's units: s_y²·exp(log_sigma2), s_y = %.6g the training responses' sd (log_sigma2 and the chain files' sigma2 column are of the standardised response z = (y − ȳ)/s_y)", sc.TargetScale)
}

// RunSigma2InTargetUnits is Sigma2InTargetUnits for a run directory, from
// its model.json and scaler.json (the draws as they are when the
// directory has neither).
func RunSigma2InTargetUnits(r *rundir.Run, names []string, params [][][]float64) ([][][]float64, string) {
	if r.Spec == nil {
		return params, ""
	}
	mf, sc, err := ReadModelFile(r)
	if err != nil {
		return params, ""
	}
	return Sigma2InTargetUnits(names, params, mf.Spec, sc)
}
