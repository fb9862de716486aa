#!/usr/bin/env bats
# The drop-in for ralph-claude-code's breaker, in ralph's call order:
# init_circuit_breaker once, then each loop should_halt_execution, the
# agent, record_loop_result LOOP FILES_CHANGED HAS_ERRORS OUTPUT_LENGTH.
# With RALPH_CHECKOUT set to a ralph-claude-code checkout, ralph's own
# ralph_loop.sh runs with the drop-in against a fake claude as well.
#
# Needs loopbreaker (or LOOPBREAKER_BIN), jq and git.

setup() {
    DROPIN="$BATS_TEST_DIRNAME/circuit_breaker.sh"
    export LOOPBREAKER_STATE_DIR="$BATS_TEST_TMPDIR/state"
    PROJECT="$BATS_TEST_TMPDIR/project"
    mkdir -p "$PROJECT/.ralph/logs" "$PROJECT/src"
    cd "$PROJECT"
    git init -q
    printf 'package main\n' > src/main.go
    printf 'Build the CLI.\n' > .ralph/PROMPT.md
    printf -- '- [ ] parse flags\n' > .ralph/fix_plan.md
    printf 'go build\n' > .ralph/AGENT.md
    : > .ralphrc
    git add -A
    git -c user.email=agent@example.com -c user.name=agent commit -qm init
}

# agent_notes: an iteration that only adds a line to its TODO notes (ralph
# would count one changed file).
agent_notes() {
    echo "- still looking at the flags ($1)" >> TODO.md
}

# agent_code: an iteration that changes code.
agent_code() {
    printf 'package main\n\n// step %s\nfunc parse() {}\n' "$1" > src/parse.go
}

# run_loop AGENT MAX: ralph's loop body in its order; prints the loop at
# which it halted (0: it never did).
run_loop() {
    local agent=$1 max=$2 loop
    source "$DROPIN"
    [[ -f .ralphrc ]] && source .ralphrc # ralph loads .ralphrc after its libraries
    init_circuit_breaker >/dev/null || { echo "init failed"; return 1; }
    for ((loop = 1; loop <= max; loop++)); do
        if should_halt_execution >/dev/null; then
            echo "halted before $loop"
            return 0
        fi
        AGENT_LOG=""
        "$agent" "$loop" # an agent that writes ralph's log of the loop itself sets AGENT_LOG
        [[ -n "$AGENT_LOG" ]] || echo "loop $loop output" > ".ralph/logs/claude_output_$loop.log"
        if ! record_loop_result "$loop" 1 false 100 >/dev/null; then
            echo "opened at $loop"
            return 0
        fi
    done
    echo "never"
}

@test "notes-only iterations open at CB_NO_PROGRESS_THRESHOLD (3)" {
    run run_loop agent_notes 10
    [ "$status" -eq 0 ]
    [ "$output" = "opened at 3" ]
    [ "$(jq -r .state .ralph/.circuit_breaker_state)" = "OPEN" ]
    [ "$(jq -r '.[-1].to_state' .ralph/.circuit_breaker_history)" = "OPEN" ]
}

@test ".ralphrc's CB_NO_PROGRESS_THRESHOLD is honoured" {
    echo "CB_NO_PROGRESS_THRESHOLD=5" > .ralphrc
    run run_loop agent_notes 10
    [ "$output" = "opened at 5" ]
}

@test "iterations that change code never open" {
    run run_loop agent_code 6
    [ "$output" = "never" ]
    [ "$(jq -r .state .ralph/.circuit_breaker_state)" = "CLOSED" ]
}

@test "permission denials open at CB_PERMISSION_DENIAL_THRESHOLD (2)" {
    agent_denied() {
        agent_code "$1"
        echo '{"analysis": {"has_permission_denials": true}}' > .ralph/.response_analysis
    }
    run run_loop agent_denied 10
    [ "$output" = "opened at 2" ]
    [[ "$(jq -r .reason .ralph/.circuit_breaker_state)" == *"permission"* ]]
}

@test "an OPEN breaker halts the next run until reset_circuit_breaker" {
    run run_loop agent_notes 10
    [ "$output" = "opened at 3" ]
    run run_loop agent_code 1
    [ "$output" = "halted before 1" ]
    source "$DROPIN"
    reset_circuit_breaker "Manual reset via command line"
    [ "$(get_circuit_state)" = "CLOSED" ]
    [ "$(jq -r .state .ralph/.circuit_breaker_state)" = "CLOSED" ]
    run run_loop agent_code 2
    [ "$output" = "never" ]
}

@test "CB_AUTO_RESET=true resets an OPEN breaker at start-up" {
    run run_loop agent_notes 10
    [ "$output" = "opened at 3" ]
    echo "CB_AUTO_RESET=true" > .ralphrc
    CB_AUTO_RESET=true run run_loop agent_code 2
    [ "$output" = "never" ]
}

@test "deleting ralph's state file does not reset the breaker" {
    run run_loop agent_notes 10
    [ "$output" = "opened at 3" ]
    rm -f .ralph/.circuit_breaker_state .ralph/.circuit_breaker_history
    run run_loop agent_code 1
    [ "$output" = "halted before 1" ]
}

@test "an agent that only claims FILES_MODIFIED makes no progress" {
    agent_claims() {
        printf -- '---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nFILES_MODIFIED: 3\nTESTS_STATUS: NOT_RUN\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---\n' > ".ralph/logs/claude_output_$1.log"
        echo '{"analysis": {"files_modified": 3}}' > .ralph/.response_analysis
    }
    run_claims() {
        source "$DROPIN"
        init_circuit_breaker >/dev/null || return 1
        local loop
        for ((loop = 1; loop <= 8; loop++)); do
            agent_claims "$loop"
            if ! record_loop_result "$loop" 3 false 100 >/dev/null; then
                echo "opened at $loop"
                return 0
            fi
        done
        echo "never"
    }
    run run_claims
    [ "$output" = "opened at 3" ]
}

# claude_json USD: what `claude -p --output-format json` prints at the end
# of a run that cost USD and 23,000 tokens.
claude_json() {
    printf '{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"I looked at the flags again.","session_id":"s1","total_cost_usd":%s,"usage":{"input_tokens":10,"cache_creation_input_tokens":2000,"cache_read_input_tokens":20000,"output_tokens":990}}\n' "$1"
}

@test "each loop's cost is read from ralph's log of it and summed across loops until a reset" {
    # ralph writes claude's JSON output as .ralph/logs/claude_output_TIME.log;
    # in live mode it keeps the stream as claude_output_TIME_stream.log and
    # rewrites the .log with the result line alone, after it.
    agent_costly() {
        agent_notes "$1"
        local log=".ralph/logs/claude_output_2026-11-01_10-0$1-00"
        if [[ "$1" == 2 ]]; then
            { printf '{"type":"system","subtype":"init","session_id":"s1"}\n'
              printf '{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Looking."}],"usage":{"input_tokens":10,"cache_creation_input_tokens":2000,"cache_read_input_tokens":20000,"output_tokens":990}}}\n'
              claude_json 0.40; } > "${log}_stream.log"
        fi
        claude_json 0.40 > "$log.log"
        AGENT_LOG=$log.log
    }
    run run_loop agent_costly 10
    [ "$output" = "opened at 3" ]
    run "${LOOPBREAKER_BIN:-loopbreaker}" status --format json
    [ "$status" -eq 1 ]
    [ "$(printf '%s' "$output" | jq -c '[.spent_usd, .spent_since_progress_usd, .spent_tokens]')" = "[1.2,1.2,69000]" ]
    run "${LOOPBREAKER_BIN:-loopbreaker}" status
    [[ "$output" == *'spent:      $1.20 since the last reset'* ]]
    # A reset starts the sums afresh: the next loop's cost is all there is.
    run "${LOOPBREAKER_BIN:-loopbreaker}" reset --reason "a smaller task"
    [ "$status" -eq 0 ]
    run run_loop agent_costly 1
    [ "$output" = "never" ]
    run "${LOOPBREAKER_BIN:-loopbreaker}" status --format json
    [ "$(printf '%s' "$output" | jq -c '[.state, .spent_usd, .spent_tokens]')" = '["CLOSED",0.4,23000]' ]
}

@test "loopbreaker status and reset in the project find the drop-in's breaker" {
    run run_loop agent_notes 10
    [ "$output" = "opened at 3" ]
    run "${LOOPBREAKER_BIN:-loopbreaker}" status
    [ "$status" -eq 1 ]
    [[ "$output" == *"OPEN"* ]]
    [[ "$output" == *"--loop ralph"* ]]
    run "${LOOPBREAKER_BIN:-loopbreaker}" reset --reason "fixed the prompt"
    [ "$status" -eq 0 ]
    source "$DROPIN"
    [ "$(get_circuit_state)" = "CLOSED" ]
}

@test "a breaker that cannot decide halts the loop" {
    source "$DROPIN"
    init_circuit_breaker
    CB_NO_PROGRESS_THRESHOLD=three run record_loop_result 1 1 false 100
    [ "$status" -eq 1 ]
}

@test "ralph's own ralph_loop.sh stops at the iteration the breaker decides" {
    if [[ -z "${RALPH_CHECKOUT:-}" ]]; then
        skip "set RALPH_CHECKOUT to a ralph-claude-code checkout to run ralph's own loop"
    fi
    local ralph="$BATS_TEST_TMPDIR/ralph"
    cp -R "$RALPH_CHECKOUT" "$ralph"
    cp "$DROPIN" "$ralph/lib/circuit_breaker.sh"
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    # A claude that lives long enough for ralph's start-up check, answers in
    # JSON and only adds notes: no progress.
    cat > "$BATS_TEST_TMPDIR/bin/claude" <<'FAKE'
#!/usr/bin/env bash
if [[ "$1" == "--version" ]]; then echo "2.1.0 (Claude Code)"; exit 0; fi
sleep 2
echo "- still looking at the flags" >> TODO.md
echo '{"type":"result","subtype":"success","is_error":false,"result":"I looked at the flags again.","session_id":"s1","total_cost_usd":0.4,"usage":{"input_tokens":10,"cache_creation_input_tokens":2000,"cache_read_input_tokens":20000,"output_tokens":990}}'
FAKE
    chmod +x "$BATS_TEST_TMPDIR/bin/claude"
    printf 'CB_NO_PROGRESS_THRESHOLD=3\nCLAUDE_AUTO_UPDATE=false\n' > .ralphrc
    # ralph's loop breaks when the breaker opens; it may linger after that,
    # so it is watched until it says so (at most 5 minutes), then ended.
    PATH="$BATS_TEST_TMPDIR/bin:$PATH" bash "$ralph/ralph_loop.sh" >"$BATS_TEST_TMPDIR/ralph.log" 2>&1 &
    local pid=$! waited=0
    until grep -q "Circuit breaker has opened - halting loop" "$BATS_TEST_TMPDIR/ralph.log" || ! kill -0 "$pid" 2>/dev/null || [ "$waited" -ge 300 ]; do
        sleep 1
        waited=$((waited + 1))
    done
    # ralph traps SIGTERM and goes on: end it and what it started for good.
    pkill -KILL -P "$pid" 2>/dev/null || true
    kill -KILL "$pid" 2>/dev/null || true
    grep -q "Circuit breaker has opened - halting loop" "$BATS_TEST_TMPDIR/ralph.log"
    [ "$(jq -r .state .ralph/.circuit_breaker_state)" = "OPEN" ]
    [ "$(jq -r .current_loop .ralph/.circuit_breaker_state)" = "3" ]
    # What ralph's three calls of claude cost, each read from its log.
    run "${LOOPBREAKER_BIN:-loopbreaker}" status --format json
    [ "$(printf '%s' "$output" | jq -c '[.spent_usd, .spent_tokens]')" = "[1.2,69000]" ]
}
