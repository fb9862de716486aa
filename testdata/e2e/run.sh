#!/usr/bin/env bash
# End-to-end test of the action: build a stuck agent loop as a git repository, run the composite
# variant with nektos/act in host mode against the fake GitHub API on 127.0.0.1, then check the
# step's outputs, the job summary, and the labels, comment and status the fake received.
# Usage: run.sh ACT_BINARY
set -euo pipefail
act_bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
fake_pid=""
cleanup() {
  [ -n "${KEEP:-}" ] && { echo "kept $work"; [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null; return; }
  [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { [ -f "$work/act.log" ] && tail -40 "$work/act.log" >&2; echo "e2e: FAIL: $*" >&2; exit 1; }

# The loop: the project's source as the base commit, then an agent that keeps failing the same
# test without changing anything.
repo=$work/loop
mkdir -p "$repo"
(cd "$root" && git ls-files -z | xargs -0 tar cf -) | (cd "$repo" && tar xf -)
mkdir -p "$repo/.github/workflows"
cp "$root/testdata/e2e/workflow.yml" "$repo/.github/workflows/e2e.yml"
cd "$repo"
git init -q -b agent/loop
git config user.name agent
git config user.email agent@example.com
git remote add origin https://github.com/octo/loop
git add -A
GIT_COMMITTER_DATE=2026-03-01T09:00:00Z git commit -q --date 2026-03-01T09:00:00Z -m "base"
base=$(git rev-parse HEAD)
for i in 1 2 3; do
  GIT_COMMITTER_DATE=2026-03-01T09:1${i}:00Z git commit -q --allow-empty --date 2026-03-01T09:1${i}:00Z -m "iteration $i: try again"
done
head=$(git rev-parse HEAD)
cat > report.xml <<'XML'
<testsuite name="parser" tests="2" failures="1">
  <testcase classname="parser" name="TestParse"><failure message="parse.go:12: unexpected token &lt;img src=x&gt; @octo/admins">boom</failure></testcase>
  <testcase classname="parser" name="TestLex"/>
</testsuite>
XML
printf 'thinking...\nError: unexpected token ::set-output name=state::CLOSED\n' > agent.log

cat > "$work/event.json" <<JSON
{"action": "synchronize", "number": 7,
 "pull_request": {"number": 7, "created_at": "2026-03-01T09:00:00Z", "labels": [],
   "head": {"sha": "$head", "ref": "agent/loop", "repo": {"fork": false, "full_name": "octo/loop"}},
   "base": {"sha": "$base", "ref": "main", "repo": {"full_name": "octo/loop"}}},
 "repository": {"full_name": "octo/loop", "default_branch": "main"},
 "sender": {"login": "agent", "type": "User"}}
JSON
cat > "$work/seed.json" <<JSON
{"repos": [{"owner": "octo", "name": "loop", "pulls": [{"number": 7, "title": "agent loop", "user": "agent", "head_sha": "$head", "head_ref": "agent/loop", "base_ref": "main", "base_sha": "$base"}]}]}
JSON

# The fake GitHub API.
(cd "$root" && go build -o "$work/fakegithub" ./cmd/fakegithub)
"$work/fakegithub" -addr 127.0.0.1:0 -state "$work/seed.json" -dump "$work/dump.json" > "$work/fake.log" 2>&1 &
fake_pid=$!
for _ in $(seq 1 100); do
  grep -q '^listening on ' "$work/fake.log" 2>/dev/null && break
  sleep 0.1
done
api=$(sed -n 's/^listening on //p' "$work/fake.log" | head -1)
[ -n "$api" ] || fail "the fake GitHub API did not start: $(cat "$work/fake.log")"

result=$work/result.txt
ACT_DISABLE_VERSION_CHECK=1 "$act_bin" pull_request -e "$work/event.json" -W .github/workflows/e2e.yml \
  -P ubuntu-latest=-self-hosted --no-cache-server -s GITHUB_TOKEN=test-token \
  --env GITHUB_API_URL="$api" --env E2E_RESULT="$result" > "$work/act.log" 2>&1 \
  || { tail -50 "$work/act.log"; fail "act failed"; }

kill -TERM "$fake_pid"; wait "$fake_pid" 2>/dev/null || true; fake_pid=""
[ -s "$work/dump.json" ] || fail "the fake wrote no dump"

check() { grep -qF -- "$2" "$1" || { echo "--- $1"; cat "$1"; fail "$3"; }; }
check "$result" "outcome=failure" "the step should fail when the breaker is OPEN"
check "$result" "state=OPEN" "state output"
check "$result" "allow-continue=false" "allow-continue output"
check "$result" "trigger=no_progress" "trigger output"
check "$result" "iteration=3" "iteration output"
grep -q '"state":"OPEN"' "$result.decision.json" || fail "decision output is not the JSON decision"
check "$work/act.log" "Summary - ## 🔴 loopbreaker: OPEN" "job summary"
if grep -q '^state=CLOSED' "$result"; then fail "agent text injected an output"; fi
go run "$root/testdata/e2e/assert.go" "$work/dump.json" "$head" || fail "GitHub side effects"
echo "e2e: ok (outputs, job summary, labels, sticky comment and status checked)"
