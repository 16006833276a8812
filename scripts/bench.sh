#!/usr/bin/env bash
# Runs every benchmark binary in a build folder and prints their JSON, one after another.
# Figures are reported in docs/benchmarks.md with the machine and the date.
set -euo pipefail
BUILD=${1:-build}
echo "{\"machine\": \"$(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)\", \"date\": \"$(date -u +%F)\"}"
for b in "$BUILD"/bench/qf_bench_* "$BUILD"/bench/qf_gui_bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  out=$(taskset -c 0 "$b")
  echo "$out"
  # The GUI figures beside their targets and the last recorded values (bench/gui_targets.json).
  case "$(basename "$b")" in
    qf_gui_bench_*) echo "$out" | python3 "$(dirname "$0")/bench-guard.py" "$(basename "$b")" ;;
  esac
done
