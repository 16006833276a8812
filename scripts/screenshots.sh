#!/bin/sh
# Screenshots of each tab of the real program for the README: docs/images/tab-<tab>.png,
# 1400x900, taken under a virtual X server (xvfb-run) from the example session (Serving and
# Evidence: from the test data's synthetic sweep and lm-eval results, imported by qfront).
# Usage: scripts/screenshots.sh [path/to/quantfront]   (default: build/app/quantfront)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
exe=${1:-$root/build/app/quantfront}
out=$root/docs/images
[ -x "$exe" ] || { echo "screenshots.sh: no quantfront at $exe (build it first)" >&2; exit 2; }
command -v xvfb-run >/dev/null || { echo "screenshots.sh: xvfb-run not found (apt-get install xvfb)" >&2; exit 2; }
mkdir -p "$out"
# A throw-away home: no recent files, autosaves or settings of the user's leak into the images.
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
# The Serving and Evidence tabs need imported runs: the synthetic request-rate sweep and the
# lm-eval results of the test data, imported by qfront into a throw-away session (one
# candidate per checkpoint).
qfront=$(dirname "$exe")/qfront
demo=$home/imported.json
[ -x "$qfront" ] || { echo "screenshots.sh: no qfront beside $exe" >&2; exit 2; }
"$qfront" import "$root"/tests/data/import/sweep/vllm_serve_*.json \
  "$root"/tests/data/import/e2e/lm_eval_results_*.json -o "$demo" --gpu h100-sxm >/dev/null
for tab in step throughput serving schemes pareto candidates evidence measured; do
  session=
  case $tab in serving | evidence) session=$demo ;; esac
  HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data XDG_CACHE_HOME=$home/cache \
    xvfb-run -a -s "-screen 0 1600x1000x24" \
    "$exe" ${session:+"$session"} --tab "$tab" --recover later --screenshot "$out/tab-$tab.png" \
    --size 1400x900
  # Smaller files where an optimiser is installed (the images stay lossless).
  if command -v optipng >/dev/null; then optipng -quiet -o2 "$out/tab-$tab.png"; fi
  size=$(wc -c <"$out/tab-$tab.png")
  # Still over 200 KB (a table full of text): a 256-colour palette (ImageMagick).
  if [ "$size" -gt 204800 ] && command -v convert >/dev/null; then
    convert "$out/tab-$tab.png" -dither None -colors 256 "PNG8:$out/tab-$tab.png"
    size=$(wc -c <"$out/tab-$tab.png")
  fi
  echo "docs/images/tab-$tab.png: $size bytes"
  if [ "$size" -gt 204800 ]; then echo "screenshots.sh: tab-$tab.png is over 200 KB" >&2; fi
done
