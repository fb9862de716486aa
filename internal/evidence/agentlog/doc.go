// Package agentlog reads what a coding agent printed during one iteration:
// its size, error lines, permission denials, completion claims, questions
// and Ralph's status block. A log is plain text, JSON lines (stream-json)
// or one JSON document; in JSON only the agent's own words can claim or
// ask, so a prompt or a file it printed cannot. Input is hostile and read
// bounded: what was skipped or cut is said in Log.Notes.
package agentlog
