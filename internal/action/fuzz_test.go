package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/present"
)

// FuzzReadEvent feeds arbitrary bytes to the event payload decoder: any
// payload gives an event or an error naming the file, never a panic.
func FuzzReadEvent(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "events", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add("pull_request", b)
	}
	f.Add("issue_comment", []byte(`{"issue":{"number":-1,"pull_request":{}},"comment":{"id":1e30,"body":null,"user":[]}}`))
	f.Add("workflow_run", []byte(`{"workflow_run":{"pull_requests":[{"number":9223372036854775807}]}}`))
	f.Add("push", []byte(`{"after":"x","ref":"refs/heads/"}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		ev, err := decodeEvent(name, data, "fuzz.json")
		if err != nil {
			if ev != nil || !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("got event %v and error %v, want only an error naming the file", ev, err)
			}
			return
		}
		if ev.Name != name {
			t.Fatalf("got event name %q, want %q", ev.Name, name)
		}
		ev.HasLabel(present.LabelOpen)
	})
}
