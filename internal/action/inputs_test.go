package action

// ReadInputs reads and validates the inputs through get (INPUT_* lookup),
// with no environment standing in for them.
func ReadInputs(get func(string) string) (*Inputs, error) {
	return readInputs(get, func(string) string { return "" })
}
