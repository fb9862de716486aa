#!/usr/bin/env bash
# Runs the README's quick-start commands verbatim, as a new user would, in a scratch clone of
# this repository's HEAD: the install from source (the README's ```sh block of `go install .`,
# into a scratch GOBIN), the set-up commands (its first ```sh block) and the state-file example
# of docs/cli.md (the ```sh block of `loopbreaker record --state`). A loopbreaker command may exit
# 0 (continue) or 1 (OPEN), as the documentation says; anything else, or any other command
# failing, fails the check. The test command is recognised and not run again: .ci/run runs it.
# Then the two starts of docs/integrations.md (and of the README, once it holds them): the
# Claude Code hook's install, its installed command fed hook input as Claude Code sends it and a
# transcript whose messages carry their usage; the shell loop against a fake `claude` that edits
# files without committing them (claude -p's default) for five iterations and then changes
# nothing, and prints its JSON result with the run's cost when asked for JSON: the loop must run
# on while the files grow, end with OPEN three iterations after they stop, and have summed what
# every iteration cost; and the drop-in for ralph's breaker, in ralph's call order.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
readme="$root/README.md"
echo "== the README's quick-start commands, verbatim, in a scratch clone"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The local loop state of every command here stays in the scratch directory.
export LOOPBREAKER_STATE_DIR="$work/state"

# block PATTERN [FILE]: the commands of the first ```sh block of FILE (the README unless given)
# that holds PATTERN, one a line (a line ending in a backslash continues on the next).
block() {
  awk -v pat="$1" '
    /^```sh$/ { inside = 1; buf = ""; next }
    /^```$/ && inside { inside = 0; if (index(buf, pat)) { printf "%s", buf; exit } next }
    inside {
      line = line $0
      if (line ~ /\\$/) { sub(/\\$/, "", line); next }
      buf = buf line "\n"; line = ""
    }' "${2:-$readme}"
}

# script PATTERN FILE: the first ```sh block of FILE that holds PATTERN, as it is written.
script() {
  awk -v pat="$1" '
    /^```sh$/ { inside = 1; buf = ""; next }
    /^```$/ && inside { inside = 0; if (index(buf, pat)) { printf "%s", buf; exit } next }
    inside { buf = buf $0 "\n" }' "$2"
}

quick=$(block "go run . check")
install=$(block "go install .")
state=$(block "loopbreaker record --state" "$root/docs/cli.md")
if [ -z "$quick" ] || [ -z "$install" ] || [ -z "$state" ]; then
  echo "README.md or docs/cli.md: the quick-start block (go run . check), the install block (go install .) or the state-file block (loopbreaker record --state) is missing" >&2
  exit 1
fi

git clone -q --no-checkout "$root" "$work/clone"
git -C "$work/clone" checkout -q --detach "$(git -C "$root" rev-parse HEAD)"
# `loopbreaker` in the documentation is the installed binary: install this commit's, as the
# README says, into a scratch GOBIN.
mkdir -p "$work/bin"
(cd "$work/clone" && GOBIN="$work/bin" bash -c "$install")
[ -x "$work/bin/loopbreaker" ] || { echo "README.md: the install block installed no loopbreaker" >&2; exit 1; }
export PATH="$work/bin:$PATH"

ran=0
failed=0
while IFS= read -r cmd; do
  case "$cmd" in
    ''|'#'*) continue ;;
  esac
  if [[ "$cmd" == *"go test"* ]]; then
    echo "skipped (the test command; .ci/run runs it): $cmd"
    continue
  fi
  set +e
  (cd "$work/clone" && bash -c "$cmd") >"$work/out" 2>&1
  code=$?
  set -e
  ok=0
  if [[ "$cmd" =~ ^(loopbreaker|go\ run\ \.)\  ]]; then
    [ "$code" -le 1 ] && ok=1
  else
    [ "$code" -eq 0 ] && ok=1
  fi
  ran=$((ran + 1))
  if [ "$ok" = 1 ]; then
    echo "ok (exit $code): $cmd"
  else
    echo "FAILED (exit $code): $cmd"
    sed 's/^/    /' "$work/out"
    failed=$((failed + 1))
  fi
done <<<"$quick"$'\n'"$state"

if [ "$failed" -gt 0 ] || [ "$ran" -lt 2 ]; then
  echo "README quick start: $failed of $ran commands failed" >&2
  exit 1
fi
echo "README quick start: all $ran commands ran"

# A new repository with one commit, for a start to run in.
new_repo() {
  mkdir -p "$1"
  git -C "$1" init -q
  printf 'package main\n\nfunc main() {}\n' >"$1/main.go"
  printf 'Fix the failing build.\n' >"$1/PROMPT.md"
  git -C "$1" add -A
  git -C "$1" -c user.name=ci -c user.email=ci@example.com commit -qm "start"
}

# hook_start FILE: the hook's install as FILE writes it, then the command it installed (the
# binary by its absolute path), fed the hook input Claude Code sends at a session's start and at
# three stops that change nothing, each after an assistant message of 12,510 tokens in the
# transcript: the start is greeted, the third stop stops the session and says what it spent.
hook_start() {
  local doc=$1 dir="$work/hook-$RANDOM" cmd hook answer i
  cmd=$(script "loopbreaker hook install claude-code" "$doc")
  [ -n "$cmd" ] || { echo "$doc: no \`loopbreaker hook install claude-code\` block" >&2; return 1; }
  new_repo "$dir"
  (cd "$dir" && bash -e -c "$cmd") || { echo "FAILED: the hook's install of $doc" >&2; return 1; }
  hook=$(jq -r '.hooks.Stop[0].hooks[0].command' "$dir/.claude/settings.local.json")
  [ "$hook" = "$work/bin/loopbreaker hook claude-code" ] ||
    { echo "FAILED: $dir/.claude/settings.local.json runs '$hook', not the installed binary's hook" >&2; return 1; }
  : >"$work/transcript.jsonl"
  input() {
    printf '{"session_id":"ci","transcript_path":"%s","cwd":"%s","hook_event_name":"%s","stop_hook_active":%s}' \
      "$work/transcript.jsonl" "$dir" "$1" "$2"
  }
  answer=$(input SessionStart false | (cd "$dir" && PATH=/usr/bin:/bin bash -c "$hook"))
  [[ "$answer" == *"a fresh breaker watches this session"* ]] || { echo "FAILED: the hook's answer at the start: $answer" >&2; return 1; }
  for i in 1 2 3; do
    printf '{"type":"assistant","message":{"id":"msg_%s","role":"assistant","content":[{"type":"text","text":"The build still fails."}],"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":12000,"output_tokens":500}}}\n' "$i" >>"$work/transcript.jsonl"
    answer=$(input Stop true | (cd "$dir" && PATH=/usr/bin:/bin bash -c "$hook"))
  done
  case "$answer" in
    *'"continue":false'*OPEN*'Spent: 37,530 tokens since the last reset'*) echo "ok: the hook's install of $doc; the hook stopped a stuck session at its third stop, with what it spent" ;;
    *) echo "FAILED: the hook's answer at the third stop: $answer" >&2; return 1 ;;
  esac
}

# loop_start FILE: the shell loop as FILE writes it, against a fake `claude` that writes a new
# file each call without committing it for five calls, then changes nothing, and costs $0.25 and
# 23,000 tokens a call: the loop must run on while the files grow, end with OPEN at the third
# call after they stop, and have summed every call's cost ($2.00; $0.75 since the progress).
loop_start() {
  local doc=$1 dir="$work/loop-$RANDOM" loop calls
  loop=$(script "loopbreaker check" "$doc")
  [ -n "$loop" ] || { echo "$doc: no shell loop block (loopbreaker check)" >&2; return 1; }
  new_repo "$dir"
  mkdir -p "$work/fake"
  cat >"$work/fake/claude" <<'FAKE'
#!/usr/bin/env bash
# A fake agent: counts its calls; for five calls it writes a file and commits nothing, then it
# changes nothing; it fails after 15 calls so that a loop that never stops ends the check. With
# --output-format json it prints its answer as claude -p does, in a result with the run's cost.
n=$(( $(cat "$CLAUDE_CALLS" 2>/dev/null || echo 0) + 1 ))
echo "$n" >"$CLAUDE_CALLS"
[ "$n" -le 15 ] || { echo "the loop did not stop after 15 iterations" >&2; exit 99; }
say() {
  case " $* " in
    *" --output-format json "*) printf '{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"%s","session_id":"ci","total_cost_usd":0.25,"usage":{"input_tokens":10,"cache_creation_input_tokens":2000,"cache_read_input_tokens":20000,"output_tokens":990}}\n' "$answer" ;;
    *) echo "$answer" ;;
  esac
}
if [ "$n" -le 5 ]; then
  mkdir -p src && printf 'package src\n\nconst Step%d = %d\n' "$n" "$n" >"src/step$n.go"
  answer="I wrote src/step$n.go."
else
  answer="I looked at the build again; nothing changed."
fi
say "$@"
FAKE
  chmod +x "$work/fake/claude"
  rm -f "$work/claude_calls"
  (cd "$dir" && CLAUDE_CALLS="$work/claude_calls" PATH="$work/fake:$PATH" TMPDIR="$work" timeout 120 bash -c "$loop") >"$work/loop.out" 2>&1 ||
    { echo "FAILED: the shell loop of $doc" >&2; sed 's/^/    /' "$work/loop.out" >&2; return 1; }
  calls=$(cat "$work/claude_calls")
  set +e
  (cd "$dir" && loopbreaker status) >"$work/status.out" 2>&1
  local code=$?
  set -e
  if [ "$code" -ne 1 ] || [ "$calls" -ne 8 ] || ! grep -qF 'spent:      $2.00 since the last reset · $0.75 since the last progress' "$work/status.out"; then
    echo "FAILED: the shell loop of $doc ran $calls iterations and status exits $code (want 8: five that wrote files, three that did not; then OPEN, 1, with \$2.00 spent, \$0.75 since the progress)" >&2
    sed 's/^/    /' "$work/loop.out" "$work/status.out" >&2
    return 1
  fi
  echo "ok: the shell loop of $doc ran on while the agent wrote files (uncommitted), ended with OPEN after $calls iterations and summed their cost"
}

echo "== the integrations' starts, verbatim"
docs=("$root/docs/integrations.md")
grep -q "loopbreaker hook install claude-code" "$readme" && docs+=("$readme")
for doc in "${docs[@]}"; do
  hook_start "$doc"
  loop_start "$doc"
done

# The drop-in for ralph's breaker, in ralph's call order (bats and jq from the distribution).
if command -v bats >/dev/null && command -v jq >/dev/null; then
  echo "== the drop-in for ralph's breaker"
  bats "$root/integrations/ralph/circuit_breaker.bats"
else
  echo "bats or jq is missing: apt-get install -y bats jq" >&2
  exit 1
fi
