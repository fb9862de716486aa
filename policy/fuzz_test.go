package policy

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse feeds arbitrary TOML to the policy reader. Whatever it accepts
// must be valid, survive every profile and phase, and print as TOML that
// loads back to the same policy; whatever it refuses must be refused with
// an error naming the source.
func FuzzParse(f *testing.F) {
	for _, name := range Names() {
		src, err := Source(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, s := range []string{
		"",
		"extends = \"default\"\n[rules.no_progress]\nno_progress_threshold = 9223372036854775807\n",
		"extends = \"default\"\n[rules.score]\nweight = nan\n[rules.output_decline]\noutput_decline_percent = -inf\n",
		"extends = \"ralph\"\ncooldown = \"-5s\"\n[phases.RED]\nhalf_open_after = 1\n[profiles.x]\nprotected_paths = [\"[\"]\n",
		"extends = \"default\"\nextends = \"strict\"\n",
		"a = [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]\n",
		"extends = \"default\"\r\ncooldown = \"999999999h\"\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data, "fuzz.toml")
		if err != nil {
			if p != nil {
				t.Fatalf("got a policy with error %v", err)
			}
			if !strings.Contains(err.Error(), "fuzz.toml") {
				t.Fatalf("error %q does not name the source", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("an accepted policy does not validate: %v", err)
		}
		for _, name := range p.ProfileNames() {
			if _, err := p.WithProfile(name); err != nil {
				t.Fatalf("profile %s of an accepted policy: %v", name, err)
			}
		}
		for _, name := range p.PhaseNames() {
			if err := p.WithPhase(name).Validate(); err != nil {
				t.Fatalf("phase %s of an accepted policy does not validate: %v", name, err)
			}
		}
		var buf bytes.Buffer
		if err := p.Encode(&buf); err != nil {
			t.Fatalf("an accepted policy does not print: %v", err)
		}
		again, err := Parse(buf.Bytes(), "printed.toml")
		if err != nil {
			t.Fatalf("the printed policy does not load back: %v\n%s", err, buf.String())
		}
		if diff := cmp.Diff(p, again, cmp.AllowUnexported(Policy{})); diff != "" {
			t.Fatalf("the printed policy loads back different (-first +again):\n%s", diff)
		}
	})
}
