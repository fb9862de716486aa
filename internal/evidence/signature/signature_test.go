package signature

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		// Go compiler, vet, test and runtime.
		{"go build", "./main.go:12:5: undefined: foo", "./main.go:N:N: undefined: foo"},
		{"go build import", `./a.go:3:2: "fmt" imported and not used`, `./a.go:N:N: "fmt" imported and not used`},
		{"go vet", "internal/x/x.go:41:14: fmt.Sprintf format %d has arg s of wrong type string", "internal/x/x.go:N:N: fmt.Sprintf format %d has arg s of wrong type string"},
		{"go build in tmp", "/tmp/go-build3319/b001/main.go:7:2: syntax error: unexpected }", "$TMP/main.go:N:N: syntax error: unexpected }"},
		{"go test fail", "--- FAIL: TestParse (0.00s)", "--- FAIL: TestParse (DURATION)"},
		{"go test subtest", "    --- FAIL: TestParse/empty_input (0.12s)", "--- FAIL: TestParse/empty_input (DURATION)"},
		{"go test package", "FAIL\tgithub.com/acme/app/internal/parse\t1.234s", "FAIL github.com/acme/app/internal/parse DURATION"},
		{"go test log", "    parse_test.go:42: got 3, want 4", "parse_test.go:N: got 3, want 4"},
		{"go panic", "panic: runtime error: index out of range [5] with length 3", "panic: runtime error: index out of range [5] with length 3"},
		{"go panic nil", "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a3b2c]", "[signal SIGSEGV: segmentation violation code=0x1 addr=0xADDR pc=0xADDR]"},
		{"go goroutine", "goroutine 17 [running]:", "goroutine N [running]:"},
		{"go goroutine 1.21", "goroutine 1 gp=0xc000002380 m=0 mp=0x5b9e20 [running]:", "goroutine N gp=0xADDR m=N mp=0xADDR [running]:"},
		{"go frame", "\t/usr/local/go/src/runtime/panic.go:115 +0x1d", "/usr/local/go/src/runtime/panic.go:N +0xADDR"},
		{"go method value", "main.(*Server).handle(0xc000123abc, {0x5a2b40, 0xc00001e0c0})", "main.(*Server).handle(0xADDR, {0xADDR, 0xADDR})"},
		{"go deadlock", "fatal error: all goroutines are asleep - deadlock!", "fatal error: all goroutines are asleep - deadlock!"},
		{"go timeout", "panic: test timed out after 10m0s", "panic: test timed out after DURATION"},
		{"go tempdir", "open /tmp/TestLoad4021870263/001/config.toml: no such file or directory", "open $TMP/config.toml: no such file or directory"},
		{"macos tempdir", "open /var/folders/2x/k3j_7/T/TestLoad99/001/config.toml: permission denied", "open $TMP/config.toml: permission denied"},
		{"macos private tempdir", "stat /private/var/folders/2x/k3j_7/T/go-build12/b001: no such file", "stat $TMP/: no such file"},

		// Python.
		{"python exception", "ValueError: invalid literal for int() with base 10: 'abc'", "ValueError: invalid literal for int() with base 10: 'abc'"},
		{"python dotted exception", "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded", "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded"},
		{"python frame", `  File "/home/dev/app/parse.py", line 12, in parse`, `File "/home/dev/app/parse.py", line N, in parse`},
		{"pytest tmp frame", `  File "/tmp/pytest-of-runner/pytest-3/test_load0/app.py", line 12, in load`, `File "$TMP/app.py", line N, in load`},
		{"pytest summary", "FAILED tests/test_parse.py::test_empty - AssertionError: assert 3 == 4", "FAILED tests/test_parse.py::test_empty - AssertionError: assert 3 == 4"},
		{"pytest timing", "========= 1 failed, 12 passed in 0.53s =========", "========= 1 failed, 12 passed in DURATION ========="},
		{"python repr", "TypeError: unhashable: <app.Node object at 0x7f3a2b1c9d40>", "TypeError: unhashable: <app.Node object at 0xADDR>"},
		{"python syntax", `  File "app.py", line 3`, `File "app.py", line N`},

		// Node, TypeScript, jest.
		{"tsc", "src/a.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.", "src/a.ts(N,N): error TS2322: Type 'string' is not assignable to type 'number'."},
		{"tsc pretty", "src/a.ts:12:5 - error TS2322: Type 'string' is not assignable to type 'number'.", "src/a.ts:N:N - error TS2322: Type 'string' is not assignable to type 'number'."},
		{"node stack", "    at Object.<anonymous> (/home/dev/app/src/a.test.js:10:3)", "at Object.<anonymous> (/home/dev/app/src/a.test.js:N:N)"},
		{"node error", "TypeError: Cannot read properties of undefined (reading 'map')", "TypeError: Cannot read properties of undefined (reading 'map')"},
		{"node module", "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/home/dev/app/dist/x.js' imported from /home/dev/app/dist/index.js", "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/home/dev/app/dist/x.js' imported from /home/dev/app/dist/index.js"},
		{"jest fail", "FAIL src/parse.test.ts (5.123 s)", "FAIL src/parse.test.ts (DURATION)"},
		{"jest timeout", "thrown: \"Exceeded timeout of 5000 ms for a test.", "thrown: \"Exceeded timeout of DURATION for a test."},
		{"npm", "npm ERR! code ELIFECYCLE", "npm ERR! code ELIFECYCLE"},
		{"coloured", "\x1b[1m\x1b[31mError:\x1b[39m\x1b[22m   cannot find module 'x'", "Error: cannot find module 'x'"},
		{"osc hyperlink", "\x1b]8;;file:///a.ts\x07a.ts\x1b]8;;\x07:3:1 - error TS1005: ';' expected.", "a.ts:N:N - error TS1005: ';' expected."},

		// Java.
		{"java main", `Exception in thread "main" java.lang.IllegalStateException: not started`, `Exception in thread "main" java.lang.IllegalStateException: not started`},
		{"java frame", "\tat com.acme.app.Server.run(Server.java:42)", "at com.acme.app.Server.run(Server.java:N)"},
		{"java hash", "java.lang.ClassCastException: com.acme.A@1b6d3586 cannot be cast to com.acme.B", "java.lang.ClassCastException: com.acme.A@HASH cannot be cast to com.acme.B"},
		{"maven javac", "[ERROR] /home/dev/app/src/main/java/X.java:[12,5] cannot find symbol", "[ERROR] /home/dev/app/src/main/java/X.java:[N,N] cannot find symbol"},
		{"surefire", "[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.051 s <<< FAILURE!", "[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: DURATION <<< FAILURE!"},

		// Rust, C, C#.
		{"rust", "error[E0308]: mismatched types --> src/main.rs:4:5", "error[E0308]: mismatched types --> src/main.rs:N:N"},
		{"rust arrow", "  --> src/lib.rs:120:17", "--> src/lib.rs:N:N"},
		{"rust panic", "thread 'main' panicked at src/main.rs:4:5:", "thread 'main' panicked at src/main.rs:N:N:"},
		{"gcc", "parse.c:3:10: fatal error: stdio.h: No such file or directory", "parse.c:N:N: fatal error: stdio.h: No such file or directory"},
		{"csharp", "Program.cs(12,5): error CS1002: ; expected", "Program.cs(N,N): error CS1002: ; expected"},
		{"windows temp", `C:\Users\runneradmin\AppData\Local\Temp\go-build1\b001\x.go:3:1: syntax error`, "$TMP/x.go:N:N: syntax error"},

		// Logs, timestamps, ids, sizes.
		{"rfc3339", "2024-01-02T15:04:05.123456Z ERROR connection reset", "TIMESTAMP ERROR connection reset"},
		{"rfc3339 offset", "2024-01-02T15:04:05+02:00 ERROR connection reset", "TIMESTAMP ERROR connection reset"},
		{"datetime", "2024-01-02 15:04:05 ERROR wrote 1234 bytes of 12.5 MB", "TIMESTAMP ERROR wrote SIZE of SIZE"},
		{"go log", "2024/01/02 15:04:05 listen tcp :8080: bind: address already in use", "TIMESTAMP listen tcp :8080: bind: address already in use"},
		{"bracket time", "[10:24:45] ERROR: request a1b2c3d4-e5f6-7890-abcd-ef0123456789 failed after 3m2s", "[TIME] ERROR: request UUID failed after DURATION"},
		{"syslog", "Jan  2 15:04:05 host app[123]: Fatal error", "DATE TIME host app[123]: Fatal error"},
		{"ctime", "Mon Jan  2 15:04:05 MST 2006 boom", "DATE TIME MST 2006 boom"},
		{"size binary", "fatal error: runtime: out of memory allocating 1.5GiB", "fatal error: runtime: out of memory allocating SIZE"},
		{"whitespace", "  Error:\t\tfoo   bar \r\n", "Error: foo bar"},
		{"tab before unit", "wrote 1.5\tMB in 3\tms", "wrote SIZE in DURATION"},
		{"empty", "", ""},
		{"controls", "Error:\x00\x07 boom\x7f", "Error: boom"},
		{"invalid utf8", "Error: \xff\xfe bad", "Error: \uFFFD bad"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		if seen[tt.name] {
			t.Fatalf("duplicate test name %q", tt.name)
		}
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestCollide lists pairs that are the same error seen twice: they must get
// the same signature.
func TestCollide(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, a, b string }{
		{"go line moved", "./main.go:12:5: undefined: foo", "./main.go:40:9: undefined: foo"},
		{"go tmp build dir", "/tmp/go-build3319/b001/main.go:7:2: syntax error", "/tmp/go-build98812/b017/main.go:9:2: syntax error"},
		{"go test duration", "--- FAIL: TestParse (0.00s)", "--- FAIL: TestParse (1.52s)"},
		{"go package duration", "FAIL\tgithub.com/acme/app\t0.010s", "FAIL\tgithub.com/acme/app\t12.5s"},
		{"go goroutine", "goroutine 17 [running]:", "goroutine 4 [running]:"},
		{"go address", "main.(*T).Run(0xc000123abc)", "main.(*T).Run(0xc0000a8000)"},
		{"go timeout", "panic: test timed out after 10m0s", "panic: test timed out after 2m30s"},
		{"go t.TempDir", "open /tmp/TestLoad4021870263/001/config.toml: no such file", "open /tmp/TestLoad11/002/config.toml: no such file"},
		{"go tempdir across os", "open /tmp/TestLoad40/001/config.toml: no such file", "open /var/folders/2x/k3/T/TestLoad9/001/config.toml: no such file"},
		{"python line", `  File "app.py", line 12, in parse`, `  File "app.py", line 31, in parse`},
		{"pytest tmp", "FileNotFoundError: /tmp/pytest-of-a/pytest-3/test_x0/in.csv", "FileNotFoundError: /tmp/pytest-of-b/pytest-17/test_x1/in.csv"},
		{"actions step script, two self-hosted runners",
			"/home/builder/actions-runner/_work/_temp/5a7b3c1e-2222-4d4d-8e8e-123456789abc.sh: line 4: make: command not found",
			"/home/ci/actions-runner/_work/_temp/0f9e8d7c-1111-4a4a-9b9b-abcdefabcdef.sh: line 7: make: command not found"},
		{"python repr address", "<app.Node object at 0x7f3a2b1c9d40>", "<app.Node object at 0x7f11aa00bb10>"},
		{"tsc position", "src/a.ts(12,5): error TS2322: Type 'string' is not assignable", "src/a.ts(80,13): error TS2322: Type 'string' is not assignable"},
		{"node stack", "at parse (/home/dev/app/src/a.js:10:3)", "at parse (/home/dev/app/src/a.js:11:7)"},
		{"jest duration", "FAIL src/parse.test.ts (5.123 s)", "FAIL src/parse.test.ts (12 s)"},
		{"java line", "\tat com.acme.Server.run(Server.java:42)", "\tat com.acme.Server.run(Server.java:57)"},
		{"java hash", "com.acme.A@1b6d3586 cannot be cast", "com.acme.A@4554617c cannot be cast"},
		{"rust position", "error[E0308]: mismatched types --> src/main.rs:4:5", "error[E0308]: mismatched types --> src/main.rs:14:21"},
		{"timestamp", "2024-01-02T15:04:05Z ERROR db down", "2025-11-30T01:00:00.5Z ERROR db down"},
		{"bracket time", "[10:24:45] ERROR: db down", "[23:01:02] ERROR: db down"},
		{"uuid", "request a1b2c3d4-e5f6-7890-abcd-ef0123456789 failed", "request 00000000-0000-4000-8000-000000000000 failed"},
		{"size", "Error: wrote 1234 bytes", "Error: wrote 99 bytes"},
		{"ansi", "\x1b[31mError: boom\x1b[0m", "Error: boom"},
		{"whitespace", "Error:  boom  ", "Error: boom"},
		{"windows temp", `C:\Users\a\AppData\Local\Temp\go-build1\b001\x.go:3:1: syntax error`, `C:\Users\b\AppData\Local\Temp\go-build77\b004\x.go:5:1: syntax error`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := Of(tt.a), Of(tt.b)
			if a.Hash != b.Hash {
				t.Errorf("signatures differ, want equal:\n %q -> %q\n %q -> %q", tt.a, a.Sample, tt.b, b.Sample)
			}
		})
	}
}

// TestDistinct lists pairs that are different errors: they must not collide.
func TestDistinct(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, a, b string }{
		{"go identifier", "./main.go:12:5: undefined: foo", "./main.go:12:5: undefined: bar"},
		{"go file", "./main.go:12:5: undefined: foo", "./server.go:12:5: undefined: foo"},
		{"go test name", "--- FAIL: TestParse (0.00s)", "--- FAIL: TestLex (0.00s)"},
		{"go package", "FAIL\tgithub.com/acme/app/a\t0.01s", "FAIL\tgithub.com/acme/app/b\t0.01s"},
		{"go panic kind", "panic: runtime error: index out of range [5] with length 3", "panic: runtime error: invalid memory address or nil pointer dereference"},
		{"go tmp file name", "open /tmp/TestA1/001/a.toml: no such file", "open /tmp/TestA1/001/b.toml: no such file"},
		{"python exception type", "ValueError: bad input", "TypeError: bad input"},
		{"python message", "KeyError: 'user'", "KeyError: 'name'"},
		{"python file", `  File "app.py", line 12, in parse`, `  File "cli.py", line 12, in parse`},
		{"tsc code", "src/a.ts(12,5): error TS2322: Type mismatch", "src/a.ts(12,5): error TS2345: Type mismatch"},
		{"tsc file", "src/a.ts(12,5): error TS2322: Type mismatch", "src/b.ts(12,5): error TS2322: Type mismatch"},
		{"jest file", "FAIL src/parse.test.ts", "FAIL src/lex.test.ts"},
		{"java exception", `Exception in thread "main" java.lang.IllegalStateException: x`, `Exception in thread "main" java.lang.IllegalArgumentException: x`},
		{"java frame class", "\tat com.acme.Server.run(Server.java:42)", "\tat com.acme.Client.run(Client.java:42)"},
		{"rust code", "error[E0308]: mismatched types", "error[E0382]: mismatched types"},
		{"rust file", "error[E0308]: mismatched types --> src/main.rs:4:5", "error[E0308]: mismatched types --> src/lib.rs:4:5"},
		{"csharp code", "Program.cs(12,5): error CS1002: ; expected", "Program.cs(12,5): error CS1003: ; expected"},
		{"npm code", "npm ERR! code ELIFECYCLE", "npm ERR! code ENOENT"},
		{"signal code", "signal SIGSEGV: segmentation violation code=0x1", "signal SIGSEGV: segmentation violation code=0x2"},
		{"index numbers", "index out of range [5] with length 3", "index out of range [7] with length 3"},
		{"case", "Error: Boom", "error: boom"},
		{"http status", "Error: request failed with status 404", "Error: request failed with status 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := Of(tt.a), Of(tt.b)
			if a.Hash == b.Hash {
				t.Errorf("signatures collide, want different:\n %q\n %q\n both -> %q", tt.a, tt.b, a.Sample)
			}
		})
	}
}

func TestOf(t *testing.T) {
	t.Parallel()
	got := Of("  ./main.go:12:5: undefined: foo ")
	sum := sha256.Sum256([]byte("./main.go:N:N: undefined: foo"))
	want := Signature{Hash: hex.EncodeToString(sum[:]), Sample: "./main.go:N:N: undefined: foo"}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if len(got.Hash) != 64 || strings.ToLower(got.Hash) != got.Hash {
		t.Errorf("got hash %q, want 64 lowercase hex digits", got.Hash)
	}
}

func TestSampleTruncation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		// wantCut says whether the sample must end with the ellipsis.
		wantCut bool
	}{
		{"short", "Error: boom", false},
		{"exactly max", "E" + strings.Repeat("x", MaxSample-1), false},
		{"one over", "E" + strings.Repeat("x", MaxSample), true},
		{"multibyte at cut", "Error: " + strings.Repeat("é", MaxSample), true},
		{"cjk", strings.Repeat("错误", MaxSample), true},
		{"longer than input bound", "Error: " + strings.Repeat("y", MaxInput*3), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := Of(tt.in)
			if len(s.Sample) > MaxSample {
				t.Errorf("got sample of %d bytes, want at most %d", len(s.Sample), MaxSample)
			}
			if !utf8.ValidString(s.Sample) {
				t.Errorf("got invalid UTF-8 sample %q", s.Sample)
			}
			if cut := strings.HasSuffix(s.Sample, "…"); cut != tt.wantCut {
				t.Errorf("got ellipsis %v, want %v (sample %q)", cut, tt.wantCut, s.Sample)
			}
			if !tt.wantCut && s.Sample != Normalize(tt.in) {
				t.Errorf("got sample %q, want the whole normalised text %q", s.Sample, Normalize(tt.in))
			}
		})
	}
}

func TestNormalizeBoundsInput(t *testing.T) {
	t.Parallel()
	head := "Error: " + strings.Repeat("z", MaxInput)
	a := Of(head + " tail one")
	b := Of(head + " tail two")
	if a.Hash != b.Hash {
		t.Errorf("lines that differ only after MaxInput bytes got different hashes, want equal")
	}
	if n := len(Normalize(strings.Repeat("é", MaxInput))); n > MaxInput {
		t.Errorf("got %d bytes, want at most %d", n, MaxInput)
	}
}

func TestNormalizeIdempotent(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"./main.go:12:5: undefined: foo",
		"[10:24:45] ERROR: request a1b2c3d4-e5f6-7890-abcd-ef0123456789 failed after 3m2s",
		"open /tmp/TestLoad4021870263/001/config.toml: no such file or directory",
		"2024-01-02 15:04:05 ERROR wrote 1234 bytes of 12.5 MB",
		"goroutine 1 gp=0xc000002380 m=0 mp=0x5b9e20 [running]:",
		"wrote 1.5\tMB",
	} {
		once := Normalize(in)
		if twice := Normalize(once); twice != once {
			t.Errorf("Normalize(Normalize(%q)) = %q, want %q", in, twice, once)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"./main.go:12:5: undefined: foo",
		"panic: runtime error: index out of range [5] with length 3",
		"goroutine 17 [running]:",
		"\x1b[31mError:\x1b[0m boom",
		"/tmp/go-build1/b001/x.go:3:1: bad",
		`C:\Users\a\AppData\Local\Temp\x\y.go:1:1: bad`,
		"2024-01-02T15:04:05Z 12ms 1.5 MB 0xc000123abc a1b2c3d4-e5f6-7890-abcd-ef0123456789",
		"\xff\xfe\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		n := Normalize(in)
		if !utf8.ValidString(n) {
			t.Fatalf("Normalize(%q) = %q, not valid UTF-8", in, n)
		}
		if n != strings.TrimSpace(n) || strings.Contains(n, "  ") {
			t.Fatalf("Normalize(%q) = %q, whitespace not collapsed", in, n)
		}
		if strings.ContainsRune(n, 0x1b) {
			t.Fatalf("Normalize(%q) = %q, escape left", in, n)
		}
		s := Of(in)
		if len(s.Sample) > MaxSample || !utf8.ValidString(s.Sample) {
			t.Fatalf("Of(%q).Sample = %q: %d bytes or invalid UTF-8", in, s.Sample, len(s.Sample))
		}
		if len(s.Hash) != 64 {
			t.Fatalf("Of(%q).Hash = %q, want 64 hex digits", in, s.Hash)
		}
	})
}

func BenchmarkOf(b *testing.B) {
	lines := map[string]string{
		"go":    "/tmp/go-build3319/b001/main.go:7:2: undefined: tokenKind",
		"prose": "Error: the configuration file could not be parsed because a key is missing",
		"long":  "Error: " + strings.Repeat("value 0x1234 at 12:30:45 took 1.5s ", 200),
	}
	for name, line := range lines {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Of(line)
			}
		})
	}
}
