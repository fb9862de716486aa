package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// MaxFileBytes bounds a policy file; larger files are refused.
const MaxFileBytes = 1 << 20

// Load returns the policy named by arg: a built-in name (see Names) or the
// path of a TOML file. The result is validated.
func Load(arg string) (*Policy, error) {
	if arg == "" {
		arg = "default"
	}
	if IsBuiltin(arg) {
		return Builtin(arg)
	}
	data, err := ReadFile(arg)
	if err != nil {
		return nil, err
	}
	return Parse(data, arg)
}

// ReadFile reads a policy file, at most MaxFileBytes, refusing what is
// not a regular file (a named pipe is never waited on).
func ReadFile(path string) ([]byte, error) {
	data, err := regularfile.Read(path, MaxFileBytes, "policy")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("policy %q: not a built-in policy (%s) and no such file", path, strings.Join(Names(), ", "))
	}
	return data, err
}

// Parse decodes and validates a policy from TOML text. source names the
// text in errors (a file path or "builtin:NAME"), with the line of the
// faulty key where the text has one. A file that sets `extends = "NAME"`
// starts from that built-in policy and changes only the keys it gives, also
// inside the base's phases and profiles (a phase or profile of the same
// name merges key by key); without extends every key must be given.
func Parse(data []byte, source string) (*Policy, error) {
	return parse(data, source, Builtin, true)
}

// parse is Parse with the source of the built-ins a text extends. With
// checkOverrides every phase and profile is applied once to check it; the
// built-ins' are checked by their tests instead, so that a run that loads
// one does not apply every override it will not use.
func parse(data []byte, source string, base func(string) (*Policy, error), checkOverrides bool) (*Policy, error) {
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, fmt.Errorf("policy %s: binary file (NUL byte), want TOML text", source)
	}
	// One decode serves a text that extends nothing. A text that extends
	// a built-in is decoded again over it; one that does not decode is
	// read as before, its extends key first, so that its faults are
	// reported in the same order.
	p := withOptionalDefaults(&Policy{})
	md, err := toml.Decode(string(data), p)
	extends := p.Extends
	if err != nil {
		var head struct {
			Extends string `toml:"extends"`
		}
		if _, err := toml.Decode(string(data), &head); err != nil {
			return nil, fmt.Errorf("policy %s: %s", source, tomlError(err, data))
		}
		extends = head.Extends
	}
	var basePhases, baseProfiles map[string]Override
	if err != nil || extends != "" {
		p = withOptionalDefaults(&Policy{})
		if extends != "" {
			if !IsBuiltin(extends) || extends == strings.TrimPrefix(source, "builtin:") {
				return nil, fmt.Errorf("policy %s: extends = %q: not a built-in policy (%s)", at(source, data, toml.Key{"extends"}), extends, strings.Join(Names(), ", "))
			}
			b, err := base(extends)
			if err != nil {
				return nil, err
			}
			p = b
			// Overrides are merged key by key below: decoding would replace a
			// base phase or profile whole when the file names it.
			basePhases, baseProfiles = p.Phases, p.Profiles
			p.Phases, p.Profiles = nil, nil
		}
		if md, err = toml.Decode(string(data), p); err != nil {
			return nil, fmt.Errorf("policy %s: %s", source, tomlError(err, data))
		}
	}
	for _, k := range md.Undecoded() {
		// Keys inside phases and profiles are checked when the override is applied.
		if k[0] != "phases" && k[0] != "profiles" {
			return nil, fmt.Errorf("policy %s: unknown key %q (see `loopbreaker policy default` for every key)", at(source, data, k), k.String())
		}
	}
	if extends == "" {
		if key := missingKey(md); key != "" {
			return nil, fmt.Errorf("policy %s: missing key %q: a policy without extends must give every key (start the file with extends = \"default\" to change only some)", source, key)
		}
	}
	for _, kind := range []string{"phases", "profiles"} {
		for _, name := range sortedKeys(p.overrides(kind)) {
			// A value where a table belongs decodes as no override at all:
			// refuse it rather than keep a phase that prints as nothing.
			if p.overrides(kind)[name] == nil {
				return nil, fmt.Errorf("policy %s: %s.%s is not a table: want a table of overrides", at(source, data, toml.Key{kind, name}), kind, name)
			}
		}
	}
	p.Phases = mergeOverrides(basePhases, p.Phases)
	p.Profiles = mergeOverrides(baseProfiles, p.Profiles)
	p.Extends = ""
	p.normalize()
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("policy %s: %w", atLine(source, data, "", err), err)
	}
	if checkOverrides {
		for _, kind := range []string{"phases", "profiles"} {
			for _, name := range sortedKeys(p.overrides(kind)) {
				if _, err := p.apply(kind, name); err != nil {
					return nil, fmt.Errorf("policy %s: %w", atLine(source, data, kind+"."+name+".", err), err)
				}
			}
		}
	}
	return p, nil
}

// atLine adds the line of the key a validation error names, when the text
// defines that key.
func atLine(source string, data []byte, prefix string, err error) string {
	var fe *fieldError
	if !errors.As(err, &fe) || fe.key == "" {
		return source
	}
	return at(source, data, toml.Key(strings.Split(prefix+fe.key, ".")))
}

// at is source with the line where the text defines key, when it does.
func at(source string, data []byte, key toml.Key) string {
	if line := keyLine(data, key); line > 0 {
		return fmt.Sprintf("%s: line %d", source, line)
	}
	return source
}

// optionalKeys are the keys added after the first policies were written:
// a policy without extends may leave them out and gets their defaults
// (withOptionalDefaults), so that such a file still loads.
var optionalKeys = map[string]bool{"on_open": true, "advice": true, "phase_order": true,
	"alert.mentions": true, "alert.webhook_url": true, "rules.spend.max_usd": true, "rules.spend.max_usd_without_progress": true,
	"rules.spend.max_tokens": true, "rules.spend.max_tokens_without_progress": true, "rules.spend.spend_warning_percent": true}

// withOptionalDefaults gives p the defaults of the optional keys: on_open
// "abort", no advice, no phase order, no alert, no spend limit (warning
// at 80 % of one).
func withOptionalDefaults(p *Policy) *Policy {
	p.OnOpen = OnOpenAbort
	p.Rules.Spend.SpendWarningPercent = 80
	return p
}

// missingKey returns the first policy key the TOML text does not define,
// or "". Phases, profiles, extends and the optional keys may be left out.
func missingKey(md toml.MetaData) string {
	missing := ""
	eachKey(reflect.ValueOf(Policy{}), "", func(key string, _ reflect.StructField, _ reflect.Value) {
		if missing == "" && key != "extends" && !optionalKeys[key] && !md.IsDefined(strings.Split(key, ".")...) {
			missing = key
		}
	})
	return missing
}

// mergeOverrides lays the file's phases or profiles over the base's: a key
// the file gives replaces the base's, tables merge key by key, and every
// base key the file does not give is kept.
func mergeOverrides(base, file map[string]Override) map[string]Override {
	if len(base) == 0 {
		return file
	}
	out := cloneOverrides(base)
	for name, ov := range file {
		if old, ok := out[name]; ok {
			out[name] = Override(mergeTables(map[string]any(old), map[string]any(ov)))
			continue
		}
		out[name] = ov
	}
	return out
}

func mergeTables(base, over map[string]any) map[string]any {
	for k, v := range over {
		sub, isTable := v.(map[string]any)
		old, wasTable := base[k].(map[string]any)
		if isTable && wasTable {
			base[k] = mergeTables(old, sub)
			continue
		}
		base[k] = v
	}
	return base
}

// tomlError shortens BurntSushi's messages to one line. The line is
// counted from the error's byte offset: the decoder's own line number is one
// too far when the fault is a line's end.
func tomlError(err error, data []byte) string {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		line := pe.Position.Line
		if st := pe.Position.Start; st > 0 && st <= len(data) {
			line = 1 + bytes.Count(data[:st], []byte("\n"))
		}
		if pe.LastKey != "" && !namesKey(pe) {
			return fmt.Sprintf("line %d: key %q: %s", line, pe.LastKey, pe.Message)
		}
		return fmt.Sprintf("line %d: %s", line, pe.Message)
	}
	return strings.TrimPrefix(err.Error(), "toml: ")
}

// namesKey reports a decoding fault whose message already starts with its
// key (a named setting's unknown value).
func namesKey(pe toml.ParseError) bool {
	return strings.HasPrefix(pe.Message, pe.LastKey+" = ")
}

var lastKeyRE = lazyre.New(`^toml: line \d+ \(last key "([^"]*)"\): `)

// keyFault turns a decoding error into a fault at its key, without a line.
func keyFault(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) && pe.LastKey != "" {
		if namesKey(pe) {
			return &fieldError{key: pe.LastKey, msg: pe.Message}
		}
		return &fieldError{key: pe.LastKey, msg: fmt.Sprintf("key %q: %s", pe.LastKey, pe.Message)}
	}
	if m := lastKeyRE().FindStringSubmatch(err.Error()); m != nil {
		return &fieldError{key: m[1], msg: fmt.Sprintf("key %q: %s", m[1], strings.TrimPrefix(err.Error(), m[0]))}
	}
	return errors.New(strings.TrimPrefix(err.Error(), "toml: "))
}

// keyLine finds the line where key is defined in TOML text, or 0.
func keyLine(data []byte, key toml.Key) int {
	want := key.String()
	table := ""
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			name := strings.Trim(line, "[] \t")
			if j := strings.Index(name, "#"); j >= 0 {
				name = strings.TrimSpace(strings.Trim(name[:j], "[] \t"))
			}
			table = stripSpaces(name)
			if table == want || strings.HasPrefix(table, want+".") {
				return i + 1
			}
			continue
		}
		eq := strings.Index(line, "=")
		if eq < 0 {
			continue
		}
		k := stripSpaces(line[:eq])
		full := k
		if table != "" {
			full = table + "." + k
		}
		if full == want || strings.HasPrefix(want, full+".") {
			return i + 1
		}
	}
	return 0
}

func stripSpaces(s string) string {
	parts := strings.Split(s, ".")
	for i := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(parts[i]), `"'`)
	}
	return strings.Join(parts, ".")
}

// Clone returns a deep copy.
func (p *Policy) Clone() *Policy {
	c := *p
	c.Progress.Signals = slices.Clone(p.Progress.Signals)
	for _, l := range c.lists() {
		*l = slices.Clone(*l)
	}
	c.Phases = cloneOverrides(p.Phases)
	c.Profiles = cloneOverrides(p.Profiles)
	c.normalize()
	return &c
}

// lists are the policy's lists of strings.
func (p *Policy) lists() []*[]string {
	return []*[]string{&p.Progress.IgnorePaths, &p.Progress.NotesPaths, &p.Progress.TestPaths, &p.Progress.TestDataPaths,
		&p.Progress.DocPaths, &p.Progress.TaskFiles, &p.Progress.IgnoreTests, &p.Rules.ProtectedPath.ProtectedPaths,
		&p.Escalation.ModelProgression, &p.PhaseOrder, &p.Alert.Mentions}
}

func cloneOverrides(m map[string]Override) map[string]Override {
	if m == nil {
		return nil
	}
	out := make(map[string]Override, len(m))
	for k, v := range m {
		out[k] = Override(cloneValue(map[string]any(v)).(map[string]any))
	}
	return out
}

func cloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = cloneValue(x)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, x := range t {
			s[i] = cloneValue(x)
		}
		return s
	default:
		return v
	}
}

// normalize makes nil lists empty so that printing and loading agree.
func (p *Policy) normalize() {
	if p.Progress.Signals == nil {
		p.Progress.Signals = []Signal{}
	}
	for _, l := range p.lists() {
		if *l == nil {
			*l = []string{}
		}
	}
	if len(p.Phases) == 0 {
		p.Phases = nil
	}
	if len(p.Profiles) == 0 {
		p.Profiles = nil
	}
}

func (p *Policy) overrides(kind string) map[string]Override {
	if kind == "phases" {
		return p.Phases
	}
	return p.Profiles
}

// PhaseNames lists the phases the policy defines, sorted.
func (p *Policy) PhaseNames() []string { return sortedKeys(p.Phases) }

// ProfileNames lists the profiles the policy defines, sorted.
func (p *Policy) ProfileNames() []string { return sortedKeys(p.Profiles) }

// HasPhase reports whether the policy defines the phase.
func (p *Policy) HasPhase(name string) bool { _, ok := p.Phases[name]; return ok }

// WithProfile returns the policy with the named profile applied. The empty
// name returns p itself. An unknown profile is an error listing the known.
func (p *Policy) WithProfile(name string) (*Policy, error) {
	if name == "" {
		return p, nil
	}
	return p.apply("profiles", name)
}

// WithPhase returns the policy with the named phase's overrides applied.
// The empty name, or a phase the policy does not define, returns p itself:
// phases come from agent-written trailers too, and an unknown phase name
// must not change the rules. Callers that take a phase from a person check
// HasPhase first.
func (p *Policy) WithPhase(name string) *Policy {
	if name == "" || !p.HasPhase(name) {
		return p
	}
	q, err := p.apply("phases", name)
	if err != nil { // validated at load; cannot fail for a loaded policy
		return p
	}
	return q
}

// apply decodes the named override on top of a copy of p.
func (p *Policy) apply(kind, name string) (*Policy, error) {
	ov, ok := p.overrides(kind)[name]
	if !ok {
		return nil, fmt.Errorf("policy %s has no %s %q (known: %s)", p.Name, strings.TrimSuffix(kind, "s"), name, orNone(sortedKeys(p.overrides(kind))))
	}
	for _, forbidden := range []string{"name", "extends", "phases", "profiles", "description", "phase_order"} {
		if _, bad := ov[forbidden]; bad {
			return nil, fmt.Errorf("%s.%s: key %q cannot be overridden", kind, name, forbidden)
		}
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any(ov)); err != nil {
		return nil, fmt.Errorf("%s.%s: %v", kind, name, err)
	}
	q := p.Clone()
	md, err := toml.Decode(buf.String(), q)
	if err != nil {
		// The line of the re-encoded override means nothing to the user:
		// name the key, and let the loader find its line in the file.
		return nil, fmt.Errorf("%s.%s: %w", kind, name, keyFault(err))
	}
	for _, k := range md.Undecoded() {
		return nil, fmt.Errorf("%s.%s: %w", kind, name, &fieldError{key: k.String(), msg: fmt.Sprintf("unknown key %q", k.String())})
	}
	q.normalize()
	if err := q.Validate(); err != nil {
		return nil, fmt.Errorf("%s.%s: %w", kind, name, err)
	}
	return q, nil
}

// Encode prints the effective policy as TOML that loads back unchanged.
func (p *Policy) Encode(w io.Writer) error {
	fmt.Fprintf(w, "# loopbreaker policy %q (effective: every key, built-ins and overrides resolved)\n", p.Name)
	return toml.NewEncoder(w).Encode(p)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
