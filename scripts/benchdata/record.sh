#!/usr/bin/env bash
# The bash + jq baseline of `loopbreaker record`, for scripts/bench.sh: one loop iteration's
# update of a JSON circuit-breaker state file, written the way shell-driven agent loops keep
# their breaker (read the counters with jq, decide in bash, write a temporary file with jq and
# move it over the state). It keeps the same kind of state as `record`: the circuit state, the
# iteration number, the consecutive no-progress and same-error counters, the last test counts,
# error signatures (normalised, SHA-256) with their counts, the recent output volumes, and a
# bounded history of transitions; then it prints the decision as JSON.
#
# Usage: record.sh [--tuned] STATE FILES_CHANGED TESTS_PASSING TESTS_FAILING OUTPUT_LINES [ERROR]
#
# By default each value is read with its own jq call, as shell loops usually do; --tuned reads
# them all with one jq call and writes and prints with one more (the fastest form of the same
# update, for comparison).
set -euo pipefail

tuned=false
if [ "${1:-}" = "--tuned" ]; then tuned=true; shift; fi
if [ $# -lt 5 ]; then
  echo "usage: record.sh [--tuned] STATE FILES_CHANGED TESTS_PASSING TESTS_FAILING OUTPUT_LINES [ERROR]" >&2
  exit 2
fi
state=$1 files=$2 passing=$3 failing=$4 output=$5 error=${6:-}
half_open_after=2 no_progress_threshold=3 same_error_threshold=5 history_max=100 outputs_max=10
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)

if [ ! -f "$state" ]; then
  jq -n --arg now "$now" '{version: 1, state: "CLOSED", iteration: 0, consecutive_no_progress: 0,
    consecutive_same_error: 0, last_error: "", tests_passing: 0, tests_failing: 0,
    last_progress: null, opened_at: null, ignored_open: 0, error_counts: {}, outputs: [],
    history: [], created_at: $now}' > "$state"
fi

# The error signature: line and column numbers, hex addresses and durations normalised away.
sig="" sample=""
if [ -n "$error" ]; then
  sample=$(printf '%s' "${error:0:1024}" | sed -E 's/0x[0-9a-fA-F]+/0xN/g; s/[0-9]+(\.[0-9]+)?(ms|s)\b/Ns/g; s/:[0-9]+(:[0-9]+)?/:N/g')
  sig=$(printf '%s' "$sample" | sha256sum | cut -d' ' -f1)
fi

if $tuned; then
  IFS='|' read -r cur iter no_progress same_error last_error prev_passing prev_failing ignored < <(
    jq -r '[.state, .iteration, .consecutive_no_progress, .consecutive_same_error, .last_error,
      .tests_passing, .tests_failing, .ignored_open] | map(tostring) | join("|")' "$state")
else
  cur=$(jq -r '.state' "$state")
  iter=$(jq -r '.iteration' "$state")
  no_progress=$(jq -r '.consecutive_no_progress' "$state")
  same_error=$(jq -r '.consecutive_same_error' "$state")
  last_error=$(jq -r '.last_error' "$state")
  prev_passing=$(jq -r '.tests_passing' "$state")
  prev_failing=$(jq -r '.tests_failing' "$state")
  ignored=$(jq -r '.ignored_open' "$state")
fi

iter=$((iter + 1))
progress=false
if [ "$files" -gt 0 ] || [ "$passing" -gt "$prev_passing" ] ||
  { [ "$failing" -lt "$prev_failing" ] && [ $((passing + failing)) -eq $((prev_passing + prev_failing)) ]; }; then
  progress=true
fi
if $progress; then no_progress=0; else no_progress=$((no_progress + 1)); fi
if [ -n "$sig" ] && [ "$sig" = "$last_error" ]; then
  same_error=$((same_error + 1))
elif [ -n "$sig" ]; then
  same_error=1
else
  same_error=0
fi

next=$cur reason=""
case $cur in
  OPEN)
    ignored=$((ignored + 1)) ;;
  *)
    if [ "$same_error" -ge "$same_error_threshold" ]; then
      next=OPEN reason="same error in $same_error consecutive iterations"
    elif [ "$no_progress" -ge "$no_progress_threshold" ]; then
      next=OPEN reason="no progress in $no_progress consecutive iterations"
    elif [ "$no_progress" -ge "$half_open_after" ]; then
      next=HALF_OPEN reason="no progress in $no_progress consecutive iterations"
    elif $progress; then
      next=CLOSED reason=""
    fi ;;
esac

tmp=$(mktemp "$state.XXXXXX")
# shellcheck disable=SC2016 # jq variables, not shell ones
update='.state = $next | .iteration = $iter | .consecutive_no_progress = $np
  | .consecutive_same_error = $se | .last_error = $sig | .tests_passing = $passing
  | .tests_failing = $failing | .ignored_open = $ignored
  | (if $progress then .last_progress = $now else . end)
  | (if $sig != "" then .error_counts[$sig] = {sample: $sample, count: ((.error_counts[$sig].count // 0) + 1)} else . end)
  | .outputs = ((.outputs + [$output])[-($omax):])
  | (if $next != $cur then
      .history = ((.history + [{at: $now, iteration: $iter, from: $cur, to: $next, reason: $reason}])[-($hmax):])
      | (if $next == "OPEN" then .opened_at = $now else . end)
    else . end)
  | .updated_at = $now'
decision='{state, allow_continue: (.state != "OPEN"), iteration, consecutive_no_progress,
  consecutive_same_error, last_progress, opened_at, ignored_open,
  error_counts: (.error_counts | map_values(.count)), output_trend: .outputs, history}'
args=(--arg next "$next" --arg cur "$cur" --argjson iter "$iter" --argjson np "$no_progress"
  --argjson se "$same_error" --arg sig "$sig" --arg sample "$sample" --argjson passing "$passing"
  --argjson failing "$failing" --argjson ignored "$ignored" --argjson progress "$progress"
  --argjson output "$output" --arg now "$now" --arg reason "$reason"
  --argjson omax "$outputs_max" --argjson hmax "$history_max")
if $tuned; then
  # One call prints the new state and the decision, one line each.
  jq -c "${args[@]}" "$update | (., $decision)" "$state" | {
    IFS= read -r new && printf '%s\n' "$new" > "$tmp" && IFS= read -r out && printf '%s\n' "$out"
  }
else
  jq "${args[@]}" "$update" "$state" > "$tmp"
fi
mv "$tmp" "$state"
if ! $tuned; then
  jq -c "$decision" "$state"
fi
if [ "$next" = OPEN ]; then exit 1; fi
