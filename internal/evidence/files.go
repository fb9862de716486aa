package evidence

import (
	"cmp"
	"errors"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence/agentlog"
	"github.com/loopbreaker/loopbreaker/internal/evidence/cost"
	"github.com/loopbreaker/loopbreaker/internal/evidence/signature"
	"github.com/loopbreaker/loopbreaker/internal/evidence/testreport"
	"github.com/loopbreaker/loopbreaker/internal/note"
)

// MaxErrors bounds the error signatures kept for one iteration.
const MaxErrors = 64

// Files is what one iteration produced besides its diff.
type Files struct {
	Report *testreport.Report
	Log    *agentlog.Log
	// Cost is what the log says the iteration cost (nil without a log).
	Cost *cost.Cost
	// MissingReport is the report glob that matched no file: the build
	// produced no report, which counts as a build failure.
	MissingReport string
}

// ReadFiles reads the test reports matched by the globs and the agent log,
// with the cost it reports; either may be empty. Errors name the file and
// the fault.
func ReadFiles(reportGlobs []string, logPath string) (*Files, error) {
	f := &Files{}
	if len(reportGlobs) > 0 {
		r, err := testreport.ParseGlobs(reportGlobs)
		var none *testreport.NoMatchError
		switch {
		case errors.As(err, &none):
			f.MissingReport = none.Glob
		case err != nil:
			return nil, err
		default:
			f.Report = r
		}
	}
	if logPath != "" {
		l, err := agentlog.ReadFile(logPath)
		if err != nil {
			return nil, err
		}
		f.Log = l
		if f.Cost, err = cost.ReadFile(logPath); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Notes returns what the readers skipped or truncated: the test report
// reader's notes (test_report), the agent log reader's (agent_log), then
// the cost reader's (cost).
func (f *Files) Notes() []note.Note {
	var out []note.Note
	if f.MissingReport != "" {
		out = append(out, note.New(note.ReportMissing, "report glob %q matches no file: the iteration is taken as a build that produced no report (a build failure)", f.MissingReport))
	}
	if f.Report != nil {
		out = append(out, note.Of(note.TestReport, f.Report.Notes)...)
	}
	if f.Log != nil {
		out = append(out, note.Of(note.AgentLog, f.Log.Notes)...)
	}
	if f.Cost != nil {
		out = append(out, note.Of(note.Cost, f.Cost.Notes)...)
	}
	return out
}

// Apply fills the iteration's test, error, output, claim and cost fields.
func (f *Files) Apply(it *breaker.Iteration) {
	var errs []breaker.Signature
	seen := map[string]bool{}
	add := func(line, test string) {
		if len(errs) >= MaxErrors {
			return
		}
		s := signature.Of(line)
		if s.Sample == "" || seen[s.Hash+"\x00"+test] {
			return
		}
		seen[s.Hash+"\x00"+test] = true
		errs = append(errs, breaker.Signature{Hash: s.Hash, Sample: s.Sample, Test: test})
	}
	if l := f.Log; l != nil {
		it.ErrorsKnown = true
		for _, e := range l.Errors {
			add(e, "")
		}
		it.Output = &breaker.Output{Lines: l.Lines, Bytes: l.Bytes}
		it.PermissionDenials = l.PermissionDenials
		it.CompletionClaimed = it.CompletionClaimed || l.CompletionClaimed
		if l.CompletionClaimed && it.Claim == nil {
			it.Claim = signatureOf(logClaim)
		}
		it.QuestionsAsked = it.QuestionsAsked || l.QuestionsAsked
		if l.Admitted {
			it.Admitted = true
			if l.Blocker != "" && it.Blocker == nil {
				it.Blocker = signatureOf(l.Blocker)
			}
		}
		if st := l.Status; st != nil {
			if st.FilesModified != nil {
				v := *st.FilesModified
				it.ClaimedFiles = &v
			}
			if st.ProgressPercent != nil && it.ProgressPercent == nil {
				v := *st.ProgressPercent
				it.ProgressPercent = &v
			}
			if st.Phase != "" && it.Phase == "" {
				it.Phase = st.Phase
				it.PhaseByAgent = true
			}
			it.CompletionClaimed = it.CompletionClaimed || st.ClaimsCompletion()
			if t := breaker.StatusTask(st.CurrentTask); t != nil {
				it.CurrentTask = t
			}
		}
	}
	if c := f.Cost; c.Known() {
		it.Cost = &breaker.Cost{USD: c.USD, Tokens: c.Tokens}
	}
	if r := f.Report; r != nil {
		it.ErrorsKnown = true
		t := &breaker.Tests{Passed: r.Passed, Failed: r.Failed, Skipped: r.Skipped, BuildFailed: r.BuildFailed}
		for _, fl := range r.Failing {
			if fl.Kind == "build" {
				add(cmp.Or(fl.Message, "build failed: "+fl.Name), "")
			}
		}
		for _, fl := range r.Failing {
			if fl.Kind != "build" {
				add(cmp.Or(fl.Message, "test failed: "+fl.Name), fl.Name)
				if len(t.Failing) < 20 {
					t.Failing = append(t.Failing, fl.Name)
				}
			}
		}
		it.Tests = t
	}
	if f.MissingReport != "" && f.Report == nil {
		it.ErrorsKnown = true
		it.Tests = &breaker.Tests{BuildFailed: true}
		add("build failed: no test report matched "+f.MissingReport, "")
	}
	it.Errors = append(it.Errors, errs...)
}

// signatureOf is the normalised signature of a text.
func signatureOf(text string) *breaker.Signature {
	s := signature.Of(text)
	return &breaker.Signature{Hash: s.Hash, Sample: s.Sample}
}

// logClaim identifies a completion the agent's log claims: every such
// claim is the same one.
const logClaim = "the agent claims the work is done"
