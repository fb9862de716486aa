// Package calc is a tiny package whose tests pass, fail, skip and panic.
package calc

// Add returns a+b.
func Add(a, b int) int { return a + b }
