#!/usr/bin/env bash
# gpu-check.sh OUTDIR [--full]
# On a bare GPU box (nvcc + CMake, no network, no Qt): configures cuda/ standalone, builds it
# with all cores, runs qf-cuda-check (quick sweep unless --full) and leaves
#   OUTDIR/measurements.json  every record + environment
#   OUTDIR/log.txt            build + run log
# The summary table is printed last. Exit status: qf-cuda-check's (non-zero when any
# correctness check fails, 2 without a GPU), or the build's when it fails.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 OUTDIR [--full]" >&2
  exit 64
fi
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
SWEEP=--quick
[[ "${2:-}" == "--full" ]] && SWEEP=--full
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)            # cuda/
BUILD=${QF_CUDA_BUILD_DIR:-$OUT/build-cuda}
LOG="$OUT/log.txt"
: >"$LOG"

NVCC=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
JOBS=$(nproc 2>/dev/null || echo 4)
{
  echo "== gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) sweep=$SWEEP"
  "$NVCC" --version | tail -n 2
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv || true
} 2>&1 | tee -a "$LOG"

start=$(date +%s)
if ! { cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" &&
       cmake --build "$BUILD" -j "$JOBS"; } >>"$LOG" 2>&1; then
  tail -n 40 "$LOG"
  echo "gpu-check: build failed (full log in $LOG)" >&2
  exit 3
fi
echo "== built in $(( $(date +%s) - start )) s" | tee -a "$LOG"

# qf-cuda-check logs each record as it lands and prints the summary table last; keep the
# table at the very end of this script's output too.
set +e
"$BUILD/qf-cuda-check" --out "$OUT/measurements.json" $SWEEP 2>&1 | tee -a "$LOG" >"$OUT/run.txt"
rc=${PIPESTATUS[0]}
set -e
invalid=$(grep '^\[' "$OUT/run.txt" | grep -c INVALID || true)
echo "== total $(( $(date +%s) - start )) s, qf-cuda-check exit $rc, invalid records: $invalid"
grep -v '^\[' "$OUT/run.txt" | grep -v '^wrote ' || true   # the summary table, last
exit "$rc"
