package model

// Gemm exposes the tiled matrix product to the benchmarks.
var Gemm = gemm

// SetSlips sets an OutputConditional's test hooks: its draws' noise times
// cov, ΦᵀΦ times data.
func (c *OutputConditional) SetSlips(cov, data float64) { c.slipCov, c.slipData = cov, data }

// SetMarginalSlip multiplies the log-determinant term of an
// OutputConditional's marginal likelihood (unit and noise moves) by s (1 in
// use): a test hook.
func (c *OutputConditional) SetMarginalSlip(s float64) { c.slipMarg = s }

// SetLocalPriorSlip multiplies the log prior ratio of an OutputConditional's
// random-walk unit moves by s (1 in use): a test hook.
func (c *OutputConditional) SetLocalPriorSlip(s float64) { c.slipPrior = s }
