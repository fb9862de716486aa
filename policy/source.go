package policy

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// Setting is one value of a key and the layer that gives it.
type Setting struct {
	// From names the layer: a policy file's path, "builtin:NAME", or
	// "phase NAME".
	From  string
	Value any
}

// KeySource is where the value a profile gives one key comes from, and
// what it wins over or gives way to.
type KeySource struct {
	// Key is the dotted key, e.g. rules.no_progress.no_progress_threshold.
	Key string
	// Setting is the profile's value and the policy text that gave it.
	Setting
	// Over are the values earlier policies in the extends chain gave the
	// same profile key, oldest first: the later one won.
	Over []Setting
	// Base is the policy's own value without the profile (nil when it has
	// none): the profile wins over it.
	Base any
	// Phases are the phases that set the key themselves: in its phase, a
	// phase's value wins over the profile's.
	Phases []Setting
}

// ProfileSources says, for every key the named profile sets in the policy
// text data (source names it in errors), where its value comes from: which
// policy of the extends chain gave it and over which values, the policy's
// own value it replaces, and the phases that override it (only phase, when
// given). Keys are sorted.
func ProfileSources(data []byte, source, profile, phase string) ([]KeySource, error) {
	p, err := Parse(data, source)
	if err != nil {
		return nil, err
	}
	if _, err := p.WithProfile(profile); err != nil {
		return nil, err
	}
	if phase != "" && !p.HasPhase(phase) {
		return nil, fmt.Errorf("policy %s has no phase %q (known: %s)", p.Name, phase, orNone(p.PhaseNames()))
	}
	layers, err := chain(data, source)
	if err != nil {
		return nil, err
	}
	base := map[string]any{}
	eachKey(reflect.ValueOf(p).Elem(), "", func(key string, _ reflect.StructField, fv reflect.Value) { base[key] = fv.Interface() })
	var out []KeySource
	eff := flatten("", map[string]any(p.Profiles[profile]))
	for _, key := range sortedKeys(eff) {
		ks := KeySource{Key: key, Setting: Setting{Value: eff[key]}, Base: base[key]}
		for _, l := range layers {
			v, ok := l.profiles[profile][key]
			if !ok {
				continue
			}
			if ks.From != "" {
				ks.Over = append(ks.Over, ks.Setting)
			}
			ks.Setting = Setting{From: l.name, Value: v}
		}
		for _, ph := range p.PhaseNames() {
			if phase != "" && ph != phase {
				continue
			}
			if v, ok := flatten("", map[string]any(p.Phases[ph]))[key]; ok {
				ks.Phases = append(ks.Phases, Setting{From: "phase " + ph, Value: v})
			}
		}
		out = append(out, ks)
	}
	return out, nil
}

// layer is one policy text of an extends chain and its profiles, flat.
type layer struct {
	name     string
	profiles map[string]map[string]any
}

// chain returns the policy texts data extends, oldest first, data last.
// Parse has loaded the chain, so it ends.
func chain(data []byte, source string) ([]layer, error) {
	var out []layer
	for {
		var raw struct {
			Extends  string                    `toml:"extends"`
			Profiles map[string]map[string]any `toml:"profiles"`
		}
		if _, err := toml.Decode(string(data), &raw); err != nil {
			return nil, fmt.Errorf("policy %s: %s", source, tomlError(err, data))
		}
		l := layer{name: source, profiles: map[string]map[string]any{}}
		for name, ov := range raw.Profiles {
			l.profiles[name] = flatten("", ov)
		}
		out = append([]layer{l}, out...)
		if raw.Extends == "" {
			return out, nil
		}
		src, err := Source(raw.Extends)
		if err != nil {
			return nil, err
		}
		data, source = src, "builtin:"+raw.Extends
	}
}

// flatten turns nested tables into dotted keys.
func flatten(prefix string, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if prefix != "" {
			k = prefix + "." + k
		}
		if t, ok := v.(map[string]any); ok {
			maps.Copy(out, flatten(k, t))
		} else {
			out[k] = v
		}
	}
	return out
}

// FormatValue prints a value as TOML writes it.
func FormatValue(v any) string {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{"v": v}); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(buf.String()), "v ="))
}

// WriteProfileSources writes what ProfileSources found as TOML comments:
// one line per key, saying which value won.
func WriteProfileSources(w io.Writer, profile string, keys []KeySource) {
	fmt.Fprintf(w, "\n# Profile %s: where each of its values comes from. The profile wins over the policy's own\n", profile)
	fmt.Fprintf(w, "# value; a phase that sets the key itself wins over the profile in that phase.\n")
	width := 0
	for _, k := range keys {
		width = max(width, len(k.Key)+3+len(FormatValue(k.Value)))
	}
	for _, k := range keys {
		var why []string
		why = append(why, "profiles."+profile+" of "+k.From)
		v := FormatValue(k.Value)
		for _, o := range k.Over {
			if ov := FormatValue(o.Value); ov == v {
				why = append(why, fmt.Sprintf("the same as %s's", o.From))
			} else {
				why = append(why, fmt.Sprintf("won over %s's %s", o.From, ov))
			}
		}
		switch b := FormatValue(k.Base); {
		case k.Base == nil:
		case b == v:
			why = append(why, "the policy's own value is the same")
		default:
			why = append(why, fmt.Sprintf("the policy's own %s gives way", b))
		}
		if len(k.Phases) > 0 {
			ps := make([]string, len(k.Phases))
			for i, s := range k.Phases {
				ps[i] = fmt.Sprintf("%s sets %s", s.From, FormatValue(s.Value))
			}
			why = append(why, strings.Join(ps, ", ")+", which wins in that phase")
		}
		kv := k.Key + " = " + v
		fmt.Fprintf(w, "#   %-*s  %s\n", width, kv, strings.Join(why, "; "))
	}
}
