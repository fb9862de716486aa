package gitlog

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTrailers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msg  string
		want map[string][]string
	}{
		{"none", "fix the bug\n", nil},
		{"subject only looks like a trailer", "Loop-Phase: RED\n", nil},
		{"simple", "fix\n\nLoop-Phase: RED\n", map[string][]string{"Loop-Phase": {"RED"}}},
		{"canonical keys", "fix\n\nloop-phase: red\nLOOP-PROGRESS: 45%\n", map[string][]string{"Loop-Phase": {"red"}, "Loop-Progress": {"45%"}}},
		{"repeated key", "fix\n\nCo-authored-by: A <a@x>\nCo-authored-by: B <b@x>\n", map[string][]string{"Co-Authored-By": {"A <a@x>", "B <b@x>"}}},
		{"continuation", "fix\n\nLoop-Note: first\n  second\nLoop-Phase: GREEN\n", map[string][]string{"Loop-Note": {"first second"}, "Loop-Phase": {"GREEN"}}},
		{"body is not trailers", "fix\n\nThis explains: why it broke.\nAnd more text here.\n", nil},
		{"only the last paragraph", "fix\n\nLoop-Phase: RED\n\nbody\n", nil},
		{"space before colon", "fix\n\nLoop-Phase : RED\n", map[string][]string{"Loop-Phase": {"RED"}}},
		{"mixed block with sign-off", "fix\n\nsome words here\nmore words\nSigned-off-by: A <a@x>\n", map[string][]string{"Signed-Off-By": {"A <a@x>"}}},
		{"mixed block without git trailer", "fix\n\nsome words here\nLoop-Phase: RED\n", nil},
		{"crlf", "fix\r\n\r\nLoop-Phase: RED\r\n", map[string][]string{"Loop-Phase": {"RED"}}},
		{"trailing blank lines", "fix\n\nLoop-Phase: RED\n\n\n", map[string][]string{"Loop-Phase": {"RED"}}},
		// git interpret-trailers reads a bare URL line as a trailer too.
		{"url line", "fix\n\nhttps://example.com/x\n", map[string][]string{"Https": {"//example.com/x"}}},
		{"sentence is not a key", "fix\n\nSee the docs: they explain it.\n", nil},
		{"empty value", "fix\n\nLoop-Phase:\n", map[string][]string{"Loop-Phase": {""}}},
		{"empty message", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, trailers(tt.msg)); diff != "" {
				t.Errorf("trailers(%q) (-want +got):\n%s", tt.msg, diff)
			}
		})
	}
}

func TestTrailersBounded(t *testing.T) {
	t.Parallel()
	msg := "fix\n\n" + strings.Repeat("Loop-X: y\n", 5000)
	got := trailers(truncateMessage(msg))
	if n := len(got["Loop-X"]); n != maxTrailers {
		t.Errorf("got %d trailers, want at most %d", n, maxTrailers)
	}
	long := strings.Repeat("word ", 100000)
	if n := len(truncateMessage(long)); n > maxMessageBytes {
		t.Errorf("truncateMessage: got %d bytes, want at most %d", n, maxMessageBytes)
	}
}

func TestSubjectAndRevert(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg         string
		wantSubject string
		wantRevert  bool
		wantOf      string
	}{
		{"fix it\n\nbody\n", "fix it", false, ""},
		{"\nfirst line\nsecond line\n\nbody", "first line second line", false, ""},
		{"Revert \"add x\"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.\n", `Revert "add x"`, true, "0123456789abcdef0123456789abcdef01234567"},
		{"Revert \"add x\"\n", `Revert "add x"`, true, ""},
		{"undo\n\nThis reverts commit ABCDEF1.\n", "undo", true, "abcdef1"},
		{"Reverting the approach\n", "Reverting the approach", false, ""},
	}
	for _, tt := range tests {
		subj := subject(tt.msg)
		rev, of := revertOf(tt.msg, subj)
		if subj != tt.wantSubject || rev != tt.wantRevert || of != tt.wantOf {
			t.Errorf("%q: got subject %q, revert %v of %q; want %q, %v, %q", tt.msg, subj, rev, of, tt.wantSubject, tt.wantRevert, tt.wantOf)
		}
	}
}

// TestRevertAndHexMatchTheirExpressions: the hand-written scanners answer
// as the regular expressions they replace.
func TestRevertAndHexMatchTheirExpressions(t *testing.T) {
	t.Parallel()
	revertRE := regexp.MustCompile(`This reverts commit ([0-9a-fA-F]{7,64})`)
	hexRE := regexp.MustCompile(`^[0-9a-fA-F]{7,64}$`)
	hex := strings.Repeat("0123456789abcdefABCDEF", 4)
	var inputs []string
	for _, n := range []int{0, 1, 6, 7, 8, 40, 63, 64, 65, 80} {
		h := hex[:n]
		inputs = append(inputs, h, h+"g", "x"+h,
			"This reverts commit "+h+".", "This reverts commit "+h,
			"This reverts commit abc. This reverts commit "+h+"\n",
			"This reverts commit  "+h, "This reverts commit\n"+h, "this reverts commit "+h,
			"This reverts commit This reverts commit "+h)
	}
	for _, in := range inputs {
		gotRevert, gotOf := revertOf(in, "")
		wantOf := ""
		if m := revertRE.FindStringSubmatch(in); m != nil {
			wantOf = strings.ToLower(m[1])
		}
		wantRevert := wantOf != "" || strings.Contains(in, "This reverts commit")
		if gotRevert != wantRevert || gotOf != wantOf {
			t.Errorf("revertOf(%q): got %v %q, want %v %q", in, gotRevert, gotOf, wantRevert, wantOf)
		}
		if got, want := isHexRevision(in), hexRE.MatchString(in); got != want {
			t.Errorf("isHexRevision(%q): got %v, want %v", in, got, want)
		}
	}
}

func TestParseMessageAsTheAPIReadsIt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msg  string
		want Message
	}{
		{"subject only", "fix the parser\n", Message{Subject: "fix the parser"}},
		{"wrapped subject", "fix the\nparser\n\nbody", Message{Subject: "fix the parser"}},
		{"trailers", "step\n\nbody text\n\nLoop-Phase: green\nloop-progress: 40%\n", Message{Subject: "step",
			Trailers: map[string][]string{"Loop-Phase": {"green"}, "Loop-Progress": {"40%"}}}},
		{"not all trailers", "step\n\nLoop-Phase: green\nsome prose here\n", Message{Subject: "step"}},
		{"the subject is never a trailer", "Loop-Phase: red\n", Message{Subject: "Loop-Phase: red"}},
		{"continuation", "step\n\nCo-authored-by: a\n  b\n", Message{Subject: "step", Trailers: map[string][]string{"Co-Authored-By": {"a b"}}}},
		{"revert with hash", "Revert \"x\"\n\nThis reverts commit ABCDEF1234567.\n", Message{Subject: `Revert "x"`, Revert: true, Reverts: "abcdef1234567"}},
		{"revert subject", "Revert \"x\"\n", Message{Subject: `Revert "x"`, Revert: true}},
		{"crlf", "done\r\n\r\nLoop-Phase: refactor\r\n", Message{Subject: "done", Trailers: map[string][]string{"Loop-Phase": {"refactor"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ParseMessage(tt.msg)
			got.Text = ""
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(Message{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
