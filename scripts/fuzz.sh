#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/fuzz_*.cpp) with clang and runs each one until it has
# made QF_FUZZ_RUNS executions (default 10^6) or SECONDS_PER_TARGET have passed, whichever
# comes first, with a dictionary of its format's keys (fuzz/dict/<name>.dict) and inputs of at
# most QF_FUZZ_MAX_LEN bytes. Targets run side by side, one per core (QF_FUZZ_PARALLEL).
# Prints, per target, the executions, the rate and any findings (crash, leak, timeout or
# out-of-memory inputs are saved under build-fuzz/findings/<target>/).
#
# Seeds: import: tests/data/import/; session: tests/data/session/ and the bundled sessions;
# model: tests/data/cli/ and the bundled model configs; csv: tests/data/frontier/.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET_NAME_FILTER]
#   SECONDS_PER_TARGET  upper bound per target, default 900
#   TARGET_NAME_FILTER  run only targets whose name contains this (e.g. "import")
# Environment: QF_FUZZ_RUNS (executions per target, default 1000000; -1: no limit, run for
# SECONDS), QF_FUZZ_MAX_LEN (default 4096; import 1024), QF_FUZZ_PARALLEL (targets at once, default the
# number of cores), QF_FUZZ_JOBS (build parallelism, default the number of cores),
# QF_FUZZ_SEEDS (one seed directory for every target), QF_FUZZ_SKIP_KNOWN (set: step over the
# known findings fuzz/fuzz_support.hpp lists instead of stopping on them).
set -euo pipefail

seconds="${1:-900}"
filter="${2:-}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"
cores="$(nproc 2>/dev/null || echo 2)"
runs="${QF_FUZZ_RUNS:-1000000}"
parallel="${QF_FUZZ_PARALLEL:-$cores}"
jobs="${QF_FUZZ_JOBS:-$cores}"

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DQF_BUILD_FUZZERS=ON -DQF_BUILD_GUI=OFF -DQF_ENABLE_CUDA=OFF -DQF_BUILD_TESTS=OFF \
  -DQF_BUILD_BENCH=OFF >/dev/null
shopt -s nullglob
names=()
for src in "$root"/fuzz/fuzz_*.cpp; do
  name="qf_$(basename "$src" .cpp)"
  case "$name" in *"$filter"*) names+=("$name") ;; esac
done
if [ ${#names[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz target matches '$filter'" >&2
  exit 1
fi
cmake --build "$build" -j"$jobs" --target "${names[@]}"

# Seed directories of one target.
seedsFor() {
  if [ -n "${QF_FUZZ_SEEDS:-}" ]; then echo "$QF_FUZZ_SEEDS"; return; fi
  case "$1" in
    *session*) echo "$root/tests/data/session $root/resources/sessions" ;;
    *model*) echo "$root/tests/data/cli $root/resources/catalog/models" ;;
    *csv*) echo "$root/tests/data/frontier" ;;
    *) echo "$root/tests/data/import" ;;
  esac
}

# Largest input of one target. The importer's cost grows with the input (format detection,
# then line-by-line recovery of a document that does not parse): 1 KiB inputs run about twice
# as fast as 4 KiB ones, and still hold every format's detecting keys.
maxLenFor() {
  if [ -n "${QF_FUZZ_MAX_LEN:-}" ]; then echo "$QF_FUZZ_MAX_LEN"; return; fi
  case "$1" in
    *import*) echo 1024 ;;
    *) echo 4096 ;;
  esac
}

# Runs one target; its log is build-fuzz/<name>.log, its exit status build-fuzz/<name>.rc.
runOne() {
  local name="$1"
  local corpus="$build/corpus/$name" findings="$build/findings/$name"
  local dict="$root/fuzz/dict/${name#qf_fuzz_}.dict"
  mkdir -p "$corpus" "$findings"
  # -entropic=0: libFuzzer's entropic schedule spent a third of the time updating feature
  # frequencies (perf, 2026-11-30); the plain schedule makes ~1.7x the executions.
  local args=(-max_total_time="$seconds" -runs="$runs" -max_len="$(maxLenFor "$name")" -timeout=10
              -rss_limit_mb=2048 -entropic=0 -print_final_stats=1 -artifact_prefix="$findings/")
  [ -f "$dict" ] && args+=(-dict="$dict")
  set +e
  # Two frames of allocation stack instead of 30: ASan's unwinding on every malloc was a fifth
  # of the time. A finding is re-run with full stacks: ASAN_OPTIONS= build-fuzz/fuzz/<t> <input>
  # shellcheck disable=SC2046  # the seed list splits into directories on purpose
  ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=2}" \
    "$build/fuzz/$name" "${args[@]}" "$corpus" $(seedsFor "$name") >"$build/$name.log" 2>&1
  echo $? >"$build/$name.rc"
  set -e
}

status=0
report() {
  local name="$1" log="$build/$1.log" findings="$build/findings/$1"
  local rc executed secs rate
  rc="$(cat "$build/$name.rc" 2>/dev/null || echo 1)"
  executed="$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1 || true)"
  [ -n "$executed" ] || executed="$(grep -Eo 'Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' | tail -1 || true)"
  secs="$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | grep -Eo '[0-9]+ second' | grep -Eo '[0-9]+' | tail -1 || true)"
  rate="$(grep -Eo 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1 || true)"
  local found=("$findings"/*)
  echo "== $name (seeds: $(seedsFor "$name" | sed "s|$root/||g"))"
  echo "   executions: ${executed:-unknown} in ${secs:-?} s (${rate:-?}/s), max_len $(maxLenFor "$name")"
  echo "   corpus entries: $(find "$build/corpus/$name" -type f | wc -l)"
  if [ ${#found[@]} -gt 0 ] || [ "$rc" -ne 0 ]; then
    status=1
    echo "   FINDINGS (exit $rc):"
    for f in "${found[@]}"; do echo "     $f"; done
    grep -E 'ERROR: |SUMMARY: ' "$log" | head -5 | sed 's/^/     /'
    echo "   log: $log"
  else
    echo "   findings: none"
  fi
}

echo "fuzz.sh: ${#names[@]} targets, up to $runs executions or ${seconds}s each, $parallel at a time"
running=0
for name in "${names[@]}"; do
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  runOne "$name" &
  running=$((running + 1))
done
wait
for name in "${names[@]}"; do report "$name"; done
exit "$status"
