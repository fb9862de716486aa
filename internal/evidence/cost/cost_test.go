package cost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func usd(v float64) *float64 { return &v }
func tok(v int64) *int64     { return &v }

// TestSamples: each source format's sample gives the dollars and tokens
// its documentation defines, and a log without a cost gives none.
func TestSamples(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file   string
		usd    *float64
		tokens *int64
		notes  []string // substrings, in order
	}{
		// The json output: total_cost_usd, and every token of usage.
		{file: "claude_json.json", usd: usd(1.2345), tokens: tok(1200 + 8000 + 90000 + 3400)},
		// stream-json: the result's totals, not the messages' again.
		{file: "claude_stream.jsonl", usd: usd(0.0875), tokens: tok(14 + 2300 + 2000 + 65)},
		// Cut before the result: the messages' usage, a repeated id once
		// (its fullest line), and no dollars.
		{file: "claude_stream_cut.jsonl", tokens: tok((10 + 2000 + 40) + (4 + 300 + 2000 + 25))},
		{file: "transcript.jsonl", tokens: tok((3 + 5000 + 10000 + 90) + (6 + 200 + 15000 + 30))},
		{file: "transcript_costusd.jsonl", usd: usd(0.0421 + 0.0108), tokens: tok(1500 + 200 + 400 + 50)},
		// Codex: input (cached included) and output; no dollars.
		{file: "codex.jsonl", tokens: tok(24000 + 1300)},
		{file: "execution.json", usd: usd(0.5), tokens: tok(20 + 12000 + 300)},
		{file: "malformed.jsonl", usd: usd(0.25), tokens: tok(110), notes: []string{
			"line 1 has a total_cost_usd that is not a non-negative number",
			"line 2 has a total_cost_usd that is not a non-negative number",
			"line 2 has a usage that is not a set of token counts",
			"line 3 has no total_cost_usd",
			"line 3 has a usage that is not a set of token counts",
		}},
		{file: "text.log"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			c, err := ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			checkCost(t, c, tc.usd, tc.tokens, tc.notes)
		})
	}
}

func checkCost(t *testing.T, c *Cost, wantUSD *float64, wantTokens *int64, notes []string) {
	t.Helper()
	switch {
	case (c.USD == nil) != (wantUSD == nil):
		t.Errorf("got USD %v, want %v", fmtF(c.USD), fmtF(wantUSD))
	case c.USD != nil && !near(*c.USD, *wantUSD):
		t.Errorf("got USD %v, want %v", *c.USD, *wantUSD)
	}
	if (c.Tokens == nil) != (wantTokens == nil) || (c.Tokens != nil && *c.Tokens != *wantTokens) {
		t.Errorf("got tokens %v, want %v", fmtI(c.Tokens), fmtI(wantTokens))
	}
	if len(c.Notes) != len(notes) {
		t.Fatalf("got notes %q, want %d", c.Notes, len(notes))
	}
	for i, n := range notes {
		if !strings.Contains(c.Notes[i], n) {
			t.Errorf("note %d: got %q, want it to say %q", i, c.Notes[i], n)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func fmtF(p *float64) any {
	if p == nil {
		return "none"
	}
	return *p
}

func fmtI(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}

// TestCodexThreads: each thread's last turn.completed is its total; two
// threads add up, and a turn.completed without usage is a note.
func TestCodexThreads(t *testing.T) {
	t.Parallel()
	log := `{"type":"thread.started","thread_id":"a"}
{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":50,"output_tokens":10}}
{"type":"turn.completed","usage":{"input_tokens":300,"cached_input_tokens":200,"output_tokens":30}}
{"type":"thread.started","thread_id":"b"}
{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":100}}
{"type":"turn.completed"}
{"type":"turn.failed","error":{"message":"stream disconnected"}}
`
	checkCost(t, Read(strings.NewReader(log)), nil, tok(330+1100), []string{"line 6 has no usage"})
}

// TestImplausibleFigures: a figure no agent run produces is dropped with a
// note, as is a token count that is not a whole number.
func TestImplausibleFigures(t *testing.T) {
	t.Parallel()
	log := `{"type":"result","total_cost_usd":2000000,"usage":{"input_tokens":1e400,"output_tokens":1}}` + "\n"
	checkCost(t, Read(strings.NewReader(log)), nil, nil, []string{"line 1 has a usage that is not", "more than $1000000"})
}

// TestDocumentBreaksOff: an execution file cut in the middle gives what
// was read before the cut, and says so.
func TestDocumentBreaksOff(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "execution.json"))
	if err != nil {
		t.Fatal(err)
	}
	cut := string(data[:strings.Index(string(data), `"type": "result"`)])
	checkCost(t, Read(strings.NewReader(cut)), nil, tok(12320), []string{"breaks off at value 3"})
}

// TestTextStartingWithABracket: a text log whose first line starts with
// "[" (a time stamp) is not taken for a JSON array.
func TestTextStartingWithABracket(t *testing.T) {
	t.Parallel()
	log := "[12:00:01] starting\n" + `{"type":"result","total_cost_usd":0.5}` + "\n"
	checkCost(t, Read(strings.NewReader(log)), usd(0.5), nil, nil)
}

// TestLongLogIsReadInItsTail: a log over the limit is read in its tail,
// where the result is; messages counted from a cut log say so.
func TestLongLogIsReadInItsTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pad := strings.Repeat(`{"type":"user","message":{"role":"user","content":"`+strings.Repeat("x", 200)+`"}}`+"\n", 100)
	msg := `{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":5,"output_tokens":5}}}` + "\n"
	res := `{"type":"result","total_cost_usd":0.75,"usage":{"input_tokens":20,"output_tokens":20}}` + "\n"
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c, err := readFile(write("result.jsonl", msg+pad+res), 4096)
	if err != nil {
		t.Fatal(err)
	}
	checkCost(t, c, usd(0.75), tok(40), nil)
	c, err = readFile(write("messages.jsonl", msg+pad+strings.ReplaceAll(msg, "m1", "m2")), 4096)
	if err != nil {
		t.Fatal(err)
	}
	checkCost(t, c, nil, tok(10), []string{"only the messages in its last 4096 were counted"})
}

// TestOverlongLine: a line over the line bound is skipped, with a note
// when it mentions a cost; the lines after it are read.
func TestOverlongLine(t *testing.T) {
	t.Parallel()
	long := `{"type":"result","total_cost_usd":9,"result":"` + strings.Repeat("y", maxLine+10) + `"}` + "\n"
	log := long + `{"type":"result","total_cost_usd":0.5}` + "\n"
	checkCost(t, Read(strings.NewReader(log)), usd(0.5), nil, []string{"line 1 is longer than 16 MiB"})
}

// TestNotALogFile: a directory or a missing file is an error naming it.
func TestNotALogFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range []string{dir, filepath.Join(dir, "missing.jsonl")} {
		if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: got %v, want an error naming it", p, err)
		}
	}
}
