package fit

import (
	"fmt"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
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
	k := standardisedSigma2(names, spec, sc)
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

// standardisedSigma2 is the index of names' sigma2 column when it is the
// noise variance of a standardised response (spec.YStandardized, sc's
// TargetScale > 0), else −1.
func standardisedSigma2(names []string, spec model.Spec, sc *data.Scaler) int {
	if spec.Kind != "mlp" || !spec.YStandardized || sc == nil || !(sc.TargetScale > 0) {
		return -1
	}
	for j, n := range names {
		if n == sigma2Name {
			return j
		}
	}
	return -1
}

// Sigma2ReportNote is the line of an HTML report (whose table and plots
// show the draws as sampled) that says its sigma2 is the standardised
// response's, "" when it is y's own.
func Sigma2ReportNote(names []string, spec model.Spec, sc *data.Scaler) string {
	if standardisedSigma2(names, spec, sc) < 0 {
		return ""
	}
	return fmt.Sprintf("sigma2 (this page's table and plots): exp(log_sigma2), the noise variance of the standardised response z = (y − ȳ)/s_y; in y's units multiply by s_y² = %.6g² (langevin run's table and langevin summary print it so)\n", sc.TargetScale)
}
