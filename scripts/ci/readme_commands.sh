#!/usr/bin/env bash
# Runs the README's quick-start commands verbatim, as a new user would, in a scratch clone of
# this repository's HEAD: the install from source (the README's ```sh block of `go install .`,
# into a scratch GOBIN), the set-up commands (its first ```sh block) and the state-file example
# of docs/cli.md (the ```sh block of `loopbreaker record --state`). A loopbreaker command may exit
# 0 (continue) or 1 (OPEN), as the documentation says; anything else, or any other command
# failing, fails the check. The test command is recognised and not run again: .ci/run runs it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
readme="$root/README.md"
echo "== the README's quick-start commands, verbatim, in a scratch clone"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

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
