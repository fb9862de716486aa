// Package hook is the breaker as a Claude Code (or Codex) hook: it reads
// the hook's JSON input, measures the session's transcript since the
// previous stop, answers with the hook's JSON output, and installs the
// hook into a settings file (Claude Code's .claude/settings.local.json,
// Codex's .codex/hooks.json) without touching what is already there.
package hook
