#!/usr/bin/env bash
# loopbreaker's performance against baselines, in one run on one machine: replay against
# git log (on a generated repository and on real loop histories), check over 1,000 iterations
# against git log, check in each of its modes and its growth with the loop's length, the JUnit reader
# against github.com/joshdk/go-junit, record against a bash + jq state-file update, the binary's
# size and start-up, and the GitHub API calls of each kind of action run. It prints one table.
#
# Every timed row runs loopbreaker and its baseline interleaved (scripts/benchdata/interleave.go):
# after a warm-up round, each round runs every command of the row once, the order rotating from
# round to round, and the ratio (loopbreaker ÷ baseline: below 1 is faster or smaller) is taken
# per round; the table shows its median and, in brackets, its minimum.
#
# Usage: scripts/bench.sh [--quick] [--strict] [--bin FILE] [--keep] [--real NAME=DIR]...
#   --quick     a smaller run for smoke tests (a 1,000-commit history, loops of 20 and 200, a 5 MB
#               report, 5 rounds)
#   --strict    exit 1 when a row misses its target (by default the table is the result)
#   --bin FILE  measure this loopbreaker binary instead of building one (to compare builds)
#   --keep      keep the work directory (repositories, reports, raw timings)
#   --real NAME=DIR  also replay a real agent loop's history: DIR is a clone or a bare mirror of
#               it (for instance of Ark0N/Claudeman or NoobyNull/vigilant-octo-train), NAME names
#               its row; repeatable. The script fetches nothing: without --real those rows say
#               they were skipped. A copy without some large files is measured over a copy of it
#               whose missing blobs git reads as placeholders (git replace); loopbreaker counts
#               them as unreadable.
#
# Needs git and Go; jq for the record baseline (installed with apt-get when it runs as root and
# jq is missing; without it that row is skipped).
set -euo pipefail

quick=false keep=false strict=false bin="" reals=()
while [ $# -gt 0 ]; do
  case $1 in
    --real)
      [ $# -ge 2 ] && [[ $2 == ?*=?* ]] || { echo "bench: --real needs NAME=DIR" >&2; exit 2; }
      [ -d "${2#*=}" ] || { echo "bench: --real ${2#*=}: not a directory" >&2; exit 2; }
      reals+=("$2"); shift ;;
    --quick) quick=true ;;
    --strict) strict=true ;;
    --keep) keep=true ;;
    --bin) [ $# -ge 2 ] || { echo "bench: --bin needs a file" >&2; exit 2; }; bin=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$bin" ] && [ ! -x "$bin" ]; then echo "bench: --bin $bin: not an executable file" >&2; exit 2; fi

root=$(cd "$(dirname "$0")/.." && pwd)
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
work=$(mktemp -d "${TMPDIR:-/tmp}/loopbreaker-bench.XXXXXX")
cleanup() {
  if $keep; then echo "bench: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
# The measured commands must not see a GitHub Actions environment.
unset GITHUB_ACTIONS GITHUB_RUN_ID GITHUB_RUN_ATTEMPT LOOPBREAKER_PROFILE

files=2000
if $quick; then
  history_sizes="100 1000" growth="20 200" junit_bytes=$((5 << 20)) record_iters=5 rounds=5 api_long=50
else
  history_sizes="100 2000 10000" growth="20 200 2000" junit_bytes=$((50 << 20)) record_iters=20 rounds=7 api_long=200
fi
history_commits=${history_sizes##* }

say() { echo "bench: $*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }

if ! have jq && [ "$(id -u)" = 0 ] && have apt-get; then
  say "installing jq with apt-get"
  apt-get install -y -qq jq >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq jq >/dev/null 2>&1; } ||
    say "could not install jq: the record row is skipped"
fi
have git || { echo "bench: git is required" >&2; exit 2; }
have go || { echo "bench: go is required" >&2; exit 2; }

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
for h in interleave synthrepo junit apicalls; do
  (cd "$root" && go build -o "$work/bin/$h" "scripts/benchdata/$h.go")
done

# ---------------------------------------------------------------------------------------------
# Measuring. pair NAME LABELS -- BASELINE... -- CMD... [-- CMD...] runs the commands
# interleaved (the first is the baseline) and keeps the results in $work/results.tsv; get reads
# them back. Commands may exit 0 or 1 (OPEN is a decision).

results=$work/results.tsv
pair() {
  local name=$1 labels=$2
  shift 3
  "$work/bin/interleave" -tsv -rounds "$rounds" -warmup 1 -name "$name" -labels "$labels" -raw "$work/raw.tsv" "$@" >> "$results" ||
    { echo "bench: $name: a command failed" >&2; exit 1; }
}
# get cmd NAME LABEL wall|wall_min|cpu|rss    -> seconds or KiB
# get ratio NAME LABEL wall|wall_min|cpu|rss  -> the per-round ratio's median (or minimum)
get() {
  awk -F'\t' -v k="$1" -v n="$2" -v l="$3" -v f="$4" '
    $1 == k && $2 == n && $3 == l {
      if (k == "cmd") { i = (f == "wall") ? 4 : (f == "wall_min") ? 5 : (f == "cpu") ? 6 : (f == "rss") ? 8 : 0 }
      else { i = (f == "wall") ? 6 : (f == "wall_min") ? 5 : (f == "cpu") ? 8 : (f == "rss") ? 10 : (f == "rss_min") ? 9 : 0 }
      print $i; found = 1; exit
    }
    END { if (!found) exit 1 }' "$results" || { echo "bench: no result $*" >&2; exit 1; }
}

# Formatting and judging.
fmt_s() { awk -v s="$1" 'BEGIN{ if (s >= 1) printf "%.2f s", s; else if (s >= 0.01) printf "%.1f ms", s*1000; else printf "%.2f ms", s*1000 }'; }
fmt_kb() { awk -v k="$1" 'BEGIN{ printf "%.0f MiB", k/1024 }'; }
fmt_n() { awk -v m="$1" 'BEGIN{ printf "%.2f", m }'; }
fmt_r() { awk -v m="$1" -v n="$2" 'BEGIN{ f = (m < 0.1) ? "%.3f (%.3f)" : "%.2f (%.2f)"; printf f, m, n }'; }
# judge VALUE OP LIMIT -> pass|miss
judge() { awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN{ ok = (op == "<=") ? (v <= l) : (v >= l); print ok ? "pass" : "miss" }'; }

rows=() replays=()
row() { rows+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }

# ---------------------------------------------------------------------------------------------
# 1. History: `replay` (every first-parent commit after --base, its evidence and the fold)
#    against `git log --first-parent --numstat` over the same range: this project's repository,
#    and a generated one of 2,000 files and small commits (three files edited in each).

replay_row() { # NAME REPO BASE N
  local name=$1 repo=$2 base=$3 n=$4 r
  pair "replay $name $n" git,loopbreaker -- git -C "$repo" log --first-parent --numstat "$base..HEAD" \
    -- "$lb" replay --repo "$repo" --base "$base" --format json
  r=$(get ratio "replay $name $n" loopbreaker wall)
  row "\`replay\` vs \`git log --first-parent --numstat\`: $name, $n commits" \
    "$(fmt_s "$(get cmd "replay $name $n" loopbreaker wall)")" "$(fmt_s "$(get cmd "replay $name $n" git wall)")" \
    "$(fmt_r "$r" "$(get ratio "replay $name $n" loopbreaker wall_min)"); CPU $(fmt_n "$(get ratio "replay $name $n" loopbreaker cpu)")" \
    "≤ 2.00" "$(judge "$r" "<=" 2)"
  replays+=("$name|$n")
}

if git -C "$root" rev-parse --verify -q HEAD >/dev/null 2>&1 && [ "$(git -C "$root" rev-parse --is-shallow-repository)" = false ]; then
  say "1. replay: this project's own repository"
  own_root=$(git -C "$root" rev-list --first-parent --max-parents=0 HEAD | tail -n 1)
  replay_row "this project" "$root" "$own_root" "$(git -C "$root" rev-list --first-parent --count "$own_root..HEAD")"
else
  row "\`replay\` vs \`git log\`: this project" "n/a" "n/a" "n/a" "≤ 2.00" "skipped: not a full git checkout"
fi

say "1. replay: generating a repository of $files files and $history_commits small commits"
synth=$work/synthetic
git init -q -b main "$synth"
"$work/bin/synthrepo" -files "$files" -history "$history_commits" | git -C "$synth" fast-import --quiet
git -C "$synth" reset -q --soft main
# Repacked as a clone receives it (fast-import deltifies each object against its older version;
# pack-objects bases the deltas on the newer ones).
git -C "$synth" repack -a -d -f -q
for n in $history_sizes; do
  say "1. replay: the newest $n commits"
  replay_row "2k files, small commits" "$synth" "HEAD~$n" "$n"
done
# Real loop histories, whole: copied, so that the placeholders never touch the original.
if [ ${#reals[@]} -eq 0 ]; then
  row "\`replay\` vs \`git log --first-parent --numstat\`: real loop histories" "n/a" "n/a" "n/a" "≤ 2.00" \
    "skipped: no --real NAME=DIR given (see --help)"
fi
i=0
for real in "${reals[@]}"; do
  i=$((i + 1)) real_name=${real%%=*} real_dir=$work/real$i
  say "1. replay: the real loop history $real_name"
  cp -a "${real#*=}" "$real_dir"
  for h in $(git -C "$real_dir" rev-list --objects --missing=print HEAD | sed -n 's/^?//p'); do
    git -C "$real_dir" replace -f "$h" "$(printf 'missing object %s\n' "$h" | git -C "$real_dir" hash-object -w --stdin)"
  done
  real_root=$(git -C "$real_dir" rev-list --first-parent --max-parents=0 HEAD | tail -n 1)
  replay_row "real loop $real_name" "$real_dir" "$real_root" "$(git -C "$real_dir" rev-list --first-parent --count "$real_root..HEAD")"
done

for replay in "${replays[@]}"; do
  what=${replay%|*} n=${replay##*|} name="replay ${replay%|*} ${replay##*|}"
  lb_rss=$(get cmd "$name" loopbreaker rss) git_rss=$(get cmd "$name" git rss)
  row "\`replay\` peak memory vs \`git log\`: $what, $n commits" \
    "$(fmt_kb "$lb_rss")" "$(fmt_kb "$git_rss")" "$(fmt_r "$(get ratio "$name" loopbreaker rss)" "$(get ratio "$name" loopbreaker rss_min)")" \
    "≤ git + 64 MiB" "$(judge "$(awk -v a="$lb_rss" -v b="$git_rss" 'BEGIN{ print a - b }')" "<=" 65536)"
done

# ---------------------------------------------------------------------------------------------
# 2. check: a loop of N iterations in a 2,000-file project: the project's first commit packed
#    (as a clone has it), the loop's commits loose (as the loop writes them), a ledger of N
#    records (one per earlier run), and this run's commit on top.

make_loop() { # DIR N
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
add_ledger_check() { # N: adds the Action mode's check of the loop of N to cmds
  cmds+=(-- "$lb" check --repo "$work/loop$1" --base main --ledger "$work/loop$1.ledger" --record "$work/out$1.json" --format json)
}

for n in $growth; do
  say "2. check: a loop of $n iterations with a ledger of $n records"
  make_loop "$work/loop$n" "$n"
  # The ledger as the loop's previous run leaves it (the Action's artifact): its cumulative
  # record file.
  "$lb" check --repo "$work/loop$n" --base main --ledger "$work/loop$n.ledger" \
    --record "$work/loop$n.ledger/ledger.json" --format json >/dev/null || [ $? -eq 1 ]
done
say "2. check: 200 iterations, loose, packed and Action (ledger) mode"
cp -a "$work/loop200" "$work/loop200-packed"
git -C "$work/loop200-packed" repack -a -d -q
cmds=(-- git -C "$work/loop200" log --first-parent --numstat main..loop
  -- "$lb" check --repo "$work/loop200" --base main --format json
  -- "$lb" check --repo "$work/loop200-packed" --base main --format json)
add_ledger_check 200
pair "check 200" git,loose,packed,ledger "${cmds[@]}"
for mode in loose packed ledger; do
  case $mode in
    loose) what="loop commits loose, no ledger" ;;
    packed) what="all packed, no ledger" ;;
    ledger) what="Action mode: a 200-record ledger and --record" ;;
  esac
  t=$(get cmd "check 200" "$mode" wall)
  row "\`check\`, 200 iterations, 2k files, $what (baseline: \`git log --numstat\` of the loop)" "$(fmt_s "$t")" \
    "$(fmt_s "$(get cmd "check 200" git wall)")" "$(fmt_r "$(get ratio "check 200" "$mode" wall)" "$(get ratio "check 200" "$mode" wall_min)")" \
    "≤ 100 ms" "$(judge "$t" "<=" 0.1)"
done

# A full fold over 1,000 loose iterations against git's log of the same commits.
long_loop=1000
$quick && long_loop=200
say "2. check: $long_loop iterations against git log over the same commits"
[ -d "$work/loop$long_loop" ] || make_loop "$work/loop$long_loop" "$long_loop"
pair "check long" git,loopbreaker -- git -C "$work/loop$long_loop" log --first-parent --numstat main..loop \
  -- "$lb" check --repo "$work/loop$long_loop" --base main --format json
r=$(get ratio "check long" loopbreaker wall)
row "\`check\`, $long_loop iterations, 2k files, loop commits loose (baseline: \`git log --first-parent --numstat\` of the same commits)" \
  "$(fmt_s "$(get cmd "check long" loopbreaker wall)")" "$(fmt_s "$(get cmd "check long" git wall)")" \
  "$(fmt_r "$r" "$(get ratio "check long" loopbreaker wall_min)")" "≤ 3.00" "$(judge "$r" "<=" 3)"

say "2. check: growth with the loop's length ($growth) in Action mode"
first=${growth%% *} last=${growth##* }
cmds=() labels=""
for n in $growth; do
  add_ledger_check "$n"
  labels+="${labels:+,}L$n"
done
pair "growth" "$labels" "${cmds[@]}"
lbt=""
for n in $growth; do lbt+="${lbt:+ → }$(fmt_s "$(get cmd growth "L$n" wall)")"; done
r=$(get ratio growth "L$last" wall)
row "\`check\` growth, Action mode, loop of ${growth// / → } iterations (baseline: the loop of $first)" "$lbt" \
  "$(fmt_s "$(get cmd growth "L$first" wall)")" "$(fmt_r "$r" "$(get ratio growth "L$last" wall_min)") at $last" \
  "flat: ≤ 1.20 at $last" "$(judge "$r" "<=" 1.2)"

# ---------------------------------------------------------------------------------------------
# 3. JUnit: a generated report, loopbreaker's reader against github.com/joshdk/go-junit: time and
#    peak resident memory (each reader in its own process).

junit_mb=$((junit_bytes >> 20))
say "3. junit: a $junit_mb MB report"
"$work/bin/junit" gen -size "$junit_bytes" "$work/junit.xml"
pair junit joshdk,ours -- "$work/bin/junit" read -reader joshdk "$work/junit.xml" -- "$work/bin/junit" read -reader ours "$work/junit.xml"
r=$(get ratio junit ours wall)
row "JUnit $junit_mb MB report: read time vs joshdk/go-junit" "$(fmt_s "$(get cmd junit ours wall)")" "$(fmt_s "$(get cmd junit joshdk wall)")" \
  "$(fmt_r "$r" "$(get ratio junit ours wall_min)")" "≤ 0.50" "$(judge "$r" "<=" 0.5)"
r=$(get ratio junit ours rss)
row "JUnit $junit_mb MB report: peak memory vs joshdk/go-junit" "$(fmt_kb "$(get cmd junit ours rss)")" "$(fmt_kb "$(get cmd junit joshdk rss)")" \
  "$(fmt_r "$r" "$(get ratio junit ours rss_min)")" "≤ 0.25" "$(judge "$r" "<=" 0.25)"

# ---------------------------------------------------------------------------------------------
# 4. record: a shell-driven loop of $record_iters iterations from a fresh state file, against the
#    same loop doing the bash + jq update of a state file (scripts/benchdata/record.sh), one jq
#    call per value read as shell loops do; per iteration is the loop's time divided by that.

if have jq; then
  say "4. record: loops of $record_iters iterations"
  mkdir -p "$work/rec"
  q_lb=$(printf '%q' "$lb") q_rec=$(printf '%q' "$root/scripts/benchdata/record.sh") q_dir=$(printf '%q' "$work/rec")
  # Exit 1 (OPEN) is a decision; any other failure stops the loop.
  cat > "$work/rec/lb.sh" <<EOF
set -e
rm -f $q_dir/lb.json
for i in \$(seq 1 $record_iters); do
  $q_lb record --state $q_dir/lb.json --policy ralph --format json \\
    --files-changed \$((i % 4)) --tests-passing \$((100 + i)) --tests-failing \$((i % 3)) \\
    --output-length \$((200 + i % 50)) --error "error \$((i % 7)): undefined: handler at main.go:\$i" >/dev/null || [ \$? -eq 1 ]
done
EOF
  cat > "$work/rec/sh.sh" <<EOF
set -e
rm -f $q_dir/sh.json
for i in \$(seq 1 $record_iters); do
  bash $q_rec $q_dir/sh.json \\
    \$((i % 4)) \$((100 + i)) \$((i % 3)) \$((200 + i % 50)) "error \$((i % 7)): undefined: handler at main.go:\$i" >/dev/null || [ \$? -eq 1 ]
done
EOF
  pair record bash-jq,loopbreaker -- bash "$work/rec/sh.sh" -- bash "$work/rec/lb.sh"
  r=$(get ratio record loopbreaker wall)
  per() { awk -v t="$1" -v n="$record_iters" 'BEGIN{ print t/n }'; }
  row "\`record\` per iteration vs bash + jq (a jq call per value read, as shell loops do)" \
    "$(fmt_s "$(per "$(get cmd record loopbreaker wall)")")" "$(fmt_s "$(per "$(get cmd record bash-jq wall)")")" \
    "$(fmt_r "$r" "$(get ratio record loopbreaker wall_min)")" "≤ 0.05" "$(judge "$r" "<=" 0.05)"
else
  row "\`record\` per iteration vs bash + jq" "n/a" "n/a" "n/a" "≤ 0.05" "skipped: no jq"
fi

# ---------------------------------------------------------------------------------------------
# 5. The binary: its size and start-up.

say "5. binary size and start-up"
git_bin=$(git --exec-path)/git
[ -f "$git_bin" ] || git_bin=$(command -v git)
size_lb=$(wc -c < "$lb")
size_git=$(wc -c < "$git_bin")
row "Binary size (static, stripped; baseline: the git executable)" "$(awk -v b="$size_lb" 'BEGIN{printf "%.1f MiB", b/1048576}')" \
  "$(awk -v b="$size_git" 'BEGIN{printf "%.1f MiB", b/1048576}')" "$(awk -v a="$size_lb" -v b="$size_git" 'BEGIN{printf "%.2f", a/b}')" \
  "≤ 16 MiB" "$(judge "$size_lb" "<=" 16777216)"
saved_rounds=$rounds rounds=$((rounds * 3))
pair startup git,loopbreaker -- git --version -- "$lb" --version
rounds=$saved_rounds
t=$(get cmd startup loopbreaker wall)
row "Start-up: \`loopbreaker --version\` vs \`git --version\`" "$(fmt_s "$t")" "$(fmt_s "$(get cmd startup git wall)")" \
  "$(fmt_r "$(get ratio startup loopbreaker wall)" "$(get ratio startup loopbreaker wall_min)")" "≤ 5 ms" "$(judge "$t" "<=" 0.005)"

# ---------------------------------------------------------------------------------------------
# 6. GitHub API calls of each kind of action run, counted by the fake GitHub API: a pull
#    request's life (two pushes that make progress, then five that change nothing: HALF_OPEN,
#    the trip, OPEN with and without the label in the payload) after N earlier runs, whose
#    records are the previous run's artifact (scripts/benchdata/apicalls.go). The policy is
#    ralph (no iteration cap), so that short and long loops go through the same states.

api_life() { # N: prints "name<TAB>state<TAB>calls" per run
  local n=$1 dir=$work/api$1/loop i c tree blob idx=$work/api$1/index
  mkdir -p "$work/api$n"
  make_loop "$dir" $((n - 1)) # n commits, n - 1 records: the first push is the n-th iteration
  export GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=agent@example.com GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=agent@example.com
  GIT_INDEX_FILE=$idx git -C "$dir" read-tree loop
  blob=$(printf 'package pkg00\n\nconst progress = 1\n' | git -C "$dir" hash-object -w --stdin)
  GIT_INDEX_FILE=$idx git -C "$dir" update-index --add --cacheinfo "100644,$blob,pkg00/progress.go"
  tree=$(GIT_INDEX_FILE=$idx git -C "$dir" write-tree)
  c=$(git -C "$dir" commit-tree "$tree" -p loop -m "loop: progress")
  git -C "$dir" update-ref refs/heads/loop "$c"
  for i in 1 2 3 4 5; do
    c=$(git -C "$dir" commit-tree "loop^{tree}" -p loop -m "loop: no change $i")
    git -C "$dir" update-ref refs/heads/loop "$c"
  done
  "$work/bin/apicalls" -bin "$lb" -repo "$dir" -ledger "$dir.ledger/ledger.json" -policy ralph > "$work/api$n.tsv" ||
    { echo "bench: the API life of a loop of $n failed" >&2; cat "$work/api$n.tsv" >&2; exit 1; }
}
say "6. API calls per run: loops of 3 and $api_long iterations against the fake GitHub API"
api_life 3
api_life "$api_long"
short=$(cut -f3 "$work/api3.tsv" | paste -sd' ')
long=$(cut -f3 "$work/api$api_long.tsv" | paste -sd' ')
most=$(printf '%s %s' "$long" "$short" | tr ' ' '\n' | sort -n | tail -n 1)
result=pass
if [ "$short" != "$long" ] || [ "$most" -gt 5 ]; then result=miss; fi
row "GitHub API calls per action run, $(wc -l < "$work/api3.tsv") kinds of run (listed below), at $api_long iterations (baseline: at 3)" \
  "${long// / · }" "${short// / · }" "most: $most" "≤ 5 on every run, the same at any length" "$result"

# ---------------------------------------------------------------------------------------------

cpu=$(sed -n '/^model name/{s/^model name[[:space:]]*: //;p;q;}' /proc/cpuinfo 2>/dev/null || true)
mem=$(awk '/^MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo 2>/dev/null || echo '? GiB')
load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
echo
echo "loopbreaker $("$lb" --version | cut -d' ' -f2), $(date -u +%Y-%m-%d), $(nproc 2>/dev/null || echo '?') × ${cpu:-unknown CPU}, $mem, $(go version | cut -d' ' -f3), $(git --version)$($quick && echo ', --quick')"
echo "Interleaved: $rounds rounds after a warm-up round, the order rotating. Load average at the start: $load_start; at the end: $load_end. Run time: $((SECONDS / 60)) min $((SECONDS % 60)) s."
echo "Times are medians. Ratio = loopbreaker ÷ baseline per round, median (minimum): below 1 is faster or smaller."
echo
echo "| Measurement | loopbreaker | Baseline | Ratio | Target | Result |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "The runs of the API row, in order (state; calls at $api_long iterations and at 3):"
paste "$work/api$api_long.tsv" "$work/api3.tsv" | while IFS=$'\t' read -r run state calls _ _ short_calls; do
  echo "- $run ($state): $calls, $short_calls"
done
if $strict && printf '%s\n' "${rows[@]}" | grep -q '| miss |$'; then
  echo "bench: some measurements miss their targets" >&2
  exit 1
fi
