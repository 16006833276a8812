#!/usr/bin/env bash
# vendor-json.sh [SRC [DEST]]
# Copies nlohmann_json's headers (Debian's nlohmann-json3-dev, SRC = /usr/include/nlohmann)
# and fmt's beside them (Debian's libfmt-dev, SRC/../fmt; core uses it header-only) into
# DEST/include (default third_party/, an ignored folder that travels with the tree to a bare
# GPU box), so cuda/ builds there alone: cuda/tools/gpu-check.sh finds them there.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRC=${1:-/usr/include/nlohmann}
DEST=${2:-${QF_THIRD_PARTY:-$ROOT/third_party}}
[[ -f "$SRC/json.hpp" ]] || { echo "vendor-json: $SRC/json.hpp not found (apt-get install nlohmann-json3-dev)" >&2; exit 2; }
mkdir -p "$DEST/include"
rm -rf "$DEST/include/nlohmann"
cp -r "$SRC" "$DEST/include/nlohmann"
echo "vendor-json: copied $(du -sh "$DEST/include/nlohmann" | cut -f1) of headers to $DEST/include/nlohmann"
FMT_SRC=$(dirname "$SRC")/fmt
[[ -f "$FMT_SRC/format.h" && -f "$FMT_SRC/format-inl.h" ]] || { echo "vendor-json: $FMT_SRC/format.h not found (apt-get install libfmt-dev)" >&2; exit 2; }
rm -rf "$DEST/include/fmt"
cp -r "$FMT_SRC" "$DEST/include/fmt"
echo "vendor-json: copied $(du -sh "$DEST/include/fmt" | cut -f1) of headers to $DEST/include/fmt"
