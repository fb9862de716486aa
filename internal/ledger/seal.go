package ledger

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// Sealer seals records as the sticky comment's digest is sealed: an
// HMAC-SHA256 keyed by a secret only the judge holds, over the repository,
// the workflow file and the run that wrote the record's file (its
// artifact), the record's own run, attempt, iteration and commit, and its
// whole content. A record moved to another repository, workflow or run's
// artifact, or changed in any field, no longer verifies; without the key
// none can be made. A run seals every record of the file it writes.
type Sealer struct {
	Key        string
	Repository string // "owner/name"
	Workflow   string // ".github/workflows/loop.yml"; "" outside Actions
	Run        int64  // the run whose file (artifact) holds the record
}

// Seal sets r's seal. The same record always gets the same seal.
func (s Sealer) Seal(r *Record) { r.Seal = s.mac(r) }

// Verify reports whether r carries the seal s would give it.
func (s Sealer) Verify(r *Record) bool {
	return r.Seal != "" && hmac.Equal([]byte(r.Seal), []byte(s.mac(r)))
}

func (s Sealer) mac(r *Record) string {
	c := *r
	c.Seal = ""
	content, err := json.Marshal(&c)
	if err != nil {
		return "" // a record that does not encode is never sealed
	}
	m := hmac.New(sha256.New, []byte(s.Key))
	for _, part := range []string{"loopbreaker-record-v1", s.Repository, s.Workflow, strconv.FormatInt(s.Run, 10), strconv.FormatInt(r.RunID, 10),
		strconv.Itoa(r.RunAttempt), strconv.Itoa(r.Iteration), r.Commit} {
		m.Write([]byte(part))
		m.Write([]byte{0})
	}
	m.Write(content)
	return hex.EncodeToString(m.Sum(nil))
}
