#!/usr/bin/env bash
# Runs every Go fuzz target of the module, one after the other, for a given
# time each (default 10s), and fails when any of them finds a crash. A crash
# leaves its input under the package's testdata/fuzz/FuzzXxx/ for `go test`
# to replay. Usage: scripts/fuzz.sh [DURATION] [TARGET-REGEXP]
#   FUZZ_PARALLEL  workers per target (default: all cores)
#   FUZZ_MINIMIZE  time spent minimising a new input (default 5s)
set -euo pipefail
cd "$(dirname "$0")/.."

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

failed=()
summary=()
while read -r dir name; do
  if ! [[ "$name" =~ $only ]]; then
    continue
  fi
  echo "== fuzz ./$dir $name for $duration"
  log=$(mktemp)
  args=(-run '^$' -fuzz "^${name}\$" -fuzztime "$duration" -fuzzminimizetime "$minimize")
  if [ -n "$parallel" ]; then
    args+=(-parallel "$parallel")
  fi
  if go test "${args[@]}" "./$dir" 2>&1 | tee "$log"; then
    result=ok
  else
    result=FAIL
    failed+=("./$dir $name")
  fi
  execs=$(grep -o 'execs: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
  corpus=$(grep -o 'total: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
  summary+=("$(printf '%-40s %-20s %5s execs=%s corpus=%s' "./$dir" "$name" "$result" "${execs:-0}" "${corpus:-0}")")
  rm -f "$log"
done <<<"$targets"

echo "== fuzz summary ($duration each)"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes found in:" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
