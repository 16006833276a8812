#!/bin/sh
# Screenshots of each tab of the real program for the README: docs/images/tab-<tab>.png,
# 1400x900, taken under a virtual X server (xvfb-run) from the example session.
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
for tab in step throughput schemes pareto candidates measured; do
  HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data XDG_CACHE_HOME=$home/cache \
    xvfb-run -a -s "-screen 0 1600x1000x24" \
    "$exe" --tab "$tab" --recover later --screenshot "$out/tab-$tab.png" --size 1400x900
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
