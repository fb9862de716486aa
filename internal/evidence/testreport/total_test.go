package testreport

// Total returns Passed+Failed+Skipped: the tests counted.
func (r *Report) Total() int { return r.Passed + r.Failed + r.Skipped }
