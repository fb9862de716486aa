package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"unicode"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence/agentlog"
	"github.com/loopbreaker/loopbreaker/internal/evidence/cost"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Hook events the breaker answers.
const (
	// EventStop is sent when the agent is about to stop: one iteration.
	EventStop = "Stop"
	// EventSessionStart is sent when a session starts: the baseline.
	EventSessionStart = "SessionStart"
)

// MaxInputBytes bounds the hook input read from stdin.
const MaxInputBytes = 1 << 20

// Input is the JSON a hook gets on stdin (the fields the breaker uses).
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	// StopHookActive is true when the agent already goes on because a
	// Stop hook blocked its previous stop (a loop such as ralph-wiggum).
	StopHookActive bool `json:"stop_hook_active"`
}

// ReadInput reads and checks the hook input.
func ReadInput(r io.Reader) (*Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("hook input: %w", err)
	}
	if len(data) > MaxInputBytes {
		return nil, fmt.Errorf("hook input: larger than %d bytes", MaxInputBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("hook input: empty: the hook reads the JSON its agent sends on stdin")
	}
	var in Input
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("hook input: not the hook's JSON object: %v", err)
	}
	if in.HookEventName == "" {
		return nil, errors.New("hook input: no hook_event_name")
	}
	return &in, nil
}

// Answers reports whether the breaker answers the event (Stop and
// SessionStart); any other is answered with nothing.
func (in *Input) Answers() bool {
	return in.HookEventName == EventStop || in.HookEventName == EventSessionStart
}

// MaxTranscriptBytes bounds the (newest) part of a transcript one stop
// reads.
const MaxTranscriptBytes = 64 << 20

// Transcript is what the agent said and its tools answered since the
// previous stop.
type Transcript struct {
	Log *agentlog.Log
	// Cost is the usage of the assistant messages written since then
	// (tokens; dollars only where a line carries its own costUSD).
	Cost *cost.Cost
	// End is the transcript's size when read: the next stop starts there.
	End int64
	// Promise is the last <promise>...</promise> the agent wrote (a
	// completion claim), "" when none.
	Promise string
}

// ReadTranscript reads the transcript at path from offset (from its start
// when it is shorter: a new file). A missing one has nothing new; what is
// not a regular file is refused at once, never waited on.
func ReadTranscript(path string, offset int64) (*Transcript, error) {
	if path == "" {
		return &Transcript{Log: &agentlog.Log{}}, nil
	}
	f, fi, err := regularfile.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Transcript{Log: &agentlog.Log{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	size := fi.Size()
	if offset > size || offset < 0 {
		offset = 0
	}
	if size-offset > MaxTranscriptBytes {
		offset = size - MaxTranscriptBytes
	}
	part := make([]byte, size-offset)
	if _, err := f.ReadAt(part, offset); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("transcript %s: %w", path, err)
	}
	// A line still being written is left for the next stop.
	if i := bytes.LastIndexByte(part, '\n'); i >= 0 {
		part = part[:i+1]
	} else {
		part = part[:0]
	}
	log, err := agentlog.Read(bytes.NewReader(part), path)
	if err != nil {
		return nil, err
	}
	return &Transcript{Log: log, Cost: cost.Read(bytes.NewReader(part)), End: offset + int64(len(part)), Promise: lastPromise(part)}, nil
}

var promiseRE = regexp.MustCompile(`(?s)<promise>(.{1,400}?)</promise>`)

// lastPromise finds the last completion promise in the raw JSON lines,
// unescaped as far as a promise needs.
func lastPromise(part []byte) string {
	all := promiseRE.FindAllSubmatch(part, -1)
	if len(all) == 0 {
		return ""
	}
	text := string(all[len(all)-1][1])
	text = strings.NewReplacer(`\n`, " ", `\"`, `"`, `\t`, " ").Replace(text)
	return strings.Join(strings.Fields(text), " ")
}

// Output is the hook's JSON answer (the fields the Claude Code and Codex
// Stop hook schemas share).
type Output struct {
	// Continue false ends the session whatever other hooks answered.
	Continue *bool `json:"continue,omitempty"`
	// StopReason is shown to the person when Continue is false.
	StopReason string `json:"stopReason,omitempty"`
	// Decision "block" keeps the agent going with Reason as its next
	// instruction.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// SystemMessage is shown to the person.
	SystemMessage string `json:"systemMessage,omitempty"`
}

// Empty reports whether the answer says nothing (the agent may stop).
func (o *Output) Empty() bool { return *o == Output{} }

// Answer is the hook's answer to a decision: stop the session when OPEN
// or done; when HALF_OPEN the failure context (to the agent when a Stop
// hook already keeps it going, else to the person); when CLOSED the
// warnings prev (nil: none) did not have.
func Answer(d, prev *breaker.Decision, in *Input, resetHint string) Output {
	stop := false
	switch {
	case d.Complete:
		return Output{Continue: &stop, StopReason: render.Clean("loopbreaker: " + render.Verdict(d) + ": " + render.Evidence(d))}
	case d.State == breaker.Open && !d.DryRun && d.AllowContinue:
		// An OPEN breaker that alerts or escalates lets the loop go on.
		return Output{SystemMessage: render.Clean(reasonLine(d))}
	case d.State == breaker.Open && !d.DryRun:
		return Output{Continue: &stop, StopReason: render.Clean(reasonLine(d) + " Reset when the cause is fixed: " + resetHint)}
	case d.State == breaker.Closed && !d.DryRun && !newWarnings(d, prev):
		return Output{}
	}
	ctx := render.FailureContext(d)
	if ctx == "" {
		return Output{}
	}
	if in.StopHookActive && d.State == breaker.HalfOpen {
		return Output{Decision: "block", Reason: ctx}
	}
	return Output{SystemMessage: ctx}
}

// newWarnings reports whether d warns of something prev did not, numbers
// aside, so that a person hears of a warning once.
func newWarnings(d, prev *breaker.Decision) bool {
	key := func(w string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return -1
			}
			return r
		}, w)
	}
	old := map[string]bool{}
	if prev != nil {
		for _, w := range prev.Warnings {
			old[key(w)] = true
		}
	}
	for _, w := range d.Warnings {
		if !old[key(w)] {
			return true
		}
	}
	return false
}

// reasonLine is the verdict and its reason, with the money spent unless
// the reason says it.
func reasonLine(d *breaker.Decision) string {
	s := "loopbreaker: " + render.Verdict(d)
	if d.Reason != nil {
		s += " (" + *d.Trigger + "): " + *d.Reason
	}
	s += "."
	if spent := render.Spent(d); spent != "" && (d.Trigger == nil || *d.Trigger != policy.RuleSpend) {
		s += " Spent: " + spent + "."
	}
	return s
}

// Failed is the answer when the breaker could not decide: the session
// stops, naming the fault.
func Failed(err error) Output {
	stop := false
	return Output{Continue: &stop, StopReason: render.Clean("loopbreaker: the breaker could not decide, so the session stops: " + err.Error())}
}

// Write prints the answer; an empty answer prints nothing.
func (o *Output) Write(w io.Writer) error {
	if o.Empty() {
		return nil
	}
	return json.NewEncoder(w).Encode(o)
}
