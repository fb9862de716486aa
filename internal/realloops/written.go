package realloops

import (
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/agentlog"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/evidence/signature"
	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
	"github.com/loopbreaker/loopbreaker/policy"
)

// What a change wrote into one of the loop's files, as the engine reads
// it, is kept as items, never as text: "e" and the 12-hex hash of an
// error's signature, "r" for a reviewer's finding (a series of them is one
// error), "c" and the hash of a claim of done work.

// ReadOptions are the git reader's options for facts: the task files'
// checkboxes, and what the loop wrote into its files read as the engine
// reads it under the default policy (whose test files are not read).
func ReadOptions() (gitlog.Options, error) {
	tasks, err := pathmatch.Compile(TaskFilePatterns())
	if err != nil {
		return gitlog.Options{}, err
	}
	def, err := policy.Builtin("default")
	if err != nil {
		return gitlog.Options{}, err
	}
	engine, err := evidence.GitOptions(def, "")
	if err != nil {
		return gitlog.Options{}, err
	}
	return gitlog.Options{TaskFiles: tasks, MaxFileBytes: gitlog.DefaultMaxFileBytes,
		TestPaths: engine.TestPaths, TestDataPaths: engine.TestDataPaths, Written: engine.Written}, nil
}

// WrittenItems reads the lines the engine kept of a change
// (gitlog.FileChange.Written) as items, in order.
func WrittenItems(lines []string) []string {
	var out []string
	for _, line := range lines {
		switch k, text := agentlog.Written(line); k {
		case agentlog.WrittenError:
			out = append(out, "e"+textKey(text))
		case agentlog.WrittenReview:
			out = append(out, "r")
		case agentlog.WrittenClaim:
			out = append(out, "c"+textKey(text))
		}
	}
	return out
}

// ClaimKey is the 12-hex key of a claim's signature, "" for none.
func ClaimKey(s *breaker.Signature) string {
	if s == nil {
		return ""
	}
	return s.Hash[:12]
}

// textKey is the 12-hex key of a text's signature.
func textKey(text string) string { return signature.Of(text).Hash[:12] }

// word spells a 12-hex key in letters outside the hex digits, so that no
// part of it reads as a volatile hash.
func word(key string) string {
	var b strings.Builder
	for _, c := range key {
		b.WriteByte(byte('g' + strings.IndexRune("0123456789abcdef", c)))
	}
	return b.String()
}

// writtenLine is a synthetic line the engine reads as the item, made
// unique by a serial that the engine's signatures leave out ("line N"), so
// that the lines a change adds are always the ones it writes.
func writtenLine(item string, serial int) string {
	switch item[0] {
	case 'e':
		return fmt.Sprintf("Error: realloops %s line %d", word(item[1:]), serial)
	case 'r':
		return fmt.Sprintf("Changes requested: realloops review line %d", serial)
	}
	return claimText(item[1:], serial)
}

// claimText is a claim of done work whose words are a key's: the same
// words, so the same claim, in a commit subject and in a file.
func claimText(key string, serial int) string {
	return fmt.Sprintf("Epic %s complete line %d", word(key), serial)
}

// claimSubject is a synthetic commit subject that the engine reads as the
// same claim: a completion of all tasks when the real subject claimed one,
// else a part of the work done.
func claimSubject(key string, completion bool) string {
	if completion {
		return "all tasks complete " + word(key)
	}
	return claimText(key, 0)
}
