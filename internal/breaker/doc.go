// Package breaker is loopbreaker's pure state machine: it folds ordered
// iteration evidence under a policy into one decision per iteration.
//
// It does no I/O and never reads a clock: time comes from the iterations
// (and from the explicit time given to Status and Reset). Its whole state is
// a bounded, JSON-serialisable Snapshot, so a state file can carry it
// between runs and the same history always gives the same decisions.
package breaker
