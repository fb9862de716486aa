package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// optional is a flag value that remembers whether it was given.
type optional[T int | float64] struct {
	v   T
	set bool
}

func (o *optional[T]) String() string {
	if !o.set {
		return ""
	}
	return fmt.Sprint(o.v)
}

func (o *optional[T]) ptr() *T {
	if !o.set {
		return nil
	}
	v := o.v
	return &v
}

// optInt is a count flag: a whole number, not negative.
type optInt struct{ optional[int] }

func (o *optInt) Set(s string) error {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not a whole number", s)
	}
	if v < 0 {
		return fmt.Errorf("%d is negative", v)
	}
	o.v, o.set = v, true
	return nil
}

// optFloat is a percentage flag.
type optFloat struct{ optional[float64] }

func (o *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is not a number", s)
	}
	if v < 0 || v > 100 {
		return fmt.Errorf("%v is out of range: want 0 to 100", v)
	}
	o.v, o.set = v, true
	return nil
}

// strList is a repeatable string flag.
type strList []string

func (l *strList) String() string { return strings.Join(*l, ",") }
func (l *strList) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// csvList is a repeatable flag of comma-separated values; blanks are
// dropped.
type csvList []string

func (l *csvList) String() string { return strings.Join(*l, ",") }
func (l *csvList) Set(s string) error {
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			*l = append(*l, f)
		}
	}
	return nil
}

// timeFlag is an RFC 3339 time flag.
type timeFlag struct {
	t   time.Time
	set bool
}

func (f *timeFlag) String() string {
	if !f.set {
		return ""
	}
	return f.t.Format(time.RFC3339)
}

// epoch is the earliest time a flag accepts: Go's zero time (year 1)
// means "no time" to the breaker, and no loop ran before 1970.
var epoch = time.Unix(0, 0).UTC()

// maxSkew is how far ahead of this machine's clock an --at time may be:
// another machine's clock may run a little ahead, but a time in the
// future would make a cooldown look over or lock out later calls.
const maxSkew = 5 * time.Minute

func (f *timeFlag) Set(s string) error {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not an RFC 3339 time (e.g. 2026-01-02T15:04:05Z)", s)
	}
	if t.Before(epoch) {
		return fmt.Errorf("%q is before 1970-01-01T00:00:00Z: not a time a loop ran at", s)
	}
	f.t, f.set = t.UTC(), true
	return nil
}

// notAfter refuses a time later than now plus maxSkew; name is the flag.
func (f *timeFlag) notAfter(name string, now time.Time) error {
	if f.set && f.t.After(now.Add(maxSkew)) {
		return usagef("--%s %s is in the future: later than this machine's clock (%s) by more than %s",
			name, f.t.Format(time.RFC3339), now.UTC().Format(time.RFC3339), maxSkew)
	}
	return nil
}

// usageError marks an error as bad usage of the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// parsePositional parses flags, which may stand before or after
// positional arguments, and returns the positional arguments.
func parsePositional(fs *flag.FlagSet, args []string, maxPositional int) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%s %v%s", fs.Name(), err, suggestFlag(fs, err))
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) > maxPositional {
		return nil, usagef("%s: unexpected argument %q", fs.Name(), positional[maxPositional])
	}
	return positional, nil
}

// suggestFlag names the known flag closest to an unknown one ("" when
// none is close): a typo such as --bse gets "did you mean --base?".
func suggestFlag(fs *flag.FlagSet, err error) string {
	_, name, ok := strings.Cut(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	name = strings.TrimLeft(name, "-")
	best, dist := "", 3 // at most two edits away
	fs.VisitAll(func(f *flag.Flag) {
		if d := editDistance(name, f.Name); d < dist { // VisitAll goes in name order: the first of equals wins
			best, dist = f.Name, d
		}
	})
	if best == "" || dist >= len(name) {
		return ""
	}
	return fmt.Sprintf("; did you mean --%s?", best)
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
