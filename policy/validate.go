package policy

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
)

// Validate checks every value against what its field's tags allow, then
// the keys that depend on each other, and names the first bad key, its
// value and what is allowed.
func (p *Policy) Validate() error {
	v := &validator{}
	if strings.TrimSpace(p.Name) == "" {
		v.fail("name", "name is empty: give the policy a name")
	}
	if len(p.Progress.Signals) == 0 {
		v.fail("progress.signals", "progress.signals is empty: name at least one of "+choices[signal]())
	}
	eachKey(reflect.ValueOf(p).Elem(), "", func(key string, f reflect.StructField, fv reflect.Value) {
		tag := f.Tag.Get("valid")
		switch x := fv.Interface().(type) {
		case interface{ check(*validator) }:
			x.check(v)
		case []Signal:
			for _, s := range x {
				s.check(v)
			}
		case []string:
			if tag == "paths" {
				if _, err := pathmatch.Compile(x); err != nil {
					v.fail(key, fmt.Sprintf("%s: %v", key, err))
				}
			}
		default:
			if lo, hi, ok := strings.Cut(tag, ","); ok {
				v.inRange(key, fv, lo, hi)
			}
		}
	})
	if b := p.Breaker; b.CooldownMax.Set && b.Cooldown.Set && b.CooldownMax.D < b.Cooldown.D {
		v.fail("breaker.cooldown_max", fmt.Sprintf("breaker.cooldown_max = %q is shorter than breaker.cooldown = %q", b.CooldownMax, b.Cooldown))
	}
	if w, c := p.Rules.MaxIterations.WarningIterations, p.Rules.MaxIterations.CriticalIterations; w > 0 && c > 0 && w > c {
		v.fail("rules.max_iterations.warning_iterations", fmt.Sprintf("rules.max_iterations.warning_iterations = %d is above critical_iterations = %d", w, c))
	}
	for _, m := range p.Escalation.ModelProgression {
		if strings.TrimSpace(m) == "" {
			v.fail("escalation.model_progression", "escalation.model_progression has an empty entry")
		}
	}
	p.validateActions(v)
	return v.err
}

// eachKey calls fn for every key of the policy value rv, in field order,
// with its dotted name: tables are walked into, a value that decodes from
// text (a duration) is one key; phases and profiles are left out.
func eachKey(rv reflect.Value, prefix string, fn func(key string, f reflect.StructField, fv reflect.Value)) {
	t := rv.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		switch {
		case name == "phases" || name == "profiles":
		case f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[Duration]():
			eachKey(rv.Field(i), prefix+name+".", fn)
		default:
			fn(prefix+name, f, rv.Field(i))
		}
	}
}

// fieldError is a fault at one key; the loader adds the key's line.
type fieldError struct {
	key string // dotted key, relative to the policy or override
	msg string
}

func (e *fieldError) Error() string { return e.msg }

// validator keeps the first fault.
type validator struct{ err error }

func (v *validator) fail(key, msg string) { v.failWith(&fieldError{key: key, msg: msg}) }

func (v *validator) failWith(err error) {
	if v.err == nil {
		v.err = err
	}
}

// inRange checks a number against its range, lo to hi as the tag gives
// them.
func (v *validator) inRange(key string, fv reflect.Value, lo, hi string) {
	min, _ := strconv.ParseFloat(lo, 64)
	max, _ := strconv.ParseFloat(hi, 64)
	var val float64
	if fv.CanInt() {
		val = float64(fv.Int())
	} else {
		val = fv.Float()
	}
	if math.IsNaN(val) || val < min || val > max {
		v.fail(key, fmt.Sprintf("%s = %v is out of range: want %s to %s", key, fv.Interface(), lo, hi))
	}
}
