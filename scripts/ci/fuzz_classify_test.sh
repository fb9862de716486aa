#!/usr/bin/env bash
# Checks how scripts/fuzz.sh tells a crash from Go 1.26's fuzzing deadline race
# (golang/go#75804), on logs shaped like the ones `go test -fuzz` prints.
set -euo pipefail
cd "$(dirname "$0")/../.."

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

# expect WANT STATUS: classify stdin's log, which ended with exit STATUS.
expect() {
  local want=$1 status=$2 log=$dir/log got
  cat >"$log"
  got=$(bash scripts/fuzz.sh --classify "$log" "$status")
  if [ "$got" != "$want" ]; then
    echo "fuzz_classify_test: case $case: got $got, want $want" >&2
    failures=$((failures + 1))
  fi
}

case=passed
expect ok 0 <<'LOG'
fuzz: elapsed: 5s, execs: 200201 (43055/sec), new interesting: 1 (total: 313)
PASS
ok  	example.com/m/p	5.129s
LOG

case=bare-deadline
expect deadline 1 <<'LOG'
fuzz: elapsed: 5s, execs: 169755 (37764/sec), new interesting: 0 (total: 154)
--- FAIL: FuzzXMLGuard (5.08s)
    context deadline exceeded
FAIL
exit status 1
FAIL	example.com/m/p	5.087s
LOG

case=written-input
expect crash 1 <<'LOG'
fuzz: elapsed: 2s, execs: 1000 (500/sec), new interesting: 0 (total: 10)
--- FAIL: FuzzParse (2.01s)
    --- FAIL: FuzzParse (0.00s)
        testing.go:1591: panic: runtime error: index out of range [3] with length 3
    Failing input written to testdata/fuzz/FuzzParse/0123abcd
    To re-run:
    go test -run=FuzzParse/0123abcd
FAIL
exit status 1
FAIL	example.com/m/p	2.020s
LOG

case=deadline-and-error
expect crash 1 <<'LOG'
--- FAIL: FuzzParse (5.01s)
    context deadline exceeded
    parse_test.go:40: round trip changed the value
FAIL
exit status 1
FAIL	example.com/m/p	5.020s
LOG

case=hung-worker
expect crash 1 <<'LOG'
--- FAIL: FuzzParse (15.00s)
    fuzzing process hung or terminated unexpectedly: exit status 2
FAIL
exit status 1
FAIL	example.com/m/p	15.020s
LOG

case=build-failure
expect crash 1 <<'LOG'
# example.com/m/p [example.com/m/p.test]
./parse_test.go:12:2: undefined: nosuch
FAIL	example.com/m/p [build failed]
LOG

# The whole run, with a stand-in for `go` that answers from a script: one line
# per call, "deadline", "crash" or "ok". Checks the retry and the exit status.
mkdir "$dir/bin"
cat >"$dir/bin/go" <<'GO'
#!/usr/bin/env bash
n=$(($(cat "$FAKE_GO_CALLS" 2>/dev/null || echo 0) + 1))
echo "$n" >"$FAKE_GO_CALLS"
echo "$*" >>"$FAKE_GO_ARGS"
case $(sed -n "${n}p" "$FAKE_GO_SCRIPT") in
deadline) printf -- '--- FAIL: FuzzTAP (5.08s)\n    context deadline exceeded\nFAIL\n'; exit 1 ;;
crash) printf -- '--- FAIL: FuzzTAP (0.10s)\n    Failing input written to testdata/fuzz/FuzzTAP/00\nFAIL\n'; exit 1 ;;
ok) echo PASS; exit 0 ;;
*) echo "fake go: no answer for call $n" >&2; exit 3 ;;
esac
GO
chmod +x "$dir/bin/go"

# run WANT-STATUS WANT-CALLS ANSWERS...: fuzz FuzzTAP alone with the stand-in.
run() {
  local want_status=$1 want_calls=$2 status=0
  shift 2
  printf '%s\n' "$@" >"$dir/script"
  rm -f "$dir/calls" "$dir/args"
  PATH="$dir/bin:$PATH" FAKE_GO_SCRIPT="$dir/script" FAKE_GO_CALLS="$dir/calls" \
    FAKE_GO_ARGS="$dir/args" bash scripts/fuzz.sh 1s '^FuzzTAP$' >"$dir/out" 2>&1 || status=$?
  if [ "$status" != "$want_status" ] || [ "$(cat "$dir/calls")" != "$want_calls" ]; then
    echo "fuzz_classify_test: run $case: exit $status after $(cat "$dir/calls") calls," \
      "want exit $want_status after $want_calls" >&2
    cat "$dir/out" >&2
    failures=$((failures + 1))
  fi
}

case=fuzz-passes
run 0 1 ok
case=deadline-then-pass
run 0 3 deadline ok ok
# the second call replays the corpus: the target's tests, no fuzzing
replay=$(sed -n 2p "$dir/args")
if [[ "$replay" != *"-run ^FuzzTAP\$"* || "$replay" == *-fuzz* ]]; then
  echo "fuzz_classify_test: run $case: the second call is not a replay: go $replay" >&2
  failures=$((failures + 1))
fi
case=deadline-twice-replay-clean
run 0 3 deadline ok deadline
grep -q 'FuzzTAP *deadline' "$dir/out" || {
  echo "fuzz_classify_test: run $case: the summary does not say deadline" >&2
  failures=$((failures + 1))
}
case=deadline-then-replay-fails
run 1 2 deadline crash
case=deadline-then-crash
run 1 3 deadline ok crash
case=crash-is-not-retried
run 1 1 crash

if [ "$failures" -gt 0 ]; then
  exit 1
fi
echo "fuzz_classify_test: ok"
