#!/usr/bin/env bash
# gpu-check.sh OUTDIR [--full]
# On a bare GPU box (nvcc + CMake ≥ 3.22, no network, no package manager, no Qt): configures
# cuda/ standalone, builds qf-cuda-check for the GPU in the machine, runs it (quick sweep unless
# --full; the quick sweep finishes in well under 6 minutes on an H100/H200) and leaves
#   OUTDIR/measurements.json  every record + environment (GPU UUID, clocks and power during
#                             timing, power limit, ECC, driver, CUDA, cuBLASLt, git sha, argv)
#   OUTDIR/log.txt            build + run log
# The target table is printed last. Exit status: qf-cuda-check's (non-zero when any
# correctness check fails, 2 without a GPU), 3 when the build fails, 4 when the toolchain or
# nlohmann_json is missing.
#
# Supported CUDA / host gcc pairs (NVIDIA's installation guides): CUDA 12.0–12.3 with gcc ≤ 12,
# CUDA 12.4–12.9 with gcc ≤ 13, CUDA 13.x with gcc ≤ 14. When the default gcc is newer, the
# newest g++-N on the PATH within the limit is used as nvcc's host compiler.
# nlohmann_json: Debian's /usr/include/nlohmann, or third_party/include (an ignored folder that
# cuda/tools/vendor-json.sh fills on a machine that has the package; carry it along).
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
ROOT=$(cd "$SRC/.." && pwd)
BUILD=${QF_CUDA_BUILD_DIR:-$OUT/build-cuda}
LOG="$OUT/log.txt"
: >"$LOG"
die() { echo "gpu-check: $*" >&2; exit 4; }

NVCC=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[[ -x "$NVCC" ]] || die "nvcc not found (set CUDACXX or put /usr/local/cuda/bin on PATH)"
command -v cmake >/dev/null || die "cmake not found"
cmake_ver=$(cmake --version | head -n1 | grep -oE '[0-9]+\.[0-9]+' | head -n1)
[[ $(printf '%s\n' 3.22 "$cmake_ver" | sort -V | head -n1) == 3.22 ]] ||
  die "CMake $cmake_ver is older than 3.22"
if [[ ! -f /usr/include/nlohmann/json.hpp && ! -f "$ROOT/third_party/include/nlohmann/json.hpp" ]]; then
  die "nlohmann/json.hpp not found: run cuda/tools/vendor-json.sh where nlohmann-json3-dev is installed and carry third_party/"
fi

# Host compiler within the CUDA version's limit.
cuda_ver=$("$NVCC" --version | grep -oE 'release [0-9]+\.[0-9]+' | grep -oE '[0-9]+\.[0-9]+')
cuda_major=${cuda_ver%%.*}; cuda_minor=${cuda_ver##*.}
if (( cuda_major >= 13 )); then max_gcc=14
elif (( cuda_major == 12 && cuda_minor >= 4 )); then max_gcc=13
elif (( cuda_major == 12 )); then max_gcc=12
else die "CUDA $cuda_ver is older than 12.0"
fi
HOST_ARGS=()
gcc_major=$(g++ -dumpversion 2>/dev/null | cut -d. -f1 || echo 0)
if (( gcc_major > max_gcc )); then
  pick=""
  for v in $(seq "$max_gcc" -1 9); do
    if command -v "g++-$v" >/dev/null; then pick=$(command -v "g++-$v"); break; fi
  done
  [[ -n "$pick" ]] || die "CUDA $cuda_ver takes gcc <= $max_gcc, found gcc $gcc_major and no g++-N <= $max_gcc"
  HOST_ARGS=(-DCMAKE_CUDA_HOST_COMPILER="$pick")
fi
# This GPU only where CMake can say so (3.24+): a quarter of the device code to compile.
ARCH_ARGS=()
[[ $(printf '%s\n' 3.24 "$cmake_ver" | sort -V | head -n1) == 3.24 ]] && ARCH_ARGS=(-DQF_CUDA_NATIVE=ON)

JOBS=$(nproc 2>/dev/null || echo 4)
{
  echo "== gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) sweep=$SWEEP cuda=$cuda_ver gcc=$gcc_major cmake=$cmake_ver ${HOST_ARGS[*]:-} ${ARCH_ARGS[*]:-}"
  "$NVCC" --version | tail -n 2
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,power.limit,ecc.mode.current --format=csv || true
} 2>&1 | tee -a "$LOG"

start=$(date +%s)
if ! { cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" \
         "${HOST_ARGS[@]}" "${ARCH_ARGS[@]}" &&
       cmake --build "$BUILD" -j "$JOBS" --target qf-cuda-check; } >>"$LOG" 2>&1; then
  tail -n 40 "$LOG"
  echo "gpu-check: build failed (full log in $LOG)" >&2
  exit 3
fi
echo "== built in $(( $(date +%s) - start )) s" | tee -a "$LOG"

# qf-cuda-check logs each record as it lands and prints the summary, then the target table,
# last; keep them at the very end of this script's output too.
set +e
"$BUILD/qf-cuda-check" --out "$OUT/measurements.json" $SWEEP 2>&1 | tee -a "$LOG" >"$OUT/run.txt"
rc=${PIPESTATUS[0]}
set -e
invalid=$(grep '^\[' "$OUT/run.txt" | grep -c INVALID || true)
echo "== total $(( $(date +%s) - start )) s, qf-cuda-check exit $rc, invalid records: $invalid"
grep -v '^\[' "$OUT/run.txt" | grep -v '^wrote ' || true   # the summary and targets, last
exit "$rc"
