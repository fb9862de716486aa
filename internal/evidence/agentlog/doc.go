// Package agentlog reads what a coding agent printed during one iteration
// and says what it shows: the output's size in lines and bytes, the error
// lines in order, tool permission denials, whether the agent claimed to be
// done or asked the user questions, and Ralph's status block
// (---RALPH_STATUS--- ... ---END_RALPH_STATUS---).
//
// A log is plain text, JSON lines (the Claude CLI's stream-json output) or
// one JSON document (the CLI's json output, compact or pretty-printed). In
// JSON logs the agent's own words (assistant text, the final result) are
// told apart from tool output: errors and denials are looked for in both,
// completion claims, questions and status blocks only in the agent's words,
// so a prompt or a file the agent printed cannot make it claim anything.
//
// The input is streamed and everything is bounded: lines, error lines,
// notes and the total bytes read. Agent text is treated as hostile: no input
// makes Read panic, and whatever was skipped or cut is said in Log.Notes.
package agentlog
