package realloops

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/evidence/agentlog"
)

// blockerRE matches a blocker's hash in a facts file.
var blockerRE = regexp.MustCompile(`^[0-9a-f]{12}$`)

// Admission reads a commit message with the engine's own detector
// (agentlog.Admits): whether it admits no progress, and the 12-hex hash of
// the normalised blocker it names ("" for none). Only these derived facts
// are kept, never the text.
func Admission(message string) (admitted bool, blocker string) {
	admitted, text := agentlog.Admits(message)
	if text == "" {
		return admitted, ""
	}
	sum := sha256.Sum256([]byte(text))
	return admitted, hex.EncodeToString(sum[:6])
}

// admissionText is a synthetic message line that the detector reads as the
// same admission: a blocker's hash spelled in letters outside the hex
// digits (so that no part of it is taken for a volatile hash), else an
// idle tick.
func admissionText(blocker string) string {
	if blocker == "" {
		return "idle tick, nothing to do"
	}
	var b strings.Builder
	for _, c := range blocker {
		v := strings.IndexRune("0123456789abcdef", c)
		b.WriteByte(byte('g' + v))
	}
	return "still blocked on " + b.String()
}
