package model

// OutputLayer returns the indices in θ of the output layer's weights and
// biases (the last layer: W⁽ᴸ⁾ row by row, then b⁽ᴸ⁾). The network is
// linear in them given the hidden layers, so a sampler's preconditioner can
// treat them as one dense block (fit.NewNetPlan).
func (m *MLP) OutputLayer() []int {
	L := len(m.sizes) - 1
	o := m.off[L-1]
	idx := make([]int, m.layerLen(L))
	for i := range idx {
		idx[i] = o + i
	}
	return idx
}
