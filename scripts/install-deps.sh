#!/usr/bin/env bash
# Installs, from Debian's packages, exactly what QuantFront's build, GUI and tests need.
# Idempotent: packages already present are not touched; no network use when all are present.
set -euo pipefail

PACKAGES=(
  cmake make g++ pkg-config            # toolchain
  qt6-base-dev qt6-svg-dev libgl-dev   # Qt 6 Widgets, PrintSupport, Svg (SVG export)
  libqcustomplot-dev                   # QCustomPlot (Qt 6 build: QCustomPlotQt6)
  nlohmann-json3-dev                   # JSON
  libfmt-dev                           # numbers as text (header-only: no runtime library)
  libssl-dev                           # SHA-256 of imported files (OpenSSL libcrypto)
  catch2                               # tests (Catch2 v2)
  xvfb xauth                           # `make run` without a display, GUI tests' screenshots
  fonts-dejavu-core                    # a font for offscreen rendering and exports
  clang-format                         # the formatting check (make format-check)
  python3                              # the install check reads JSON outputs (make test)
)
if [[ "${1:-}" == "--with-packaging" ]]; then
  # make package: CPack's Debian generator reads linked libraries with dpkg-shlibdeps and file.
  PACKAGES+=(dpkg-dev file fakeroot)
fi
if [[ "${1:-}" == "--with-tools" ]]; then
  # Optional: fuzzing and sanitizers (clang), screenshot and PDF inspection.
  PACKAGES+=(clang libclang-rt-14-dev imagemagick poppler-utils)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || true
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
