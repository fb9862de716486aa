package action

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
)

// fileCommands writes GitHub Actions file commands (outputs, the job
// summary) itself rather than through go-githubactions, whose fixed heredoc
// delimiter lets a value that contains it inject outputs, and which panics
// when the file variable is unset.
type fileCommands struct {
	output  string // $GITHUB_OUTPUT
	summary string // $GITHUB_STEP_SUMMARY
}

// delimiter returns a random heredoc delimiter that value does not contain.
func delimiter(value string) (string, error) {
	for i := 0; i < 8; i++ {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("output delimiter: %w", err)
		}
		d := "ghadelimiter_" + hex.EncodeToString(b[:])
		if !strings.Contains(value, d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("output delimiter: no delimiter absent from the value")
}

// formatOutput is one output in GITHUB_OUTPUT's multi-line syntax.
func formatOutput(name, value string) (string, error) {
	if name == "" || strings.ContainsAny(name, "\r\n=<") {
		return "", fmt.Errorf("output name %q is not valid", name)
	}
	d, err := delimiter(value)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s<<%s\n%s\n%s\n", name, d, value, d), nil
}

// SetOutputs appends outputs in order (names sorted by the caller). With no
// GITHUB_OUTPUT (a local run) it does nothing and says so.
func (f *fileCommands) SetOutputs(names []string, values map[string]string) error {
	if f.output == "" {
		return fmt.Errorf("GITHUB_OUTPUT is not set: outputs were not written")
	}
	var b strings.Builder
	for _, n := range names {
		s, err := formatOutput(n, values[n])
		if err != nil {
			return err
		}
		b.WriteString(s)
	}
	return AppendFile(f.output, b.String())
}

// AddSummary appends markdown to the job summary.
func (f *fileCommands) AddSummary(markdown string) error {
	if f.summary == "" {
		return fmt.Errorf("GITHUB_STEP_SUMMARY is not set: no job summary written")
	}
	return AppendFile(f.summary, markdown+"\n")
}

// AppendFile appends text to the file at path (an Actions file command such
// as the job summary), creating it.
func AppendFile(path, text string) error {
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := fh.WriteString(text); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return fh.Close()
}
