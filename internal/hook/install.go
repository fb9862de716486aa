package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Installed hook events: SessionStart takes the baseline of a session,
// Stop decides at each stop.
var installEvents = []string{EventSessionStart, EventStop}

// Install adds command as a command hook of SessionStart and Stop to the
// settings file's content (nil or blank: a new file), keeping every other
// setting and hook. It returns the new content and whether it changed: a
// hook already there with the same command is left as it is. Content that
// is not a settings object, or whose hooks are not in the documented
// shape, is an error naming the file and the fault.
func Install(data []byte, name, command string) ([]byte, bool, error) {
	top := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, false, fmt.Errorf("%s: not a JSON settings object: %v; fix or remove it, it was left as it is", name, err)
		}
		if top == nil {
			return nil, false, fmt.Errorf("%s: holds null, not a settings object; it was left as it is", name)
		}
	}
	hooks := map[string]json.RawMessage{}
	if raw, ok := top["hooks"]; ok {
		if err := json.Unmarshal(raw, &hooks); err != nil || hooks == nil {
			return nil, false, fmt.Errorf("%s: \"hooks\" is not an object of events; it was left as it is", name)
		}
	}
	changed := false
	for _, event := range installEvents {
		var groups []json.RawMessage
		if raw, ok := hooks[event]; ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, false, fmt.Errorf("%s: hooks.%s is not a list of hook groups; it was left as it is", name, event)
			}
		}
		has, err := hasCommand(groups, command)
		if err != nil {
			return nil, false, fmt.Errorf("%s: hooks.%s: %v; it was left as it is", name, event, err)
		}
		if has {
			continue
		}
		group, err := json.Marshal(hookGroup{Hooks: []hookEntry{{Type: "command", Command: command}}})
		if err != nil {
			return nil, false, err
		}
		groups = append(groups, group)
		if hooks[event], err = json.Marshal(groups); err != nil {
			return nil, false, err
		}
		changed = true
	}
	if !changed {
		return data, false, nil
	}
	var err error
	if top["hooks"], err = json.Marshal(hooks); err != nil {
		return nil, false, err
	}
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return nil, false, err
	}
	return append(out, '\n'), true, nil
}

// hookGroup is one entry of an event's list: a matcher and its hooks.
type hookGroup struct {
	Matcher string      `json:"matcher,omitempty"`
	Hooks   []hookEntry `json:"hooks"`
}

// hookEntry is one hook of a group.
type hookEntry struct {
	Type    string `json:"type"`
	Command string `json:"command,omitempty"`
}

// hasCommand reports whether a group already runs command (with flags or
// not).
func hasCommand(groups []json.RawMessage, command string) (bool, error) {
	for i, raw := range groups {
		var g hookGroup
		if err := json.Unmarshal(raw, &g); err != nil {
			return false, fmt.Errorf("entry %d is not a hook group (an object with a list of hooks)", i+1)
		}
		for _, h := range g.Hooks {
			// The same command with flags of its own (a --policy) is the hook too.
			if h.Type == "command" && (h.Command == command || strings.HasPrefix(h.Command, command+" ")) {
				return true, nil
			}
		}
	}
	return false, nil
}
