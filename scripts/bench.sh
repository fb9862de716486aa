#!/usr/bin/env bash
# loopbreaker's performance against baselines, in one run on one machine: history scans against
# git log, check latency and its growth with the loop's length, the JUnit reader against
# github.com/joshdk/go-junit, record against a bash + jq state-file update, and the binary's
# size, start-up time and API calls per check run. It prints one table of ratios
# (loopbreaker ÷ baseline: below 1 is faster or smaller) with the target of each row.
#
# Usage: scripts/bench.sh [--quick] [--strict] [--bin FILE] [--keep]
#   --quick     a smaller run for smoke tests (500 instead of 5,000 commits, a 5 MB report, ...)
#   --strict    exit 1 when a row misses its target (by default the table is the result)
#   --bin FILE  measure this loopbreaker binary instead of building one (to compare builds)
#   --keep      keep the work directory (repositories, reports, raw timings)
#
# Needs git and Go; uses hyperfine (and installs it with apt-get when it can), else repeated runs
# reporting the median and minimum; jq for the record baseline (installed the same way, or that
# row is skipped).
set -euo pipefail

quick=false keep=false strict=false bin=""
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=true ;;
    --strict) strict=true ;;
    --keep) keep=true ;;
    --bin) [ $# -ge 2 ] || { echo "bench: --bin needs a file" >&2; exit 2; }; bin=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

root=$(cd "$(dirname "$0")/.." && pwd)
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
work=$(mktemp -d "${TMPDIR:-/tmp}/loopbreaker-bench.XXXXXX")
fake_pid=""
cleanup() {
  if [ -n "$fake_pid" ]; then kill "$fake_pid" 2>/dev/null || true; fi
  if $keep; then echo "bench: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
# The measured commands must not see a GitHub Actions environment.
unset GITHUB_ACTIONS GITHUB_RUN_ID GITHUB_RUN_ATTEMPT LOOPBREAKER_PROFILE

if $quick; then
  history_commits=500 junit_bytes=$((5 << 20)) record_iters=5 runs=3 slow_runs=2 api_long=50
else
  history_commits=5000 junit_bytes=$((50 << 20)) record_iters=20 runs=15 slow_runs=7 api_long=200
fi
files=2000
growth="50 200 800"

say() { echo "bench: $*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }

# Tools: hyperfine and jq from apt when missing and possible; otherwise fall back.
install_tools() {
  local missing=()
  have hyperfine || missing+=(hyperfine)
  have jq || missing+=(jq)
  [ ${#missing[@]} -gt 0 ] || return 0
  if [ "$(id -u)" = 0 ] && have apt-get; then
    say "installing ${missing[*]} with apt-get"
    apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; } ||
      say "could not install ${missing[*]}: falling back"
  fi
}
install_tools
have git || { echo "bench: git is required" >&2; exit 2; }
have go || { echo "bench: go is required" >&2; exit 2; }
if have hyperfine; then timer="hyperfine $(hyperfine --version | cut -d' ' -f2)"; else timer="repeated runs (hyperfine not found)"; fi

# ---------------------------------------------------------------------------------------------
# Building.

mkdir -p "$work/bin"
if [ -n "$bin" ]; then
  lb=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
else
  say "building loopbreaker as a release is built (static, stripped)"
  (cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/bin/loopbreaker" .)
  lb=$work/bin/loopbreaker
fi
say "building the helpers"
(cd "$root" && go build -o "$work/bin/synthrepo" scripts/benchdata/synthrepo.go &&
  go build -o "$work/bin/junit" scripts/benchdata/junit.go &&
  go build -o "$work/bin/fakegithub" ./cmd/fakegithub)

# ---------------------------------------------------------------------------------------------
# Measuring. time_cmd RUNS CMD [ARGS...] sets t_med and t_min (seconds). Commands may exit 0 or
# 1 (check and record exit 1 when the breaker is OPEN); anything else stops the script.

run_ok() {
  local code=0
  "$@" >/dev/null 2>"$work/last.err" || code=$?
  if [ "$code" -gt 1 ]; then
    echo "bench: failed (exit $code): $*" >&2
    cat "$work/last.err" >&2
    exit 1
  fi
}

t_med=0 t_min=0
time_cmd() {
  local n=$1; shift
  run_ok "$@"
  if have hyperfine; then
    local cmd="" a csv=$work/hf.csv
    for a in "$@"; do cmd+="$(printf '%q' "$a") "; done
    local warm=1
    [ "$n" -ge 10 ] && warm=3
    hyperfine -N -i --style none --warmup "$warm" --runs "$n" --export-csv "$csv" "$cmd" >/dev/null 2>"$work/hf.err" ||
      { cat "$work/hf.err" >&2; exit 1; }
    # command,mean,stddev,median,user,system,min,max
    t_med=$(awk -F, 'NR==2{print $4}' "$csv")
    t_min=$(awk -F, 'NR==2{print $7}' "$csv")
  else
    local i s e all=()
    for ((i = 0; i < n; i++)); do
      s=$(date +%s%N)
      "$@" >/dev/null 2>&1 || true
      e=$(date +%s%N)
      all+=("$((e - s))")
    done
    read -r t_med t_min < <(printf '%s\n' "${all[@]}" | sort -n |
      awk '{v[NR]=$1} END{m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.9f %.9f\n", m/1e9, v[1]/1e9}')
  fi
}

# Formatting and judging.
fmt_s() { awk -v s="$1" 'BEGIN{ if (s >= 1) printf "%.2f s", s; else if (s >= 0.01) printf "%.1f ms", s*1000; else printf "%.2f ms", s*1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b == 0) print "n/a"; else printf "%.2f", a/b }'; }
# judge VALUE OP LIMIT -> pass|FAIL
judge() { awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN{ ok = (op == "<=") ? (v <= l) : (v >= l); print ok ? "pass" : "FAIL" }'; }

rows=()
row() { rows+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }

# ---------------------------------------------------------------------------------------------
# 1. History scan: loopbreaker's evidence for the last N first-parent commits against
#    git log --first-parent --numstat over the same range.

history_rows() {
  local name=$1 repo=$2 base=$3 n=$4 runs=$5
  local lb_med lb_min g_med g_min m_med m_min
  time_cmd "$runs" "$lb" check --repo "$repo" --base "$base" --format json
  lb_med=$t_med lb_min=$t_min
  time_cmd "$runs" git -C "$repo" log --first-parent --numstat "$base..HEAD"
  g_med=$t_med g_min=$t_min
  time_cmd "$runs" git -C "$repo" log --first-parent --numstat --find-renames "$base..HEAD"
  m_med=$t_med m_min=$t_min
  local r
  r=$(ratio "$lb_med" "$g_med")
  row "History, $name, $n commits, vs \`git log --first-parent --numstat\`" "$(fmt_s "$lb_med")" "$(fmt_s "$g_med")" "$r" "≤ 1.50" "$(judge "$r" "<=" 1.5)"
  r=$(ratio "$lb_med" "$m_med")
  row "History, $name, $n commits, vs the same with \`--find-renames\`" "$(fmt_s "$lb_med")" "$(fmt_s "$m_med")" "$r" "≤ 1.50" "$(judge "$r" "<=" 1.5)"
  echo "history $name n=$n loopbreaker median=$lb_med min=$lb_min git median=$g_med min=$g_min git-M median=$m_med min=$m_min" >> "$work/raw.txt"
}

if git -C "$root" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  say "1. history: this project's own repository"
  own_root=$(git -C "$root" rev-list --first-parent --max-parents=0 HEAD | tail -n 1)
  own_n=$(git -C "$root" rev-list --first-parent --count "$own_root..HEAD")
  history_rows "this project" "$root" "$own_root" "$own_n" "$runs"
else
  row "History, this project" "n/a" "n/a" "n/a" "≤ 1.50" "skipped: not a git checkout"
fi

say "1. history: generating a synthetic repository of $history_commits commits and $files files"
synth=$work/synthetic
git init -q -b main "$synth"
"$work/bin/synthrepo" -files "$files" -history $((history_commits - 1)) | git -C "$synth" fast-import --quiet
git -C "$synth" reset -q --soft main
# Repacked as a clone receives it (fast-import deltifies each object against its older version;
# pack-objects bases the deltas on the newer ones).
git -C "$synth" repack -a -d -f -q
synth_root=$(git -C "$synth" rev-list --max-parents=0 HEAD)
say "1. history: all $((history_commits - 1)) commits after the first"
history_rows "synthetic" "$synth" "$synth_root" $((history_commits - 1)) "$slow_runs"
say "1. history: the newest 200"
history_rows "synthetic (newest)" "$synth" "HEAD~200" 200 "$runs"

# ---------------------------------------------------------------------------------------------
# 2. check: a loop of N iterations in a 2,000-file project: the project's first commit packed
#    (as a clone has it), the loop's commits loose (as the loop writes them), a ledger of N
#    records (one per earlier run), and this run's commit on top.

make_loop() {
  local dir=$1 n=$2
  git init -q -b main "$dir"
  "$work/bin/synthrepo" -files "$files" | git -C "$dir" fast-import --quiet
  "$work/bin/synthrepo" -files "$files" -loop $((n + 1)) -only-loop |
    git -C "$dir" -c fastimport.unpackLimit=100000000 fast-import --quiet
  git -C "$dir" symbolic-ref HEAD refs/heads/loop
  git -C "$dir" reset -q --soft loop
  mkdir -p "$dir.ledger"
  local hashes=() i
  for i in 0 1 2 3 4 5 6; do
    hashes+=("$(printf 'error %d: undefined: handler' "$i" | sha256sum | cut -d' ' -f1)")
  done
  git -C "$dir" log --reverse --first-parent --format='%H %cI' main..loop |
    awk -v n="$n" -v h="${hashes[*]}" 'BEGIN{ split(h, hs, " "); printf "[" }
      NR <= n { i = NR; if (i > 1) printf ",\n"
        errs = (i % 2) ? sprintf("[{\"hash\":\"%s\",\"sample\":\"error %d: undefined: handler\"}]", hs[i%7+1], i%7) : "[]"
        failing = (i % 3) ? "[\"TestHandler\"]" : "[]"
        printf "{\"version\":1,\"run_id\":%d,\"run_attempt\":1,\"commit\":\"%s\",\"at\":\"%s\",\"phase\":\"\",", i, $1, $2
        printf "\"tests\":{\"passed\":%d,\"failed\":%d,\"skipped\":2,\"failing\":%s},\"errors\":%s,", 100+i, (i%3)?1:0, failing, errs
        printf "\"output\":{\"lines\":%d,\"bytes\":%d},\"permission_denials\":0,\"completion_claimed\":false,", 200+i%50, 8000+i
        printf "\"questions_asked\":false,\"progress_percent\":null,\"tasks\":null}" }
      END{ print "]" }' > "$dir.ledger/ledger.json"
}

declare -A check_med check_git
for n in $growth; do
  say "2. check: a loop of $n iterations with a ledger of $n records"
  make_loop "$work/loop$n" "$n"
  time_cmd "$runs" "$lb" check --repo "$work/loop$n" --base main --ledger "$work/loop$n.ledger" --record "$work/out$n.json" --format json
  check_med[$n]=$t_med
  echo "check n=$n median=$t_med min=$t_min" >> "$work/raw.txt"
  time_cmd "$runs" git -C "$work/loop$n" log --first-parent --numstat main..loop
  check_git[$n]=$t_med
done
r=$(ratio "${check_med[200]}" "${check_git[200]}")
row "\`check\`, 200 iterations, 200-record ledger (baseline: \`git log --numstat\` of the loop)" "$(fmt_s "${check_med[200]}")" "$(fmt_s "${check_git[200]}")" "$r" "≤ 100 ms" "$(judge "${check_med[200]}" "<=" 0.1)"
# Growth: linear means 4 times the iterations cost at most 4 times as much (10% allowed for
# noise); the constant is the cost of one more iteration, from 200 to 800.
slope=$(awk -v a="${check_med[200]}" -v b="${check_med[800]}" 'BEGIN{ printf "%.3f", (b-a)/600*1000 }')
gslope=$(awk -v a="${check_git[200]}" -v b="${check_git[800]}" 'BEGIN{ printf "%.3f", (b-a)/600*1000 }')
r=$(ratio "${check_med[800]}" "${check_med[200]}")
row "\`check\` growth 50 → 200 → 800 iterations (baseline: \`git log\` of the same loops)" "$(fmt_s "${check_med[50]}") → $(fmt_s "${check_med[200]}") → $(fmt_s "${check_med[800]}")" "$(fmt_s "${check_git[50]}") → $(fmt_s "${check_git[200]}") → $(fmt_s "${check_git[800]}")" "×$r from 200 to 800" "linear: ≤ ×4.4" "$(judge "$r" "<=" 4.4)"
row "\`check\`: cost of one more iteration (200 → 800)" "$slope ms" "$gslope ms" "$(ratio "$slope" "$gslope")" "≤ 0.5 ms" "$(judge "$slope" "<=" 0.5)"

# ---------------------------------------------------------------------------------------------
# 3. JUnit: a generated report, loopbreaker's reader against github.com/joshdk/go-junit: time and
#    peak resident memory (each reader in its own process).

junit_mb=$((junit_bytes >> 20))
say "3. junit: a $junit_mb MB report"
"$work/bin/junit" gen -size "$junit_bytes" "$work/junit.xml"
time_cmd "$slow_runs" "$work/bin/junit" read -reader ours "$work/junit.xml"
j_ours=$t_med
time_cmd "$slow_runs" "$work/bin/junit" read -reader joshdk "$work/junit.xml"
j_josh=$t_med
peak_rss() { # the smallest of three peaks, in KiB
  local i best="" v
  for i in 1 2 3; do
    v=$("$work/bin/junit" read -reader "$1" "$work/junit.xml" | sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p')
    if [ -z "$best" ] || [ "$v" -lt "$best" ]; then best=$v; fi
  done
  echo "$best"
}
rss_ours=$(peak_rss ours)
rss_josh=$(peak_rss joshdk)
r=$(ratio "$j_ours" "$j_josh")
row "JUnit $junit_mb MB report: read time vs joshdk/go-junit" "$(fmt_s "$j_ours")" "$(fmt_s "$j_josh")" "$r" "≤ 0.50 (2× faster)" "$(judge "$r" "<=" 0.5)"
r=$(ratio "$rss_ours" "$rss_josh")
row "JUnit $junit_mb MB report: peak RSS vs joshdk/go-junit" "$((rss_ours / 1024)) MiB" "$((rss_josh / 1024)) MiB" "$r" "≤ 0.25" "$(judge "$r" "<=" 0.25)"
echo "junit ours=$j_ours joshdk=$j_josh rss_ours_kb=$rss_ours rss_joshdk_kb=$rss_josh" >> "$work/raw.txt"

# ---------------------------------------------------------------------------------------------
# 4. record: one iteration of a shell-driven loop, against the bash + jq update of a state file
#    (scripts/benchdata/record.sh). Each side runs a loop of $record_iters iterations from a
#    fresh state file; the per-iteration time is the loop's time divided by that.

say "4. record: $record_iters iterations per loop"
mkdir -p "$work/rec"
q_lb=$(printf '%q' "$lb") q_rec=$(printf '%q' "$root/scripts/benchdata/record.sh") q_dir=$(printf '%q' "$work/rec")
# Exit 1 (OPEN) is a decision; any other failure stops the loop.
cat > "$work/rec/lb.sh" <<EOF
set -e
for i in \$(seq 1 $record_iters); do
  $q_lb record --state $q_dir/lb.json --policy ralph --format json \\
    --files-changed \$((i % 4)) --tests-passing \$((100 + i)) --tests-failing \$((i % 3)) \\
    --output-length \$((200 + i % 50)) --error "error \$((i % 7)): undefined: handler at main.go:\$i" >/dev/null || [ \$? -eq 1 ]
done
EOF
if have jq; then
  for style in plain tuned; do
    flag=""
    [ "$style" = tuned ] && flag="--tuned"
    cat > "$work/rec/sh-$style.sh" <<EOF
set -e
for i in \$(seq 1 $record_iters); do
  bash $q_rec $flag $q_dir/sh-$style.json \\
    \$((i % 4)) \$((100 + i)) \$((i % 3)) \$((200 + i % 50)) "error \$((i % 7)): undefined: handler at main.go:\$i" >/dev/null || [ \$? -eq 1 ]
done
EOF
  done
fi
time_loop() { # SCRIPT STATE
  rm -f "$2"
  run_ok bash "$1"
  if have hyperfine; then
    hyperfine -N -i --style none --warmup 1 --runs "$slow_runs" --prepare "rm -f $2" --export-csv "$work/hf.csv" "bash $1" >/dev/null 2>"$work/hf.err" ||
      { cat "$work/hf.err" >&2; exit 1; }
    t_med=$(awk -F, 'NR==2{print $4}' "$work/hf.csv")
  else
    local i s e all=()
    for ((i = 0; i < slow_runs; i++)); do
      rm -f "$2"
      s=$(date +%s%N)
      bash "$1" >/dev/null 2>&1 || true
      e=$(date +%s%N)
      all+=("$((e - s))")
    done
    t_med=$(printf '%s\n' "${all[@]}" | sort -n | awk '{v[NR]=$1} END{m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.9f\n", m/1e9}')
  fi
  t_med=$(awk -v t="$t_med" -v n="$record_iters" 'BEGIN{ printf "%.9f", t/n }')
}
time_loop "$work/rec/lb.sh" "$work/rec/lb.json"
rec_lb=$t_med
if have jq; then
  time_loop "$work/rec/sh-plain.sh" "$work/rec/sh-plain.json"
  rec_sh=$t_med
  time_loop "$work/rec/sh-tuned.sh" "$work/rec/sh-tuned.json"
  rec_tuned=$t_med
  r=$(ratio "$rec_lb" "$rec_sh")
  row "\`record\` per iteration vs bash + jq (a jq call per value read, as shell loops do)" "$(fmt_s "$rec_lb")" "$(fmt_s "$rec_sh")" "$r" "≤ 0.05 (20× faster)" "$(judge "$r" "<=" 0.05)"
  r=$(ratio "$rec_lb" "$rec_tuned")
  row "\`record\` per iteration vs bash + jq, tuned (one jq call to read, one to write)" "$(fmt_s "$rec_lb")" "$(fmt_s "$rec_tuned")" "$r" "(for reference)" "—"
  echo "record loopbreaker=$rec_lb bash-jq=$rec_sh bash-jq-tuned=$rec_tuned" >> "$work/raw.txt"
else
  row "\`record\` per iteration vs bash + jq" "$(fmt_s "$rec_lb")" "n/a" "n/a" "≤ 0.05 (20× faster)" "skipped: no jq"
fi

# ---------------------------------------------------------------------------------------------
# 5. The binary: size, start-up time, and GitHub API calls per check run (the fake GitHub API's
#    own count), for a short and a long loop.

say "5. binary size and start-up"
git_bin=$(git --exec-path)/git
[ -f "$git_bin" ] || git_bin=$(command -v git)
size_lb=$(wc -c < "$lb")
size_git=$(wc -c < "$git_bin")
r=$(ratio "$size_lb" "$size_git")
row "Binary size (static, stripped; baseline: the git executable)" "$(awk -v b="$size_lb" 'BEGIN{printf "%.1f MiB", b/1048576}')" "$(awk -v b="$size_git" 'BEGIN{printf "%.1f MiB", b/1048576}')" "$r" "≤ 16 MiB" "$(judge "$size_lb" "<=" 16777216)"
time_cmd $((runs * 3)) "$lb" --version
s_lb=$t_med
time_cmd $((runs * 3)) git --version
s_git=$t_med
r=$(ratio "$s_lb" "$s_git")
row "Start-up: \`loopbreaker --version\` vs \`git --version\`" "$(fmt_s "$s_lb")" "$(fmt_s "$s_git")" "$r" "≤ 5 ms" "$(judge "$s_lb" "<=" 0.005)"

# api_calls N: the calls of a first and of a steady check run (the action) on a pull request
# whose loop has N iterations, with the previous run's record artifact holding N-1 records.
# The policy is ralph (no iteration cap), so that short and long loops are both CLOSED and the
# counts compare the same decision.
api_calls() {
  local n=$1
  local dir=$work/api$n
  mkdir -p "$dir"
  make_loop "$dir/loop" $((n - 1))
  local head base records
  head=$(git -C "$dir/loop" rev-parse loop)
  base=$(git -C "$dir/loop" rev-parse main)
  records=$(cat "$dir/loop.ledger/ledger.json")
  cat > "$dir/event.json" <<JSON
{"action": "synchronize", "number": 7,
 "pull_request": {"number": 7, "created_at": "2026-01-05T09:00:00Z", "labels": [],
   "head": {"sha": "$head", "ref": "loop", "repo": {"fork": false, "full_name": "octo/loop"}},
   "base": {"sha": "$base", "ref": "main", "repo": {"full_name": "octo/loop"}}},
 "repository": {"full_name": "octo/loop", "default_branch": "main"},
 "sender": {"login": "agent", "type": "User"}}
JSON
  {
    printf '{"repos": [{"owner": "octo", "name": "loop", "default_branch": "main",\n'
    printf '  "pulls": [{"number": 7, "title": "agent loop", "user": "agent", "head_sha": "%s", "head_ref": "loop", "base_ref": "main", "base_sha": "%s"}],\n' "$head" "$base"
    printf '  "runs": [{"id": %d, "name": "loop", "path": ".github/workflows/loop.yml", "head_branch": "loop", "head_sha": "%s", "event": "pull_request", "status": "completed", "conclusion": "success", "created_at": "2026-03-01T00:00:00Z"}],\n' $((n - 1)) "$head"
    printf '  "artifacts": [{"run_id": %d, "name": "loopbreaker-record", "created_at": "2026-03-01T00:00:00Z", "zip_files": {"record.json": %s}}]}]}\n' $((n - 1)) "$(printf '%s' "$records" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\n' | sed 's/^/"/; s/$/"/')"
  } > "$dir/seed.json"
  local seed=$dir/seed.json calls=()
  for pass in first steady; do
    "$work/bin/fakegithub" -addr 127.0.0.1:0 -state "$seed" -dump "$dir/dump-$pass.json" > "$dir/fake.log" 2>&1 &
    fake_pid=$!
    local api="" i
    for i in $(seq 1 100); do
      api=$(sed -n '/^listening on /{s///;p;q;}' "$dir/fake.log")
      [ -n "$api" ] && break
      sleep 0.05
    done
    [ -n "$api" ] || { echo "bench: the fake GitHub API did not start: $(cat "$dir/fake.log")" >&2; exit 1; }
    local code=0
    env GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$dir/event.json" \
      GITHUB_REPOSITORY=octo/loop GITHUB_WORKSPACE="$dir/loop" GITHUB_API_URL="$api" \
      GITHUB_RUN_ID="$n" GITHUB_RUN_ATTEMPT=1 GITHUB_OUTPUT="$dir/output" GITHUB_STEP_SUMMARY="$dir/summary" \
      INPUT_TOKEN=test-token INPUT_POLICY=ralph "$lb" > "$dir/action-$pass.log" 2>&1 || code=$?
    kill -TERM "$fake_pid"; wait "$fake_pid" 2>/dev/null || true; fake_pid=""
    if [ "$code" -gt 1 ]; then echo "bench: the action failed (exit $code):" >&2; cat "$dir/action-$pass.log" >&2; exit 1; fi
    calls+=("$(sed -n '/^    "total": /{s/[^0-9]//g;p;q;}' "$dir/dump-$pass.json")")
    seed=$dir/dump-$pass.json
  done
  api_first=${calls[0]} api_steady=${calls[1]}
}
say "5. API calls per check run: loops of 3 and $api_long iterations against the fake GitHub API"
api_first="" api_steady=""
api_calls 3
short_first=$api_first short_steady=$api_steady
api_calls "$api_long"
long_first=$api_first long_steady=$api_steady
echo "api n=3 first=$short_first steady=$short_steady n=$api_long first=$long_first steady=$long_steady" >> "$work/raw.txt"
same=pass
if [ "$long_steady" != "$short_steady" ] || [ "$long_first" != "$short_first" ] || [ "$long_steady" -gt 5 ]; then same=FAIL; fi
row "API calls per check run at $api_long iterations (baseline: at 3), steady (first run)" "$long_steady ($long_first)" "$short_steady ($short_first)" "$(ratio "$long_steady" "$short_steady")" "same at any length, ≤ 5" "$same"

# ---------------------------------------------------------------------------------------------

cpu=$(sed -n '/^model name/{s/^model name[[:space:]]*: //;p;q;}' /proc/cpuinfo 2>/dev/null || true)
load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
echo
echo "loopbreaker $("$lb" --version | cut -d' ' -f2) on $(nproc 2>/dev/null || echo '?') × ${cpu:-unknown CPU}, $(go version | cut -d' ' -f3), $(git --version), timed with $timer$($quick && echo ', --quick')"
echo "Load average at the start: $load_start; at the end: $load_end. Run time: $((SECONDS / 60)) min $((SECONDS % 60)) s."
echo "Times are medians. Ratio = loopbreaker ÷ baseline: below 1 is faster or smaller."
echo
echo "| Measurement | loopbreaker | Baseline | Ratio | Target | Result |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
if $strict && printf '%s\n' "${rows[@]}" | grep -q '| FAIL |$'; then
  echo "bench: some measurements miss their targets" >&2
  exit 1
fi
