package cost

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReadFile reads the cost of a 16 MiB stream-json log: assistant
// messages with usage, large tool results (skipped unread) and the result.
func BenchmarkReadFile(b *testing.B) {
	var sb strings.Builder
	tool := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"` + strings.Repeat("line of test output ", 400) + `"}]}}` + "\n"
	for i := 0; sb.Len() < 16<<20; i++ {
		fmt.Fprintf(&sb, `{"type":"assistant","message":{"id":"msg_%d","content":[{"type":"text","text":"running the tests again"}],"usage":{"input_tokens":5,"cache_creation_input_tokens":300,"cache_read_input_tokens":40000,"output_tokens":120}}}`+"\n", i)
		sb.WriteString(tool)
	}
	sb.WriteString(`{"type":"result","total_cost_usd":3.5,"usage":{"input_tokens":5000,"output_tokens":90000}}` + "\n")
	path := filepath.Join(b.TempDir(), "stream.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sb.Len()))
	b.ResetTimer()
	for range b.N {
		if c, err := ReadFile(path); err != nil || c.USD == nil {
			b.Fatalf("%+v %v", c, err)
		}
	}
}
