#!/usr/bin/env bash
# Runs every Go fuzz target of the module, one after the other, for a given
# time each (default 10s), and fails when any of them finds a crash. A crash
# leaves its input under the package's testdata/fuzz/FuzzXxx/ for `go test`
# to replay. Usage: scripts/fuzz.sh [DURATION] [TARGET-REGEXP]
#   FUZZ_PARALLEL  workers per target (default: all cores)
#   FUZZ_MINIMIZE  time spent minimising a new input (default 5s)
#
# Go 1.26's fuzzing coordinator can fail a target with a bare "context
# deadline exceeded" when -fuzztime runs out while a worker is mid-call
# (golang/go#75804, fixed in Go 1.27). That failure writes no input and
# names no fault. Such a target has its corpus replayed and is fuzzed once
# more; only a second bare deadline with a clean replay is reported as a
# deadline, not a crash. Anything else that fails is a crash.
#
# scripts/fuzz.sh --classify LOG prints how one `go test -fuzz` log ended:
# ok, crash or deadline (the log's exit status is given as $2, default 1).
set -euo pipefail
cd "$(dirname "$0")/.."

# classify LOG STATUS: ok, crash or deadline.
classify() {
  local log=$1 status=$2
  if [ "$status" = 0 ]; then
    echo ok
    return
  fi
  # A failure is the coordinator's deadline race only when nothing but
  # "context deadline exceeded" lies between the target's --- FAIL line and
  # the package's FAIL line, and no failing input was written.
  if grep -q 'Failing input written to' "$log"; then
    echo crash
    return
  fi
  if awk '
    /^--- FAIL: Fuzz/ { failed++; inside = 1; next }
    inside && /^FAIL$/ { inside = 0; next }
    inside && /^[ \t]+context deadline exceeded[ \t]*$/ { deadline++; next }
    inside { other++ }
    END { exit !(failed == 1 && deadline >= 1 && other == 0) }
  ' "$log"; then
    echo deadline
  else
    echo crash
  fi
}

if [ "${1:-}" = --classify ]; then
  classify "$2" "${3:-1}"
  exit 0
fi

duration=${1:-10s}
only=${2:-.}
parallel=${FUZZ_PARALLEL:-}
minimize=${FUZZ_MINIMIZE:-5s}

# package directory and target name of every fuzz target, sorted
targets=$(git ls-files --cached --others --exclude-standard '*_test.go' |
  xargs grep -H '^func Fuzz[A-Za-z0-9_]*(f \*testing\.F)' |
  sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#\1 \2#' | sort)

if [ -z "$targets" ]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi

# fuzz DIR NAME LOG: one fuzzing run, teed to LOG; prints ok, crash or deadline.
fuzz() {
  local dir=$1 name=$2 log=$3 status=0
  local args=(-run '^$' -fuzz "^${name}\$" -fuzztime "$duration" -fuzzminimizetime "$minimize")
  if [ -n "$parallel" ]; then
    args+=(-parallel "$parallel")
  fi
  go test "${args[@]}" "./$dir" 2>&1 | tee "$log" >&2 || status=${PIPESTATUS[0]}
  classify "$log" "$status"
}

failed=()
summary=()
while read -r dir name; do
  if ! [[ "$name" =~ $only ]]; then
    continue
  fi
  echo "== fuzz ./$dir $name for $duration"
  log=$(mktemp)
  result=$(fuzz "$dir" "$name" "$log")
  if [ "$result" = deadline ]; then
    echo "fuzz: $name: the fuzzing engine's deadline race (golang/go#75804), no input written;" \
      "replaying the corpus and fuzzing once more"
    if go test -run "^${name}\$" "./$dir"; then
      result=$(fuzz "$dir" "$name" "$log")
    else
      result=crash
    fi
  fi
  shown=$result
  if [ "$result" = crash ]; then
    shown=FAIL
    failed+=("./$dir $name")
  fi
  execs=$(grep -o 'execs: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2 || true)
  corpus=$(grep -o 'total: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2 || true)
  summary+=("$(printf '%-40s %-20s %8s execs=%s corpus=%s' "./$dir" "$name" "$shown" "${execs:-0}" "${corpus:-0}")")
  rm -f "$log"
done <<<"$targets"

echo "== fuzz summary ($duration each)"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes found in:" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
