package fit

import (
	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/predict"
)

// Regress returns the posterior predictive summary of the regressor r over
// the draws at the rows of X (features transformed as the run's were), in
// the response's units. A run that standardised its response (an MLP with
// a Gaussian likelihood: sc's target, Spec.YStandardized) has a model that
// predicts z = (y − ȳ)/s_y; every number is mapped back by y = ȳ + s_y·z, an
// increasing affine map, so the intervals' quantiles map to the quantiles.
// sc nil or with TargetScale 0: the model predicts y itself.
//
// It is the one way a regression's predictions reach the user: the run's
// test table, langevin predict with or without the target column, the
// gap1d bands.
func Regress(r predict.Regressor, draws [][]float64, X *mat.Dense, level float64, sc *data.Scaler) (*predict.Regression, error) {
	reg, err := predict.Regress(r, draws, X, level)
	if err != nil {
		return nil, err
	}
	if sc != nil && sc.TargetScale != 0 {
		for _, v := range [][]float64{reg.Mean, reg.Lower, reg.Upper, reg.ObsLower, reg.ObsUpper} {
			for i := range v {
				v[i] = sc.TargetValue(v[i])
			}
		}
	}
	return reg, nil
}

// targetValues returns the responses y in their own units for the
// standardised z (a copy; z itself when sc does not standardise the
// response).
func targetValues(sc *data.Scaler, z []float64) []float64 {
	if sc == nil || sc.TargetScale == 0 {
		return z
	}
	y := make([]float64, len(z))
	for i, v := range z {
		y[i] = sc.TargetValue(v)
	}
	return y
}
