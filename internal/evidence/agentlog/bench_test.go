package agentlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// benchSize is the size of the generated logs: 50 MB.
const benchSize = 50 << 20

// textLog generates a plain text agent log of at least size bytes: prose,
// shell commands, build and test output, tracebacks and status blocks.
func textLog(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 4096)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "Loop %d: reading fix_plan.md and picking the next unchecked task.\n", i)
		b.WriteString("I'll run the build first to see where things stand. No errors were expected here.\n")
		b.WriteString("$ go build ./...\n# github.com/acme/app/internal/store\n")
		fmt.Fprintf(&b, "internal/store/store.go:%d:15: undefined: sql.NullTime\n", i%400)
		b.WriteString("\x1b[32mok\x1b[0m  \tgithub.com/acme/app/internal/config\t0.004s\n")
		fmt.Fprintf(&b, "--- FAIL: TestOpen (0.%02ds)\n    store_test.go:19: got <nil>, want error\n", i%100)
		b.WriteString("Traceback (most recent call last):\n  File \"app/importer.py\", line 40, in parse_row\n    qty = int(row[\"qty\"])\n")
		b.WriteString("ValueError: invalid literal for int() with base 10: 'abc'\n")
		b.WriteString(`  "is_error": false, "error_count": 0` + "\n")
		b.WriteString("I fixed the error handling in parse_row and the tests should pass now. The task is not complete yet.\n")
		b.WriteString("---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 1\nFILES_MODIFIED: 3\n")
		b.WriteString("TESTS_STATUS: FAILING\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: false\nRECOMMENDATION: fix TestOpen\n---END_RALPH_STATUS---\n\n")
	}
	return b.Bytes()
}

// streamLog generates a stream-json agent log of at least size bytes.
func streamLog(size int) []byte {
	line := func(v any) []byte {
		out, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return append(out, '\n')
	}
	assistant := line(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{
		map[string]any{"type": "text", "text": "The build fails because tokenKind was renamed. I fixed the error handling and will rerun."},
		map[string]any{"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": map[string]any{"command": "go test ./..."}},
	}}})
	tool := line(map[string]any{"type": "user", "message": map[string]any{"content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_01", "is_error": true,
			"content": "# github.com/acme/app/internal/parse\ninternal/parse/parse.go:42:9: undefined: tokenKind\n--- FAIL: TestParseEmpty (0.00s)\nFAIL\tgithub.com/acme/app/internal/parse\t0.012s\n" +
				string(bytes.Repeat([]byte("=== RUN   TestSomething\n--- PASS: TestSomething (0.00s)\n"), 40))},
	}}})
	var b bytes.Buffer
	b.Grow(size + 4096)
	for b.Len() < size {
		b.Write(assistant)
		b.Write(tool)
	}
	b.Write(line(map[string]any{"type": "result", "result": "Not done yet.", "permission_denials": []any{map[string]any{"tool_name": "Bash"}}}))
	return b.Bytes()
}

func benchRead(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		l, err := Read(bytes.NewReader(data), "bench.log")
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Errors) != MaxErrors {
			b.Fatalf("got %d errors, want %d", len(l.Errors), MaxErrors)
		}
	}
}

func BenchmarkReadText50MB(b *testing.B)   { benchRead(b, textLog(benchSize)) }
func BenchmarkReadStream50MB(b *testing.B) { benchRead(b, streamLog(benchSize)) }
