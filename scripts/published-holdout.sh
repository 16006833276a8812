#!/usr/bin/env bash
# The model against published H100/H200 end-to-end figures it was not fitted to
# (resources/calibration/published/, docs/benchmarks.md). For each set: the bundled defaults
# and the datasheet roofline on every point, then a calibration fitted on the set's first half
# and checked on its second half.
#   scripts/published-holdout.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
qfront="${1:-build}/app/qfront"
dir=resources/calibration/published
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

absdir="$(pwd)/$dir"
# Rows only, with config.json models made absolute (the joined files live elsewhere).
rows() { tail -n +2 -q "$@" | sed "s|^\([^/,][^,]*\.json\),|$absdir/\1,|"; }

summary() {  # FILE GPU [--datasheet]: the latency and throughput lines of a check
  "$qfront" calibrate "$1" --gpu "$2" --check "${@:3}" 2>/dev/null |
    { grep -E '^(latency|throughput) ' || echo "(no point)"; } | sed 's/^/    /'
}

for set in h100-vllm h100-trtllm h200-trtllm h100-all; do
  gpu="${set%%-*}-sxm"
  if [[ $set == h100-all ]]; then  # both engines' halves together
    for part in fit test; do
      # The TensorRT-LLM files' header ends in `engine`; vLLM rows get an empty one.
      { head -1 "$dir/h100-trtllm-$part.csv"; rows "$dir/h100-vllm-$part.csv" | sed 's/$/,/'
        rows "$dir/h100-trtllm-$part.csv"; } >"$tmp/h100-all-$part.csv"
    done
    fit="$tmp/h100-all-fit.csv" test="$tmp/h100-all-test.csv"
  else
    fit="$dir/$set-fit.csv" test="$dir/$set-test.csv"
  fi
  { head -1 "$fit"; rows "$fit" "$test"; } >"$tmp/$set-every.csv"
  echo "== $set ($(($(wc -l <"$fit") - 1)) fit + $(($(wc -l <"$test") - 1)) held-out points)"
  echo "  bundled defaults, every point:"
  summary "$tmp/$set-every.csv" "$gpu"
  echo "  datasheet roofline, every point:"
  summary "$tmp/$set-every.csv" "$gpu" --datasheet
  "$qfront" calibrate "$fit" --gpu "$gpu" -o "$tmp/$set.cal.json" >"$tmp/$set.fit.txt" 2>/dev/null
  echo "  fitted on the first half:"
  sed -n '/^constant/,/^$/p' "$tmp/$set.fit.txt" | sed '/^$/d; s/^/    /'
  echo "  checked on the held-out half:"
  summary "$test" "$tmp/$set.cal.json"
done
