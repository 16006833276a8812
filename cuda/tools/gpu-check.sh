#!/usr/bin/env bash
# gpu-check.sh OUTDIR [--full | --build-only]
# On a bare GPU box (nvcc ≥ 12.0 + CMake ≥ 3.22 + a C++20 host compiler; no network,
# no package manager, no Qt, no OpenSSL headers, no system nlohmann_json): configures cuda/
# standalone, builds qf-cuda-check and qfront-measure for the GPU in the machine, runs the
# check (quick sweep unless --full; the quick sweep finishes in well under 6 minutes on an
# H100/H200) and leaves
#   OUTDIR/measurements.json  every record + environment (GPU UUID, clocks and power during
#                             timing, power limit, ECC, driver, CUDA, cuBLASLt, git sha, argv)
#   OUTDIR/log.txt            build + run log
# The target table is printed last.
#
# Stages: preflight (toolchain, headers), configure, build, then the device stages
# (correctness, sweep, targets). --build-only, or a machine without an NVIDIA GPU, stops after
# the build and says which stages were skipped. QF_CUDA_ARCHS=90a-real (say) compiles those
# architectures instead of this machine's GPU.
#
# Exit status: qf-cuda-check's (non-zero when any correctness check fails); 0 after a
# --build-only build; 2 when the build succeeded but the machine has no GPU to run on; 3 when
# the build fails; 4 when the toolchain, nlohmann_json or fmt is missing.
#
# Supported CUDA / host gcc pairs (NVIDIA's installation guides): CUDA 12.0–12.3 with gcc ≤ 12,
# CUDA 12.4–12.9 with gcc ≤ 13, CUDA 13.x with gcc ≤ 14. When the default gcc is newer, the
# newest g++-N on the PATH within the limit is used as nvcc's host compiler.
# nlohmann_json and fmt: third_party/include (an ignored folder that cuda/tools/vendor-json.sh
# fills on a machine that has Debian's nlohmann-json3-dev and libfmt-dev; carry it along;
# QF_THIRD_PARTY names another folder), else /usr/include/nlohmann and /usr/include/fmt.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 OUTDIR [--full | --build-only]" >&2
  exit 64
fi
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
SWEEP=--quick
BUILD_ONLY=0
case "${2:-}" in
  --full) SWEEP=--full ;;
  --build-only) BUILD_ONLY=1 ;;
  "") ;;
  *) echo "gpu-check: unknown option '$2' (use --full or --build-only)" >&2; exit 64 ;;
esac
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)            # cuda/
ROOT=$(cd "$SRC/.." && pwd)
BUILD=${QF_CUDA_BUILD_DIR:-$OUT/build-cuda}
LOG="$OUT/log.txt"
: >"$LOG"
die() { echo "gpu-check: $*" >&2; exit 4; }

# ----- preflight ---------------------------------------------------------------------------
NVCC=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[[ -x "$NVCC" ]] || die "nvcc not found (set CUDACXX or put /usr/local/cuda/bin on PATH)"
command -v cmake >/dev/null || die "cmake not found"
cmake_ver=$(cmake --version | head -n1 | grep -oE '[0-9]+\.[0-9]+' | head -n1)
[[ $(printf '%s\n' 3.22 "$cmake_ver" | sort -V | head -n1) == 3.22 ]] ||
  die "CMake $cmake_ver is older than 3.22"
# The carried headers win over a system package, which is then hidden from CMake.
THIRD_PARTY=${QF_THIRD_PARTY:-$ROOT/third_party}
JSON_ARGS=()
if [[ -f "$THIRD_PARTY/include/nlohmann/json.hpp" ]]; then
  JSON_ARGS=(-DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON -DQF_JSON_INCLUDE_DIR="$THIRD_PARTY/include")
elif [[ ! -f /usr/include/nlohmann/json.hpp ]]; then
  die "nlohmann/json.hpp not found: run cuda/tools/vendor-json.sh where nlohmann-json3-dev is installed and carry third_party/"
fi
if [[ -f "$THIRD_PARTY/include/fmt/format.h" ]]; then
  JSON_ARGS+=(-DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON -DQF_FMT_INCLUDE_DIR="$THIRD_PARTY/include")
elif [[ ! -f /usr/include/fmt/format.h ]]; then
  die "fmt/format.h not found: run cuda/tools/vendor-json.sh where libfmt-dev is installed and carry third_party/"
fi

# Host compiler within the CUDA version's limit.
cuda_ver=$("$NVCC" --version | grep -oE 'release [0-9]+\.[0-9]+' | grep -oE '[0-9]+\.[0-9]+')
cuda_major=${cuda_ver%%.*}; cuda_minor=${cuda_ver##*.}
if (( cuda_major >= 13 )); then max_gcc=14
elif (( cuda_major == 12 && cuda_minor >= 4 )); then max_gcc=13
elif (( cuda_major == 12 )); then max_gcc=12
else die "CUDA $cuda_ver is older than 12.0"
fi
CXX_BIN=${CXX:-g++}
command -v "$CXX_BIN" >/dev/null || die "no C++ compiler ($CXX_BIN) found"
echo 'int main() { return __cplusplus >= 202002L ? 0 : 1; }' >"$OUT/cxx20.cpp"
"$CXX_BIN" -std=c++20 "$OUT/cxx20.cpp" -o "$OUT/cxx20" 2>>"$LOG" && "$OUT/cxx20" ||
  die "$CXX_BIN does not compile C++20"
rm -f "$OUT/cxx20.cpp" "$OUT/cxx20"
HOST_ARGS=()
gcc_major=$("$CXX_BIN" -dumpversion 2>/dev/null | cut -d. -f1 || echo 0)
if (( gcc_major > max_gcc )); then
  pick=""
  for v in $(seq "$max_gcc" -1 9); do
    if command -v "g++-$v" >/dev/null; then pick=$(command -v "g++-$v"); break; fi
  done
  [[ -n "$pick" ]] || die "CUDA $cuda_ver takes gcc <= $max_gcc, found gcc $gcc_major and no g++-N <= $max_gcc"
  HOST_ARGS=(-DCMAKE_CUDA_HOST_COMPILER="$pick")
fi
HAVE_GPU=0
if command -v nvidia-smi >/dev/null; then
  gpus=$(nvidia-smi -L 2>/dev/null || true)
  [[ "$gpus" == *"GPU "* ]] && HAVE_GPU=1
fi
# Architectures: QF_CUDA_ARCHS when set; else this GPU only where CMake can say so (3.24+,
# and only with a GPU to ask): a quarter of the device code to compile.
ARCH_ARGS=(-UQF_CUDA_ARCHS)   # a value cached by an earlier configure of this build folder
if [[ -n "${QF_CUDA_ARCHS:-}" ]]; then
  ARCH_ARGS=(-DQF_CUDA_ARCHS="$QF_CUDA_ARCHS")
elif (( HAVE_GPU )) && [[ $(printf '%s\n' 3.24 "$cmake_ver" | sort -V | head -n1) == 3.24 ]]; then
  ARCH_ARGS+=(-DQF_CUDA_NATIVE=ON)
fi

JOBS=$(nproc 2>/dev/null || echo 4)
{
  echo "== gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) sweep=$SWEEP cuda=$cuda_ver gcc=$gcc_major cmake=$cmake_ver ${HOST_ARGS[*]:-} ${ARCH_ARGS[*]:-}"
  "$NVCC" --version | tail -n 2
  if (( HAVE_GPU )); then
    nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,power.limit,ecc.mode.current --format=csv || true
  fi
} 2>&1 | tee -a "$LOG"

# ----- configure and build (OpenSSL and Qt are never asked for) ------------------------------
start=$(date +%s)
if ! { cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" \
         -DCMAKE_DISABLE_FIND_PACKAGE_OpenSSL=ON -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON \
         "${JSON_ARGS[@]}" "${HOST_ARGS[@]}" "${ARCH_ARGS[@]}" &&
       cmake --build "$BUILD" -j "$JOBS" --target qf-cuda-check qfront-measure; } >>"$LOG" 2>&1; then
  tail -n 40 "$LOG"
  echo "gpu-check: build failed (full log in $LOG)" >&2
  exit 3
fi
echo "== built in $(( $(date +%s) - start )) s" | tee -a "$LOG"

if (( BUILD_ONLY || ! HAVE_GPU )); then
  why="--build-only"
  (( HAVE_GPU )) || why="$why; no NVIDIA GPU on this machine (nvidia-smi -L lists none)"
  (( BUILD_ONLY )) || why="no NVIDIA GPU on this machine (nvidia-smi -L lists none)"
  echo "== device stages skipped ($why): correctness checks, sweep, null-kernel baseline, target table" | tee -a "$LOG"
  (( BUILD_ONLY )) && exit 0
  exit 2
fi

# ----- device stages ---------------------------------------------------------------------------
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
