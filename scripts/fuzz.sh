#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/fuzz_*.cpp) with clang and runs each one for a bounded
# time, seeded from tests/data/import/ (session targets: tests/data/session/ and the
# bundled sessions). Prints, per target, the executions and any findings
# (crash, leak, timeout or out-of-memory inputs are saved under build-fuzz/findings/<target>/).
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET_NAME_FILTER]
#   SECONDS_PER_TARGET  default 60
#   TARGET_NAME_FILTER  run only targets whose name contains this (e.g. "import")
# Environment: QF_FUZZ_JOBS (build parallelism, default 1), QF_FUZZ_SEEDS (seed directory).
set -euo pipefail

seconds="${1:-60}"
filter="${2:-}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"
seeds="${QF_FUZZ_SEEDS:-$root/tests/data/import}"
jobs="${QF_FUZZ_JOBS:-1}"

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DQF_BUILD_FUZZERS=ON -DQF_BUILD_GUI=OFF \
  -DQF_ENABLE_CUDA=OFF -DQF_BUILD_TESTS=OFF -DQF_BUILD_BENCH=OFF >/dev/null
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

targets=()
for name in "${names[@]}"; do targets+=("$build/fuzz/$name"); done
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz targets were built" >&2
  exit 1
fi

status=0
for target in "${targets[@]}"; do
  [ -x "$target" ] || continue
  name="$(basename "$target")"
  case "$name" in *"$filter"*) ;; *) continue ;; esac
  corpus="$build/corpus/$name"
  findings="$build/findings/$name"
  mkdir -p "$corpus" "$findings"
  log="$build/$name.log"
  seedDirs=("$seeds")
  if [ -z "${QF_FUZZ_SEEDS:-}" ] && [[ "$name" == *session* ]]; then
    seedDirs=("$root/tests/data/session" "$root/resources/sessions")
  fi
  echo "== $name: ${seconds}s, seeds from ${seedDirs[*]#$root/}"
  set +e
  "$target" "$corpus" "${seedDirs[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$findings/" >"$log" 2>&1
  rc=$?
  set -e
  runs="$(grep -Eo 'Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' | tail -1 || true)"
  [ -n "$runs" ] || runs="$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" |
                           grep -Eo '[0-9]+$' | tail -1 || true)"
  found=("$findings"/*)
  echo "   executions: ${runs:-unknown}"
  echo "   corpus entries: $(find "$corpus" -type f | wc -l)"
  if [ ${#found[@]} -gt 0 ] || [ "$rc" -ne 0 ]; then
    status=1
    echo "   FINDINGS (exit $rc):"
    for f in "${found[@]}"; do echo "     $f"; done
    grep -E 'ERROR: |SUMMARY: ' "$log" | head -5 | sed 's/^/     /'
    echo "   log: $log"
  else
    echo "   findings: none"
  fi
done
exit "$status"
