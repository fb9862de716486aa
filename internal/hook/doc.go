// Package hook is the breaker as a Claude Code (or Codex) hook: it reads
// the hook's JSON input, measures the session's transcript since the
// previous stop, answers with the hook's JSON output, and installs the
// hook into a project's .claude/settings.json without touching the hooks
// already there.
package hook
