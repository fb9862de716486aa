#!/usr/bin/env bash
# End-to-end test of the action: agent loops built as git repositories, the composite variant run
# with nektos/act in host mode against the fake GitHub API on 127.0.0.1, then the step's outputs,
# the job summary, and the labels, comments and statuses the fake received are checked:
#   1. a stuck loop on a pull request: outputs, summary, label, one sticky comment, the status,
#      and no agent text that escapes its escaping;
#   2. two pull requests run, as GitHub runs them, on the test merge commit of each of five
#      pushes: the healthy one stays CLOSED, the stuck one opens, every record names the head;
#   3. a fork's pull request decided by workflow_run, whose payload lists no pull request: the
#      label and the comment land on it, not on another fork's of the same branch name;
#   4. an issue_comment run on the default branch while another loop's record artifact there is
#      newer: the pull request's own is used;
#   5. a person's /loopbreaker reset on an OPEN pull request: the comment's run is no iteration,
#      the open label goes, the sticky comment says CLOSED and the status turns to success;
#   6. the agent loop in three jobs (gate, agent, judge), each run dispatched on main for the loop's
#      branch and running main's workflow file: an agent that edits, renames and deletes and then
#      is stuck, honest and hostile, opens at the same iteration and the gate then refuses to start
#      it; an agent that changes the workflow file is held OPEN at once and nothing is pushed.
# Usage: run.sh ACT_BINARY (E2E_SCENARIOS="1 6" runs some of them)
set -euo pipefail
act_bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
fake_pid=""
cleanup() {
  [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
want() { case " ${E2E_SCENARIOS:-1 2 3 4 5 6} " in *" $1 "*) return 0 ;; esac; return 1; }
fail() { [ -f "$work/act.log" ] && tail -40 "$work/act.log" >&2; echo "e2e: FAIL: $*" >&2; exit 1; }
check() { grep -qF -- "$2" "$1" || { echo "--- $1"; cat "$1"; fail "$3"; }; }

(cd "$root" && go build -o "$work/fakegithub" ./cmd/fakegithub && go build -o "$work/tool" ./testdata/e2e/assert.go)
tool() { "$work/tool" "$@"; }

# listening LOG: the URL a server started in the background says it listens on (10 s at most).
listening() {
  for _ in $(seq 1 100); do
    url=$(sed -n 's/^listening on //p' "$1" 2>/dev/null | head -1)
    [ -n "$url" ] && { echo "$url"; return 0; }
    sleep 0.1
  done
  return 1
}

# start_fake SEED: the fake GitHub API, its final state dumped to $work/dump.json on exit.
start_fake() {
  # A fresh log: the background redirect may truncate the old one only after the first read
  # below, which would then find the previous server's address.
  rm -f "$work/fake.log"
  "$work/fakegithub" -addr 127.0.0.1:0 -state "$1" -dump "$work/dump.json" > "$work/fake.log" 2>&1 &
  fake_pid=$!
  api=$(listening "$work/fake.log") || fail "the fake GitHub API did not start: $(cat "$work/fake.log")"
}
stop_fake() {
  kill -TERM "$fake_pid"; wait "$fake_pid" 2>/dev/null || true; fake_pid=""
  [ -s "$work/dump.json" ] || fail "the fake wrote no dump"
}

# new_repo DIR OWNER/NAME BRANCH: the project's source (the composite action builds it) as the
# base commit on main, origin pointing at GitHub, and BRANCH checked out from it.
new_repo() {
  mkdir -p "$1"
  (cd "$root" && git ls-files -z | xargs -0 tar cf -) | (cd "$1" && tar xf -)
  mkdir -p "$1/.github/workflows"
  cp "$root/testdata/e2e/workflow.yml" "$1/.github/workflows/e2e.yml"
  cp "$root/testdata/e2e/loop.yml" "$1/.github/workflows/loop.yml"
  cd "$1"
  git init -q -b main
  git config user.name agent
  git config user.email agent@example.com
  git remote add origin "https://github.com/$2"
  git add -A
  GIT_COMMITTER_DATE=2026-03-01T09:00:00Z git commit -q --date 2026-03-01T09:00:00Z -m "base"
  git checkout -q -b "$3"
}

# commit MINUTE MESSAGE: an empty commit, or one of the files staged before.
commit() {
  GIT_COMMITTER_DATE="2026-03-01T1${1}Z" git commit -q --allow-empty --date "2026-03-01T1${1}Z" -m "$2"
}

# run_act EVENT PAYLOAD RESULT [ENV...]: the e2e workflow for EVENT under act.
run_act() {
  local event=$1 payload=$2 result=$3
  shift 3
  local envs=()
  for e in "$@"; do envs+=(--env "$e"); done
  ACT_DISABLE_VERSION_CHECK=1 "$act_bin" "$event" -e "$payload" -W .github/workflows/e2e.yml \
    -P ubuntu-latest=-self-hosted --no-cache-server -s GITHUB_TOKEN=test-token \
    --env GITHUB_API_URL="$api" --env E2E_RESULT="$result" "${envs[@]}" > "$work/act.log" 2>&1 \
    || fail "act failed ($event)"
}

if want 1; then
# 1. A stuck loop: the agent keeps failing the same test without changing anything.
new_repo "$work/loop" octo/loop agent/loop
base=$(git rev-parse main)
for i in 1 2 3; do commit "0:1${i}:00" "iteration $i: try again"; done
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
start_fake "$work/seed.json"
result=$work/result.txt
run_act pull_request "$work/event.json" "$result" E2E_REPORTS=report.xml E2E_LOG=agent.log
stop_fake
check "$result" "outcome=failure" "the step should fail when the breaker is OPEN"
check "$result" "state=OPEN" "state output"
check "$result" "allow-continue=false" "allow-continue output"
check "$result" "trigger=no_progress" "trigger output"
check "$result" "iteration=3" "iteration output"
check "$result" "shallow=false" "shallow output"
grep -q '"state":"OPEN"' "$result.decision.json" || fail "decision output is not the JSON decision"
check "$work/act.log" "Summary - ## 🔴 loopbreaker: OPEN" "job summary"
if grep -q '^state=CLOSED' "$result"; then fail "agent text injected an output"; fi
tool open "$work/dump.json" octo/loop 7 "$head" || fail "GitHub side effects of the stuck loop"
echo "e2e: 1 ok (outputs, job summary, labels, sticky comment and status)"
fi

if want 2; then
# 2. Two pull requests on GitHub's test merge commit, five pushes each.
cat > "$work/seed.json" <<JSON
{"repos": [{"owner": "octo", "name": "healthy", "pulls": [{"number": 3, "title": "healthy loop", "user": "agent", "head_ref": "agent/healthy", "base_ref": "main"}]},
           {"owner": "octo", "name": "stuck", "pulls": [{"number": 4, "title": "stuck loop", "user": "agent", "head_ref": "agent/stuck", "base_ref": "main"}]}]}
JSON
start_fake "$work/seed.json"
for kind in healthy stuck; do
  n=3; [ "$kind" = stuck ] && n=4
  new_repo "$work/$kind" "octo/$kind" "agent/$kind"
  base=$(git rev-parse main)
  merge="" states=""
  for i in 1 2 3 4 5; do
    git checkout -q "agent/$kind"
    if [ "$kind" = healthy ]; then
      mkdir -p pkg
      printf 'package pkg\n\nfunc F%d() int { return %d }\n' "$i" "$i" > "pkg/f$i.go"
      printf 'package pkg\n\nimport "testing"\n\nfunc TestF%d(t *testing.T) { _ = F%d() }\n' "$i" "$i" > "pkg/f${i}_test.go"
      git add pkg
    fi
    commit "$i:00:00" "push $i"
    head=$(git rev-parse HEAD)
    # GitHub makes refs/pull/N/merge anew: a fresh checkout has only the new merge commit.
    [ -n "$merge" ] && rm -f ".git/objects/${merge:0:2}/${merge:2}"
    merge=$(GIT_COMMITTER_DATE="2026-03-01T1$i:01:00Z" GIT_AUTHOR_DATE="2026-03-01T1$i:01:00Z" \
      git commit-tree "$head^{tree}" -p "$base" -p "$head" -m "Merge $head into $base")
    git checkout -q --detach "$merge"
    tool push "$api" "octo/$kind" "$n" "$head" "$merge"
    tool event "$api" "octo/$kind" pull_request "number=$n" "$work/event.json" > /dev/null
    result=$work/$kind-$i.txt
    run_act pull_request "$work/event.json" "$result" "GITHUB_RUN_ID=$((500 + i))"
    state=$(sed -n 's/^state=//p' "$result")
    states="$states $state"
    [ -s "$result.record.json" ] || fail "$kind push $i: no record written"
    grep -q "$head" "$result.record.json" || fail "$kind push $i: the record does not name the head $head"
    if grep -q "$merge" "$result.record.json"; then fail "$kind push $i: the record names the merge commit"; fi
    tool upload "$api" "octo/$kind" "$((500 + i))" "$result.record.json" || fail "upload of $kind's record"
  done
  want=" CLOSED CLOSED CLOSED CLOSED CLOSED"
  [ "$kind" = stuck ] && want=" CLOSED HALF_OPEN OPEN OPEN OPEN"
  [ "$states" = "$want" ] || { cat "$work/act.log" | tail -60; fail "$kind: got states$states, want$want"; }
  check "$result" "iteration=5" "$kind: iteration after five pushes"
done
stop_fake
tool status "$work/dump.json" octo/healthy "$(cd "$work/healthy" && git rev-parse agent/healthy)" success || fail "healthy: the head's status"
tool status "$work/dump.json" octo/stuck "$(cd "$work/stuck" && git rev-parse agent/stuck)" failure || fail "stuck: the head's status"
echo "e2e: 2 ok (five pushes on test merge commits: healthy CLOSED, stuck OPEN, records of the heads)"
fi

if want 3; then
# 3. A fork's pull request decided by workflow_run. The decide run checks out the base repository;
# the fork's commits are in it under refs/pull/12/head, as loopbreaker fetches them from GitHub.
new_repo "$work/forkloop" octo/forkloop fork-main
git checkout -q main
mkdir -p .github
printf 'extends = "default"\n' > .github/loopbreaker.toml
git add .github/loopbreaker.toml
commit "0:05:00" "the base's policy"
base=$(git rev-parse main)
git checkout -q -B fork-main
printf 'extends = "default"\n[rules.no_progress]\nenabled = false\n' > .github/loopbreaker.toml
echo 'package main' > fork.go
git add .github/loopbreaker.toml fork.go
commit "0:10:00" "the fork loosens the policy"
for i in 1 2 3; do commit "0:1${i}:00" "iteration $i: try again"; done
head=$(git rev-parse HEAD)
git update-ref refs/pull/12/head "$head"
git checkout -q main
git branch -q -D fork-main
cat > "$work/seed.json" <<JSON
{"tokens": [{"token": "test-token", "login": "github-actions[bot]", "type": "Bot",
             "permissions": {"contents": "read", "pull-requests": "write", "issues": "write", "statuses": "write", "actions": "read"}}],
 "repos": [{"owner": "octo", "name": "forkloop",
   "pulls": [{"number": 12, "title": "a fork's loop", "user": "carol", "fork": true, "head_sha": "$head", "head_ref": "main", "base_ref": "main", "base_sha": "$base"},
             {"number": 14, "title": "another fork's main", "user": "dave", "fork": true, "head_sha": "$(printf 'd%.0s' $(seq 40))", "head_ref": "main", "base_ref": "main", "base_sha": "$base"}],
   "runs": [{"id": 77, "head_branch": "main", "head_sha": "$head", "head_repo": "carol/forkloop", "event": "pull_request", "conclusion": "success"}]}]}
JSON
start_fake "$work/seed.json"
tool event "$api" octo/forkloop workflow_run run_id=77 "$work/event.json" > /dev/null
if grep -q '"number"' "$work/event.json"; then fail "the fork's workflow_run payload lists a pull request"; fi
result=$work/fork.txt
run_act workflow_run "$work/event.json" "$result" E2E_POLICY=.github/loopbreaker.toml GITHUB_RUN_ID=78
stop_fake
check "$result" "state=OPEN" "fork: the base's policy decides (OPEN), not the fork's"
tool fork "$work/dump.json" octo/forkloop 12 14 "$head" || fail "fork: the label and the comment did not land on #12 alone"
echo "e2e: 3 ok (a fork's pull request through workflow_run)"
fi

if want 4; then
# 4. An issue_comment run, on the default branch, while another loop's artifact there is newer.
new_repo "$work/commented" octo/commented agent/commented
base=$(git rev-parse main)
for i in 1 2 3; do
  printf 'package main\n\nfunc f%d() {}\n' "$i" > "f$i.go"
  git add "f$i.go"
  commit "0:1${i}:00" "iteration $i"
done
head=$(git rev-parse HEAD)
git checkout -q main
echo '// the default branch moved on' >> main.go
git add main.go
commit "1:00:00" "main's own work"
other=$(git rev-parse HEAD)
git checkout -q --detach "$head"   # actions/checkout with ref: refs/pull/5/head
mine="[{\"version\":1,\"run_id\":301,\"run_attempt\":1,\"commit\":\"$head\",\"at\":\"2026-03-01T11:00:00Z\",\"errors\":[]}]"
theirs="["
for i in 1 2 3 4 5 6; do
  theirs="$theirs{\"version\":1,\"run_id\":40$i,\"run_attempt\":1,\"commit\":\"$other\",\"at\":\"2026-03-01T12:0${i}:00Z\",\"errors\":[]}"
  [ "$i" = 6 ] || theirs="$theirs,"
done
theirs="$theirs]"
cat > "$work/seed.json" <<JSON
{"repos": [{"owner": "octo", "name": "commented", "permissions": {"maintainer": "write"},
   "pulls": [{"number": 5, "title": "agent loop", "user": "agent", "head_sha": "$head", "head_ref": "agent/commented", "base_ref": "main", "base_sha": "$base"}],
   "comments": [{"number": 5, "id": 5001, "login": "maintainer", "user_type": "User", "body": "/loopbreaker guide keep going", "created_at": "2026-03-01T13:00:00Z"}],
   "runs": [{"id": 301, "path": ".github/workflows/e2e.yml", "head_branch": "agent/commented", "head_sha": "$head", "created_at": "2026-03-01T11:00:00Z"},
            {"id": 406, "path": ".github/workflows/e2e.yml", "head_branch": "main", "head_sha": "$other", "created_at": "2026-03-01T12:30:00Z"}],
   "artifacts": [{"run_id": 301, "name": "loopbreaker-record", "zip_files": {"record.json": $(printf '%s' "$mine" | sed 's/"/\\"/g; s/^/"/; s/$/"/')}},
                 {"run_id": 406, "name": "loopbreaker-record", "zip_files": {"record.json": $(printf '%s' "$theirs" | sed 's/"/\\"/g; s/^/"/; s/$/"/')}}]}]}
JSON
start_fake "$work/seed.json"
tool event "$api" octo/commented issue_comment number=5 comment_id=5001 "$work/event.json" > /dev/null
result=$work/comment.txt
run_act issue_comment "$work/event.json" "$result" GITHUB_RUN_ID=900
stop_fake
check "$result" "state=CLOSED" "issue_comment: another loop's records decided"
check "$work/act.log" "run 301" "issue_comment: the pull request's own artifact (run 301) was not read"
if grep -q "run 406" "$work/act.log"; then fail "issue_comment: the default branch's newer artifact (run 406) was used"; fi
tool status "$work/dump.json" octo/commented "$head" success "$other" || fail "issue_comment: the status of the pull request's head"
echo "e2e: 4 ok (an issue_comment run reads the pull request's own records)"
fi

if want 5; then
# 5. A person's /loopbreaker reset on an OPEN pull request.
new_repo "$work/reset" octo/reset agent/reset
base=$(git rev-parse main)
for i in 1 2 3; do commit "0:1${i}:00" "iteration $i: try again"; done
head=$(git rev-parse HEAD)
cat > "$work/seed.json" <<JSON
{"repos": [{"owner": "octo", "name": "reset", "permissions": {"maintainer": "write"},
   "pulls": [{"number": 9, "title": "agent loop", "user": "agent", "head_sha": "$head", "head_ref": "agent/reset", "base_ref": "main", "base_sha": "$base"}]}]}
JSON
start_fake "$work/seed.json"
tool event "$api" octo/reset pull_request number=9 "$work/event.json" > /dev/null
result=$work/reset-open.txt
run_act pull_request "$work/event.json" "$result" GITHUB_RUN_ID=601
check "$result" "state=OPEN" "reset: the stuck loop did not open"
check "$result" "iteration=3" "reset: iterations before the reset"
# The comment comes after the first run's record (its time is the run's).
last_at=$(grep -o '"at": *"[^"]*"' "$work/reset-open.txt.record.json" | tail -1 | sed 's/.*"\([^"]*\)"$/\1/')
comment_at=$(date -u -d "@$(( $(date -u -d "${last_at%%.*}" +%s) + 1 ))" +%Y-%m-%dT%H:%M:%SZ)
cat > "$work/comment.json" <<JSON
{"repos": [{"owner": "octo", "name": "reset", "comments": [{"number": 9, "id": 9001, "login": "maintainer", "user_type": "User",
   "body": "/loopbreaker reset", "created_at": "$comment_at"}]}]}
JSON
tool seed "$api" "$work/comment.json" || fail "reset: seeding the comment"
tool event "$api" octo/reset issue_comment number=9 comment_id=9001 "$work/event.json" > /dev/null
result=$work/reset.txt
run_act issue_comment "$work/event.json" "$result" GITHUB_RUN_ID=602
stop_fake
check "$result" "outcome=success" "reset: the comment's run failed"
check "$result" "state=CLOSED" "reset: the state after the reset"
check "$result" "iteration=3" "reset: the comment's run added an iteration"
records=$(grep -o '"run_id"' "$result.record.json" | wc -l)
[ "$records" -eq 3 ] || fail "reset: the comment's run wrote $records records, want the 3 it read"
tool reset "$work/dump.json" octo/reset 9 "$head" || fail "reset: labels, the sticky comment or the status"
echo "e2e: 5 ok (a /loopbreaker reset on an OPEN pull request: no iteration, the label gone, the comment and status updated)"
fi
# 6. The agent loop in three jobs (testdata/e2e/loop.yml): the gate, an agent with no write token,
#    and the judge that applies the agent's bundle, pushes it and decides. Each run is the run of a
#    workflow_dispatch made through the fake's API, on main with the loop's branch as an input (the
#    first by run.sh, as a person starts the loop; the next ones by the judge), and runs the copy of
#    loop.yml that the dispatch's ref holds, as GitHub does. Run with an honest agent and with a
#    hostile one that writes $GITHUB_ENV, edits .git, names a failing test after a forged digest and
#    posts a forged sticky comment with a token of loopbreaker's identity: both edit a line, rename
#    a file and delete one, then get stuck; the judge opens at the same iteration, and then the gate
#    refuses to start the agent. A third agent changes the workflow file: it is held at once.
if want 6; then
git_pid=""
stop_git() { [ -n "$git_pid" ] && kill "$git_pid" 2>/dev/null; git_pid=""; }
trap 'stop_git; cleanup' EXIT
# dispatch: a workflow_dispatch of loop.yml on main for agent/loop, as gh workflow run makes it.
dispatch() {
  curl -fsS -X POST -H "Authorization: Bearer test-token" --data-binary '{"ref":"main","inputs":{"branch":"agent/loop"}}' \
    "$api/repos/octo/loop/actions/workflows/loop.yml/dispatches" || fail "loop: the dispatch was refused"
}
# loop6 KIND: runs the loop until the gate refuses or no run is dispatched; writes the iteration
# the judge opened at to $work/opened-KIND.
loop6() {
  local kind=$1
  local dir="$work/loop6-$kind"
  new_repo "$dir" octo/loop agent/loop
  base=$(git rev-parse main)
  printf 'package main\n\nfunc parse() {}\n' > parse.go
  git add parse.go
  commit "0:10:00" "iteration 1: the parser"
  rm -rf "$work/git6" && mkdir -p "$work/git6/octo"
  git clone -q --bare "$dir" "$work/git6/octo/loop.git"
  git -C "$work/git6/octo/loop.git" config http.receivepack true
  rm -f "$work/git.log"
  "$work/tool" gitserve "$work/git6" test-token > "$work/git.log" 2>&1 &
  git_pid=$!
  gitsrv=$(listening "$work/git.log") || fail "loop: the git server did not start: $(cat "$work/git.log")"
  cat > "$work/seed.json" <<JSON
{"repos": [{"owner": "octo", "name": "loop",
   "pulls": [{"number": 7, "title": "agent loop", "user": "agent", "head_sha": "$(git rev-parse HEAD)", "head_ref": "agent/loop", "base_ref": "main", "base_sha": "$base"}]}]}
JSON
  start_fake "$work/seed.json"
  "$work/tool" forge "$(git rev-parse HEAD)" "$work"
  local before hostile=false
  before=$(git rev-parse HEAD)
  case "$kind" in hostile) hostile=true ;; workflow) hostile=workflow ;; esac
  opened="" states=""
  dispatch
  for run in 1 2 3 4 5 6 7 8 9 10; do
    rm -f "$work/loop6.txt" "$work/loop6.txt.record.json"
    # The run the newest dispatch starts, with the workflow file of its ref.
    ref=$("$work/tool" event "$api" octo/loop workflow_dispatch "$work/dispatch.json") || fail "loop: no dispatched run"
    [ "$ref" = refs/heads/main ] || fail "loop ($kind): run $run was dispatched on $ref, not on main"
    mkdir -p "$work/wf" && git show "$ref:.github/workflows/loop.yml" > "$work/wf/loop.yml"
    ACT_DISABLE_VERSION_CHECK=1 "$act_bin" workflow_dispatch -e "$work/dispatch.json" -W "$work/wf/loop.yml" \
      -P ubuntu-latest=-self-hosted --no-cache-server -s GITHUB_TOKEN=test-token -s LOOPBREAKER_DIGEST_KEY=judge-secret \
      --env GITHUB_API_URL="$api" --env GITHUB_SERVER_URL="$gitsrv" --env GITHUB_RUN_ID="$((700 + run))" \
      --env E2E_RESULT="$work/loop6.txt" --env E2E_HANDOVER="$work/handover" --env E2E_PR=7 --env E2E_RUN="$run" \
      --env E2E_HOSTILE="$hostile" --env E2E_FORGED="$(cat "$work/digest.txt")" \
      --env E2E_FORGED_COMMENT="$work/comment.json" --env E2E_AGENT_TOKEN=test-token \
      > "$work/act.log" 2>&1 || fail "loop ($kind): act failed in run $run"
    if [ ! -f "$work/loop6.txt" ]; then
      grep -q "the agent is not started" "$work/act.log" || fail "loop ($kind): run $run: neither the judge nor the gate's refusal"
      break
    fi
    # The record upload of the example's judge: the run is on main, the artifact named for the loop.
    artifact=$(sed -n 's/^artifact=//p' "$work/loop6.txt")
    [ "$artifact" = "loopbreaker-record-agent%2Floop" ] || fail "loop ($kind): the judge names its record $artifact"
    printf '{"repos": [{"owner": "octo", "name": "loop", "runs": [{"id": %d, "path": ".github/workflows/loop.yml", "head_branch": "main", "head_sha": "%s", "event": "workflow_dispatch"}]}]}\n' \
      "$((700 + run))" "$base" > "$work/run.json"
    tool seed "$api" "$work/run.json" || fail "loop ($kind): seeding run $run"
    tool upload "$api" octo/loop "$((700 + run))" "$work/loop6.txt.record.json" "$artifact" || fail "loop ($kind): the upload of run $run's record"
    state=$(sed -n 's/^state=//p' "$work/loop6.txt")
    iteration=$(sed -n 's/^iteration=//p' "$work/loop6.txt")
    trigger=$(sed -n 's/^trigger=//p' "$work/loop6.txt")
    states="$states $state@$iteration"
    [ "$state" = DISABLED ] && fail "loop ($kind): the environment disabled the breaker"
    if [ "$state" = OPEN ] && [ -z "$opened" ]; then opened=$iteration; fi
    # The next run starts from the branch the judge pushed.
    git fetch -q "${gitsrv/http:\/\//http://x-access-token:test-token@}/octo/loop.git" agent/loop
    git reset -q --hard FETCH_HEAD
    if [ "$kind" = workflow ]; then
      [ "$state/$trigger" = OPEN/force_open ] || fail "loop (workflow): the judge did not hold the loop: $state $trigger"
      [ "$(git rev-parse HEAD)" = "$before" ] || fail "loop (workflow): the judge pushed the agent's change of its workflow"
      break
    fi
    # The judge dispatched the next run while the breaker let it; once it did not, a person
    # starts one more, which the gate must refuse.
    [ "$(curl -fsS "$api/_fake/dump" | grep -c '"workflow": "loop.yml"')" -gt "$run" ] || dispatch
  done
  stop_fake
  stop_git
  echo "e2e: loop ($kind):$states"
  [ "$kind" = workflow ] && return
  [ -n "$opened" ] || fail "loop ($kind): the judge never opened:$states"
  [ -f "$work/loop6.txt" ] && fail "loop ($kind): the gate never refused to start the agent:$states"
  [ "$(git rev-list --count main..HEAD)" -ge 5 ] || fail "loop ($kind): the judge did not push the agent's commits"
  [ -f parser.go ] && [ ! -f parse.go ] && [ ! -f CHANGELOG.md ] && grep -q '_ = 1' parser.go ||
    fail "loop ($kind): the agent's edit, rename and deletion were not pushed"
  echo "$opened" > "$work/opened-$kind"
}
loop6 honest
loop6 hostile
honest=$(cat "$work/opened-honest") hostile=$(cat "$work/opened-hostile")
[ "$honest" = "$hostile" ] || fail "loop: an honest agent's breaker opened at iteration $honest, the hostile one's at $hostile"
tool status "$work/dump.json" octo/loop "$(git -C "$work/loop6-hostile" rev-parse HEAD)" failure || fail "loop: the hostile loop's head has no failing status"
# Once loopbreaker has a sealed comment, it reads and edits that one: the forged comments of the
# later iterations stay as the agent posted them (the first iteration's, with nothing sealed yet,
# was taken over and overwritten).
[ "$(grep -o 'all good, keep going' "$work/dump.json" | wc -l)" -ge 2 ] || fail "loop: the hostile agent's forged comments were never posted, or were edited"
loop6 workflow
echo "e2e: 6 ok (gate, agent and judge apart, each run main's workflow: a hostile agent's breaker opens at iteration $hostile, as an honest one's; a change of the workflow is held and not pushed)"
fi

echo "e2e: ok"
