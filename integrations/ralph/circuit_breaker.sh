#!/usr/bin/env bash
# loopbreaker as ralph-claude-code's circuit breaker: a drop-in for ralph's
# lib/circuit_breaker.sh with the same functions, return codes and state
# file, deciding with `loopbreaker record` under the ralph policy tuned by
# ralph's CB_* settings (.ralphrc or the environment).
#
# Install: copy this file over lib/circuit_breaker.sh of a ralph install
# (or source it after it). Needs loopbreaker and jq on PATH.
#
# What differs from ralph's own breaker: progress is the meaningful change
# of the working tree since the previous loop (lock files, ralph's own
# files, notes and whitespace are not progress), not a count of changed
# files, and the agent's claims (a completion signal, its FILES_MODIFIED)
# are never progress; the breaker's state lives outside the working tree,
# where the agent cannot reset it by deleting a file, as the project's
# "ralph" loop (`loopbreaker status` and `loopbreaker reset` in the project
# find it); a breaker that cannot decide halts the loop.

CB_STATE_CLOSED="CLOSED"
CB_STATE_HALF_OPEN="HALF_OPEN"
CB_STATE_OPEN="OPEN"

RALPH_DIR="${RALPH_DIR:-.ralph}"
CB_STATE_FILE="$RALPH_DIR/.circuit_breaker_state"
CB_HISTORY_FILE="$RALPH_DIR/.circuit_breaker_history"

CB_NO_PROGRESS_THRESHOLD=${CB_NO_PROGRESS_THRESHOLD:-3}
CB_SAME_ERROR_THRESHOLD=${CB_SAME_ERROR_THRESHOLD:-5}
CB_OUTPUT_DECLINE_THRESHOLD=${CB_OUTPUT_DECLINE_THRESHOLD:-70}
CB_PERMISSION_DENIAL_THRESHOLD=${CB_PERMISSION_DENIAL_THRESHOLD:-2}
CB_COOLDOWN_MINUTES=${CB_COOLDOWN_MINUTES:-30}
CB_AUTO_RESET=${CB_AUTO_RESET:-false}

LOOPBREAKER_BIN="${LOOPBREAKER_BIN:-loopbreaker}"

# _lb_dir: where this project's policy is written, outside the working tree.
_lb_dir() {
    local root="${LOOPBREAKER_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/loopbreaker}"
    local key
    key=$(printf '%s' "$PWD" | sha256sum | cut -c1-12)
    printf '%s/ralph/%s-%s' "$root" "$(basename "$PWD" | tr -c 'A-Za-z0-9._-' '_')" "$key"
}

# _lb_policy: writes the ralph policy with the CB_* settings and prints its path.
_lb_policy() {
    local dir
    dir=$(_lb_dir)
    mkdir -p "$dir" || return 1
    local cooldown=""
    if [[ "$CB_COOLDOWN_MINUTES" =~ ^[0-9]+$ ]]; then
        cooldown="${CB_COOLDOWN_MINUTES}m"
    fi
    local n
    for n in "$CB_NO_PROGRESS_THRESHOLD" "$CB_SAME_ERROR_THRESHOLD" "$CB_OUTPUT_DECLINE_THRESHOLD" "$CB_PERMISSION_DENIAL_THRESHOLD"; do
        if [[ ! "$n" =~ ^[0-9]+$ ]]; then
            echo "loopbreaker: a CB_* threshold is not a whole number: '$n'" >&2
            return 1
        fi
    done
    # The loop's own evidence decides: the ralph policy's progress signals
    # without its "claims" (an agent that only reports FILES_MODIFIED, or
    # says it is done, makes no progress by saying so).
    cat > "$dir/policy.toml.tmp" <<POLICY
extends = "ralph"
name = "ralph-cb"

[progress]
  signals = ["files"]

[breaker]
  cooldown = "$cooldown"

[rules.no_progress]
  no_progress_threshold = $CB_NO_PROGRESS_THRESHOLD

[rules.same_error]
  same_error_threshold = $CB_SAME_ERROR_THRESHOLD

[rules.output_decline]
  output_decline_percent = $CB_OUTPUT_DECLINE_THRESHOLD

[rules.permission_denied]
  permission_denied_threshold = $CB_PERMISSION_DENIAL_THRESHOLD
POLICY
    mv "$dir/policy.toml.tmp" "$dir/policy.toml" && printf '%s/policy.toml' "$dir"
}

# _lb: runs loopbreaker on this project's "ralph" loop with the policy.
_lb() {
    local cmd=$1
    shift
    local policy
    policy=$(_lb_policy) || return 2
    "$LOOPBREAKER_BIN" "$cmd" --repo "$PWD" --loop ralph --policy "$policy" "$@"
}

# _lb_mirror: writes ralph's state file from a loopbreaker decision (JSON on
# stdin), for ralph_loop.sh and ralph_monitor.sh, which read it; a change of
# state is added to ralph's history file.
_lb_mirror() {
    local decision loop_number=${1:-0}
    decision=$(cat)
    local from
    from=$(jq -r '.state // "CLOSED"' "$CB_STATE_FILE" 2>/dev/null || echo "$CB_STATE_CLOSED")
    mkdir -p "$(dirname "$CB_STATE_FILE")"
    printf '%s' "$decision" | jq --argjson loop "$loop_number" '{
        state: .state,
        last_change: (.at // (now | todate)),
        consecutive_no_progress: .consecutive_no_progress,
        consecutive_same_error: ([.error_counts[]?] | max // 0),
        consecutive_permission_denials: 0,
        last_progress_loop: 0,
        total_opens: ([.history[]? | select(.to == "OPEN")] | length),
        reason: (.reason // ""),
        current_loop: $loop
      } + (if .opened_at then {opened_at: .opened_at} else {} end)' > "$CB_STATE_FILE.tmp" && mv "$CB_STATE_FILE.tmp" "$CB_STATE_FILE"
    local to
    to=$(printf '%s' "$decision" | jq -r '.state')
    if [[ "$to" != "$from" ]]; then
        log_circuit_transition "$from" "$to" "$(printf '%s' "$decision" | jq -r '.reason // "reset"')" "$loop_number"
    fi
}

init_circuit_breaker() {
    mkdir -p "$RALPH_DIR"
    if [[ ! -f "$CB_HISTORY_FILE" ]] || ! jq '.' "$CB_HISTORY_FILE" >/dev/null 2>&1; then
        echo '[]' > "$CB_HISTORY_FILE"
    fi
    local decision code
    decision=$(_lb status --format json)
    code=$?
    if [[ $code -eq 2 || $code -eq 3 ]]; then
        echo "loopbreaker: the breaker could not be read (exit $code)" >&2
        return 1
    fi
    if [[ "$(printf '%s' "$decision" | jq -r '.state')" == "$CB_STATE_OPEN" && "$CB_AUTO_RESET" == "true" ]]; then
        decision=$(_lb reset --reason "Auto-reset on startup (CB_AUTO_RESET=true)" --format json) || return 1
    fi
    printf '%s' "$decision" | _lb_mirror "$(jq -r '.current_loop // 0' "$CB_STATE_FILE" 2>/dev/null || echo 0)"
}

get_circuit_state() {
    local state
    state=$(_lb status --format json | jq -r '.state' 2>/dev/null)
    echo "${state:-$CB_STATE_CLOSED}"
}

can_execute() {
    [[ "$(get_circuit_state)" != "$CB_STATE_OPEN" ]]
}

# record_loop_result LOOP FILES_CHANGED HAS_ERRORS OUTPUT_LENGTH: one
# iteration. Returns 1 when the loop must stop (OPEN, paused, or the
# breaker could not decide), 0 when it may go on.
record_loop_result() {
    local loop_number=$1 files_changed=$2 has_errors=$3 output_length=$4
    local args=(--format json)
    [[ "$output_length" =~ ^[0-9]+$ ]] && args+=(--output-length "$output_length")
    [[ "$has_errors" == "true" ]] && args+=(--error "errors detected in the agent's output")
    local log
    log=$(ls -t "$RALPH_DIR"/logs/claude_output_*.log 2>/dev/null | head -1)
    [[ -n "$log" && -f "$log" ]] && args+=(--log "$log")
    local analysis="$RALPH_DIR/.response_analysis"
    if [[ -f "$analysis" ]]; then
        if [[ "$(jq -r '.analysis.has_completion_signal // false' "$analysis" 2>/dev/null)" == "true" ||
              "$(jq -r '.analysis.exit_signal // false' "$analysis" 2>/dev/null)" == "true" ]]; then
            args+=(--completion)
        fi
        # .analysis.files_modified is ralph's own count of changed files
        # when the agent gave none: not read, the working tree is measured
        # instead (the agent's FILES_MODIFIED comes with the log).
        [[ "$(jq -r '.analysis.has_permission_denials // false' "$analysis" 2>/dev/null)" == "true" ]] && args+=(--permission-denials 1)
        [[ "$(jq -r '.analysis.asking_questions // false' "$analysis" 2>/dev/null)" == "true" ]] && args+=(--asking-questions)
    fi
    local decision code
    decision=$(_lb record "${args[@]}")
    code=$?
    case $code in
        0 | 1 | 4 | 5) printf '%s' "$decision" | _lb_mirror "$loop_number" ;;
    esac
    case $code in
        0) return 0 ;;
        4) echo "loopbreaker: done: the work is complete" >&2; return 0 ;;
        1 | 5) return 1 ;;
    esac
    echo "loopbreaker: the breaker could not decide (exit $code): halting the loop" >&2
    return 1
}

log_circuit_transition() {
    local from_state=$1 to_state=$2 reason=$3 loop_number=$4
    [[ "$loop_number" =~ ^[0-9]+$ ]] || loop_number=0
    local history='[]'
    [[ -f "$CB_HISTORY_FILE" ]] && history=$(cat "$CB_HISTORY_FILE")
    printf '%s' "$history" | jq --arg from "$from_state" --arg to "$to_state" --arg reason "$reason" --argjson loop "$loop_number" \
        '. + [{timestamp: (now | todate), loop: $loop, from_state: $from, to_state: $to, reason: $reason}]' > "$CB_HISTORY_FILE.tmp" &&
        mv "$CB_HISTORY_FILE.tmp" "$CB_HISTORY_FILE"
    echo "loopbreaker: circuit breaker $from_state -> $to_state: $reason"
}

show_circuit_status() {
    _lb status
}

reset_circuit_breaker() {
    local reason=${1:-"Manual reset"}
    local decision
    decision=$(_lb reset --reason "$reason" --format json) || return 1
    printf '%s' "$decision" | _lb_mirror 0
    echo "loopbreaker: circuit breaker reset to CLOSED: $reason"
}

# should_halt_execution: 0 (halt) when the breaker is OPEN or paused, or
# cannot be read; 1 when the loop may go on.
should_halt_execution() {
    local out code
    out=$(_lb status 2>&1)
    code=$?
    case $code in
        0 | 4) return 1 ;;
    esac
    printf '%s\n\n' "$out"
    echo "loopbreaker: execution halted (exit $code). Reset when the cause is fixed: ralph --reset-circuit"
    return 0
}

export -f _lb_dir _lb_policy _lb _lb_mirror
export -f init_circuit_breaker
export -f get_circuit_state
export -f can_execute
export -f record_loop_result
export -f log_circuit_transition
export -f show_circuit_status
export -f reset_circuit_breaker
export -f should_halt_execution
