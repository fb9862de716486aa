package cost

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// claude-code-action's execution file (its execution_file output) is one
// JSON array of the run's messages, pretty-printed: the system message,
// the assistant and user messages and the result, as stream-json writes
// them one a line. A log that is one pretty-printed object (`--output-format
// json` through a formatter) is read the same way.

// documentKind is '[' when br starts with a JSON array of objects, '{' when it starts
// with an object whose opening brace is alone on its line (a document
// spread over lines, not JSON lines), else 0.
func documentKind(br *bufio.Reader) byte {
	head, _ := br.Peek(4096)
	for i, c := range head {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '[':
			// An array of objects: a text log may start with "[12:00] …".
			for _, c := range head[i+1:] {
				switch c {
				case ' ', '\t', '\r', '\n':
					continue
				case '{', ']':
					return '['
				}
				return 0
			}
			return 0
		case '{':
			for _, c := range head[i+1:] {
				switch c {
				case ' ', '\t', '\r':
					continue
				case '\n':
					return '{'
				}
				return 0
			}
		}
		return 0
	}
	return 0
}

// document reads the JSON values of r: the elements of an array (kind
// '['), or objects one after another.
func (m *meter) document(r io.Reader, kind byte) {
	dec := json.NewDecoder(r)
	if kind == '[' {
		if _, err := dec.Token(); err != nil {
			m.note("the log starts like a JSON array but is not one: its cost is unknown")
			return
		}
	}
	for n := 1; dec.More(); n++ {
		var ev event
		err := dec.Decode(&ev)
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typeErr):
			continue // a value that is not an event object
		case err != nil:
			m.note("the JSON document breaks off at value %d: the rest was not read for a cost", n)
			return
		}
		m.event(&ev, fmt.Sprintf("value %d", n))
	}
}
