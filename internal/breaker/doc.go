// Package breaker is loopbreaker's pure state machine: it folds ordered
// iteration evidence under a policy into one decision per iteration.
//
// It does no I/O and never reads a clock: time comes from the iterations
// (and from the explicit time given to Status and Reset). Its state is a
// bounded Snapshot, so the same history always gives the same decisions.
package breaker
