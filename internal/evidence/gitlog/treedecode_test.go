package gitlog

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"
)

// rawTree builds tree bytes from "mode name" pairs, each with a hash made
// of its index.
func rawTree(entries ...string) string {
	var b strings.Builder
	for i, e := range entries {
		b.WriteString(e)
		b.WriteByte(0)
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), 20))
	}
	return b.String()
}

// treeDecodeSeeds are valid and malformed tree objects.
var treeDecodeSeeds = []string{
	"",
	rawTree("100644 a.go", "40000 dir", "100755 run.sh", "120000 link", "160000 sub"),
	rawTree("100664 old-mode", "040000 zero-padded dir", "644 short", "777 odd", "1234567 big", "100600 private"),
	rawTree("100644 name with spaces", "100644 caf\xe9", "100644 -"),
	"100644 a.go",                            // no name terminator
	"100644",                                 // no mode terminator
	"10x644 a\x00" + strings.Repeat("h", 20), // bad mode
	"77777777777 a\x00" + strings.Repeat("h", 20), // mode over 32 bits
	" a\x00" + strings.Repeat("h", 20),            // empty mode
	"100644 \x00" + strings.Repeat("h", 20),       // empty name
	"100644 a\x00short",                           // truncated hash
	rawTree("100644 a") + "100644 b\x00" + strings.Repeat("h", 19),
	rawTree("100644 b", "100644 a"), // unsorted: read as it is
}

// decodeBoth decodes data with go-git and with decodeTree, as a go-git
// object and as a loose object read here.
func decodeBoth(t *testing.T, data string) {
	t.Helper()
	h := plumbing.NewHash(strings.Repeat("12", 20))
	mem := &plumbing.MemoryObject{}
	mem.SetType(plumbing.TreeObject)
	mem.Write([]byte(data))
	var want object.Tree
	wantErr := want.Decode(mem)
	for name, obj := range map[string]plumbing.EncodedObject{
		"go-git object": mem,
		"loose object":  &rawObject{hash: mem.Hash(), typ: plumbing.TreeObject, data: []byte(data)},
	} {
		got, err := decodeTree(obj)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s %q: got error %v, want go-git's %v", name, data, err, wantErr)
		}
		if err != nil {
			continue
		}
		if got.Hash != want.Hash || got.Hash == h {
			t.Errorf("%s %q: got hash %s, want %s", name, data, got.Hash, want.Hash)
		}
		if diff := cmp.Diff(want.Entries, got.Entries); diff != "" {
			t.Errorf("%s %q: entries (-go-git +here):\n%s", name, data, diff)
		}
	}
}

func TestDecodeTreeAgreesWithGoGit(t *testing.T) {
	t.Parallel()
	for _, data := range treeDecodeSeeds {
		decodeBoth(t, data)
	}
	blob := &plumbing.MemoryObject{}
	blob.SetType(plumbing.BlobObject)
	if _, err := decodeTree(blob); err == nil {
		t.Error("decoded a blob as a tree")
	}
}

// FuzzDecodeTree: on any bytes, decodeTree fails when go-git's decoder
// fails and otherwise gives the same entries.
func FuzzDecodeTree(f *testing.F) {
	for _, s := range treeDecodeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		decodeBoth(t, data)
	})
}
