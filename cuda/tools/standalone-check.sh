#!/usr/bin/env bash
# standalone-check.sh WORKDIR
# Proves that cuda/ builds as it must on the bare GPU box: runs gpu-check.sh's preflight and
# build stages (--build-only; the device stages are skipped and it says so) with OpenSSL, Qt
# and the system nlohmann_json and fmt hidden from CMake and their headers carried the way
# vendor-json.sh carries them, one architecture (sm_90a) to keep CI's time. Then checks the
# build's own record of what it used: no translation unit read an OpenSSL, Qt or system
# nlohmann or fmt header (the compiler's dependency files), and neither program links
# libcrypto, libfmt or Qt. Exit 0 when all holds; 1 naming what does not; 77 (skipped) without
# nlohmann's or fmt's headers to carry.
set -euo pipefail
WORK=$(mkdir -p "$1" && cd "$1" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fail() { echo "standalone-check: $*" >&2; exit 1; }
if [[ ! -f /usr/include/nlohmann/json.hpp || ! -f /usr/include/fmt/format.h ]]; then
  echo "standalone-check: skipped: no /usr/include/nlohmann or /usr/include/fmt to carry (apt-get install nlohmann-json3-dev libfmt-dev)"
  exit 77
fi
rm -rf "$WORK/third_party" "$WORK/out"
"$HERE/vendor-json.sh" /usr/include/nlohmann "$WORK/third_party" >/dev/null
# The dependency files and flags.make checked below are the Makefile generator's.
export CMAKE_GENERATOR="Unix Makefiles"
set +e
QF_THIRD_PARTY="$WORK/third_party" QF_CUDA_ARCHS=${QF_CUDA_ARCHS:-90a-real} \
  QF_CUDA_BUILD_DIR="$WORK/build" "$HERE/gpu-check.sh" "$WORK/out" --build-only >"$WORK/gpu-check.txt" 2>&1
rc=$?
set -e
cat "$WORK/gpu-check.txt"
(( rc == 0 )) || fail "gpu-check.sh --build-only exited $rc (log: $WORK/out/log.txt)"
grep -q '^== device stages skipped' "$WORK/gpu-check.txt" || fail "gpu-check.sh did not say which stages it skipped"
for exe in qf-cuda-check qfront-measure; do
  [[ -x "$WORK/build/$exe" ]] || fail "$exe was not built"
  if ldd "$WORK/build/$exe" | grep -E 'libcrypto|libfmt|libQt' >/dev/null; then
    fail "$exe links $(ldd "$WORK/build/$exe" | grep -oE 'lib(crypto|fmt|Qt)[^ ]*' | head -n1)"
  fi
done
deps=$(find "$WORK/build" -name '*.d' -o -name 'compiler_depend.make' | head -n 100000)
[[ -n "$deps" ]] || fail "no dependency files in $WORK/build to check"
bad=$(echo "$deps" | xargs grep -lE '/usr/include/(openssl|nlohmann|fmt)/|/qt6/|/Qt[A-Z][A-Za-z]+/' 2>/dev/null | head -n 3 || true)
[[ -z "$bad" ]] || fail "these translation units read OpenSSL, Qt or system nlohmann or fmt headers: $bad"
echo "$deps" | xargs grep -l "$WORK/third_party/include/nlohmann/json.hpp" >/dev/null 2>&1 ||
  fail "no translation unit read the carried nlohmann header"
echo "$deps" | xargs grep -l "$WORK/third_party/include/fmt/format.h" >/dev/null 2>&1 ||
  fail "no translation unit read the carried fmt header"
grep -q 'QF_HAVE_OPENSSL=0' "$WORK/build/core/CMakeFiles/qf_core_base.dir/flags.make" ||
  fail "core's SHA-256 did not build without OpenSSL"
echo "standalone-check: cuda/ built alone (no OpenSSL, Qt or system nlohmann or fmt; SHA-256 portable; device stages skipped)"
