package localstate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		w    Where
		want string
	}{
		{Where{Dir: "/s", XDGStateHome: "/x", Home: "/h"}, "/s"},
		{Where{XDGStateHome: "/x", Home: "/h"}, "/x/loopbreaker"},
		{Where{XDGStateHome: "relative", Home: "/h"}, "/h/.local/state/loopbreaker"},
		{Where{Home: "/h"}, "/h/.local/state/loopbreaker"},
	}
	for _, tt := range tests {
		if got, err := tt.w.Root(); err != nil || got != tt.want {
			t.Errorf("%+v: got %q %v, want %q", tt.w, got, err, tt.want)
		}
	}
	if _, err := (Where{}).Root(); err == nil {
		t.Errorf("no directory at all: want an error")
	}
}

// TestForRepo: the repository is found from a directory inside it, and two
// repositories of the same name have two states.
func TestForRepo(t *testing.T) {
	t.Parallel()
	a, b := filepath.Join(t.TempDir(), "app"), filepath.Join(t.TempDir(), "app")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(filepath.Join(d, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(d, "src", "deep"), 0o755)
	}
	w := Where{Dir: t.TempDir()}
	ra, err := w.ForRepo(filepath.Join(a, "src", "deep"))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := w.ForRepo(b)
	if err != nil {
		t.Fatal(err)
	}
	if ra.Dir == rb.Dir || !strings.HasPrefix(filepath.Base(ra.Dir), "app-") {
		t.Errorf("state directories %s and %s", ra.Dir, rb.Dir)
	}
	if _, err := w.ForRepo(t.TempDir()); err == nil {
		t.Errorf("a directory outside any repository: want an error")
	}
}

// TestReadJSONLeavesABadFile: a file that is not valid is an error naming
// it, and stays as it is.
func TestReadJSONLeavesABadFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "loop.json")
	os.WriteFile(path, []byte("{nope"), 0o600)
	var l Loop
	if _, err := ReadJSON(path, MaxLoopBytes, &l); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("got %v, want an error naming %s", err, path)
	}
	if data, _ := os.ReadFile(path); string(data) != "{nope" {
		t.Errorf("the file was changed: %q", data)
	}
	if ok, err := ReadJSON(filepath.Join(t.TempDir(), "none.json"), MaxLoopBytes, &l); ok || err != nil {
		t.Errorf("a missing file: got %v %v, want false and no error", ok, err)
	}
}
