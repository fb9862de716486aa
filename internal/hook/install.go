package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
)

// ourCommand matches the command of a breaker hook already installed: the
// binary by any path, as the installed command starts.
var ourCommand = regexp.MustCompile(`^(?:'[^']*/)?(?:[^\s']*/)?loopbreaker(?:\.exe)?'? hook (?:claude-code|codex)\b`)

// Install sets command as a command hook of SessionStart and Stop in a
// settings file's content (nil or blank: a new file), keeping every other
// key and hook in its place; a breaker hook already there (by any path,
// with any flags) gets command. It returns the new content and whether it
// changed; content not in the documented shape is an error naming the file.
func Install(data []byte, name, command string) ([]byte, bool, error) {
	fail := func(format string, args ...any) ([]byte, bool, error) {
		return nil, false, fmt.Errorf("%s: %s; it was left as it is", name, fmt.Sprintf(format, args...))
	}
	var top object
	if len(bytes.TrimSpace(data)) > 0 {
		var err error
		if top, err = parseObject(data); err != nil {
			return fail("not a JSON settings object: %v", err)
		}
	}
	var hooks object
	if raw, ok := top.get("hooks"); ok {
		var err error
		if hooks, err = parseObject(raw); err != nil {
			return fail("\"hooks\" is not an object of events")
		}
	}
	changed := false
	for _, event := range []string{EventSessionStart, EventStop} {
		var groups []json.RawMessage
		if raw, ok := hooks.get(event); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return fail("hooks.%s is not a list of hook groups", event)
			}
		}
		found := false
		for i, raw := range groups {
			g, set, err := setCommand(raw, command)
			if err != nil {
				return fail("hooks.%s: entry %d is not a hook group (an object with a list of hooks)", event, i+1)
			}
			if set {
				found = true
				changed = changed || !bytes.Equal(g, compact(raw))
				groups[i] = g
			}
		}
		if !found {
			g, _ := json.Marshal(map[string]any{"hooks": []map[string]string{{"type": "command", "command": command}}}) // strings: cannot fail
			groups, changed = append(groups, g), true
		}
		list, err := json.Marshal(groups)
		if err != nil {
			return nil, false, err
		}
		hooks.set(event, list)
	}
	if !changed {
		return data, false, nil
	}
	top.set("hooks", hooks.marshal())
	var out bytes.Buffer
	if err := json.Indent(&out, top.marshal(), "", "  "); err != nil {
		return nil, false, err
	}
	out.WriteByte('\n')
	return out.Bytes(), true, nil
}

// setCommand gives every breaker hook of a group command; set says the
// group has one.
func setCommand(raw json.RawMessage, command string) (json.RawMessage, bool, error) {
	g, err := parseObject(raw)
	if err != nil {
		return nil, false, err
	}
	list, _ := g.get("hooks")
	var hooks []json.RawMessage
	if err := json.Unmarshal(list, &hooks); err != nil || hooks == nil {
		return nil, false, errors.New("no list of hooks")
	}
	set := false
	for i, h := range hooks {
		entry, err := parseObject(h)
		if err != nil {
			return nil, false, err
		}
		var typ, cmd string
		t, _ := entry.get("type")
		c, _ := entry.get("command")
		_ = json.Unmarshal(t, &typ)
		_ = json.Unmarshal(c, &cmd)
		if typ != "command" || !ourCommand.MatchString(cmd) {
			hooks[i] = compact(h)
			continue
		}
		quoted, _ := json.Marshal(command)
		entry.set("command", quoted)
		hooks[i], set = entry.marshal(), true
	}
	list, err = json.Marshal(hooks)
	if err != nil {
		return nil, false, err
	}
	g.set("hooks", list)
	return g.marshal(), set, nil
}

// object is a JSON object with its keys in their order.
type object []field

type field struct {
	key   string
	value json.RawMessage
}

// parseObject reads one JSON object, nothing after it.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var o object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, field{key: t.(string), value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, f := range o {
		if f.key == key {
			return f.value, true
		}
	}
	return nil, false
}

// set replaces key's value where it is, or adds it at the end.
func (o *object) set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = v
			return
		}
	}
	*o = append(*o, field{key, v})
}

// marshal is the object's compact JSON.
func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(compact(f.value))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// compact is raw JSON without insignificant space.
func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
