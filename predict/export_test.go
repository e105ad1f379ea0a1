package predict

// SetBlockBudget lowers the block budget for a test and returns the undo.
func SetBlockBudget(n int) func() {
	old := blockBudget
	blockBudget = n
	return func() { blockBudget = old }
}
