package cost

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRead feeds arbitrary logs to the cost reader: it never panics, and
// whatever it reports is a plausible figure with bounded notes.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil && len(data) < 1<<16 {
			f.Add(string(data))
		}
	}
	f.Add(`{"type":"result","total_cost_usd":1e308,"usage":{"input_tokens":9e18}}`)
	f.Add("[\n{\"type\":\"assistant\",\"message\":\"text\"},5,[],{\"type\":7}]")
	f.Add("{\n\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":-1}}\n{")
	f.Fuzz(func(t *testing.T, log string) {
		c := Read(strings.NewReader(log))
		if c.USD != nil && (math.IsNaN(*c.USD) || *c.USD < 0 || *c.USD > MaxUSD) {
			t.Fatalf("got USD %v", *c.USD)
		}
		if c.Tokens != nil && (*c.Tokens < 0 || *c.Tokens > MaxTokens) {
			t.Fatalf("got tokens %d", *c.Tokens)
		}
		if len(c.Notes) > maxNotes {
			t.Fatalf("got %d notes", len(c.Notes))
		}
	})
}
