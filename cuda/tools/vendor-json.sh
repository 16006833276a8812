#!/usr/bin/env bash
# Copies nlohmann_json's headers (Debian's nlohmann-json3-dev) into third_party/include, an
# ignored folder that travels with the tree to a bare GPU box, so cuda/ builds there alone.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRC=${1:-/usr/include/nlohmann}
[[ -f "$SRC/json.hpp" ]] || { echo "vendor-json: $SRC/json.hpp not found (apt-get install nlohmann-json3-dev)" >&2; exit 2; }
mkdir -p "$ROOT/third_party/include"
rm -rf "$ROOT/third_party/include/nlohmann"
cp -r "$SRC" "$ROOT/third_party/include/nlohmann"
echo "vendor-json: copied $(du -sh "$ROOT/third_party/include/nlohmann" | cut -f1) of headers to third_party/include/nlohmann"
