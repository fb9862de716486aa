// Package lazyre compiles a regular expression on its first use, so that a
// command that never needs it (loopbreaker --version, record, status) does
// not pay for compiling it at start-up.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function giving the compiled expr, compiled once, on the
// first call (safe for concurrent use). expr must compile: like
// regexp.MustCompile, a bad expression panics, on first use.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
