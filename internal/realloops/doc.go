// Package realloops holds the real-loop corpus: the shape of public
// repositories whose history an autonomous coding loop wrote, reduced to
// derived facts, and the stretches of that history two people labelled,
// each on their own, as progress, stagnation or unclear.
//
// A facts file (testdata/realloops/OWNER__NAME.json) describes a window of a
// repository's first-parent chain, oldest commit first: per commit its hash,
// parents and committer time; per changed path its status, the added and
// deleted line counts and what kind of change it was (binary,
// whitespace-only, digits-only, churn of hex strings and timestamps,
// generated, submodule, and whether its edited lines read as code in a file
// not named as source); whether the commit message admits no progress, and
// a hash of the blocker it names (the engine's own detector); whether the whole
// tree or single files went back to an earlier version; the checkbox states
// of its task lists, keyed by a hash of the task's text; the Loop-Phase
// and Loop-Progress trailers; and what the loop wrote that the engine reads
// as evidence, as keys: a claim of done work in the message (Commit.Claim),
// and the errors, reviewers' findings and claims among the lines a change
// added to a file that is not source code or a test (Change.Written). No
// file content and no commit message text is kept.
//
// Load reads and validates the facts files and labels.json of a directory.
// labels.json is a JSON array of stretches, each with the judgements of
// two labellers who did not see each other's labels nor the engine's:
//
//	{"repo":"owner/name","from":"<first commit>","to":"<last commit>",
//	 "labels":[{"by":"A","label":"progress","reason":"<one line>"},
//	           {"by":"B","label":"unclear","reason":"<one line>"}],
//	 "misses":{"<policy>":"<one line>"}}
//
// A stretch's label is the consensus (Label.Consensus): the label both
// gave, else unclear. misses lists the policies known not to see a
// stagnation stretch, each with the reason. Agreements measures how well
// the labellers agree.
// Rebuild turns one facts file back into a git repository whose
// first-parent history has the same shape, with synthetic content: the same
// commits and times, the same paths changed by the same line counts, the
// same restores and the same checkbox states. Tests replay the labelled
// stretches of those repositories through the command line.
//
// # Facts file format
//
// The file is one JSON object, written with one commit a line:
//
//	{"repo":"owner/name","head":"<last commit>",
//	 "base":{"hash":"<parent of the first commit>","files":[...],"tasks":{...}},
//	 "task_keys":["<12 hex>",...],
//	 "commits":[
//	 {"hash":...,"parents":[...],"time":"<RFC 3339>","changes":[...],...},
//	 ...]}
//
// base describes the parent of the window's first commit (absent when that
// commit is a root): the files the window later changes, with their line
// counts and kinds, and the task lists there. A commit's tasks hold only the
// task files whose content the commit changed; the others keep their lists.
// To keep the files small a task list is written as numbers: 2*i+1 is
// task_keys[i] checked, 2*i the same task open. Load expands them into
// Task values.
package realloops
