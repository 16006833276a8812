#!/usr/bin/env bash
# Runs the installed programs under PREFIX from their installed files only, and checks what
# they print. Used by install-check.sh (a staging prefix, the source tree hidden) and by
# package-root-check.sh (PREFIX=/usr in a fresh Debian root that never saw the source tree).
#   installed-programs-check.sh PREFIX VERSION [SOURCE_DIR that must be out of reach]
set -uo pipefail
prefix=${1:?usage: installed-programs-check.sh PREFIX VERSION [SOURCE_DIR]}
version=${2:?}
src=${3:-}
work=$(mktemp -d)
failures=0
pass() { echo "ok    $1"; }
fail() { echo "FAIL  $1" >&2; failures=$((failures + 1)); }
check() {  # name, then a command that must succeed
  local name=$1; shift
  if "$@" > "$work/out" 2> "$work/err"; then pass "$name"; else
    fail "$name"; sed 's/^/      /' "$work/err" "$work/out" | head -20 >&2; fi
}

if [[ -n $src && -e $src/CMakeLists.txt ]]; then
  echo "note  the source tree $src is visible: this run cannot prove the programs ignore it"
fi
qfront=$prefix/bin/qfront
check "qfront --version is $version" bash -c "[[ \$('$qfront' --version) == 'qfront $version' ]]"
check "qfront model reads the installed catalog" bash -c "'$qfront' model --model llama-3-8b \
  --gpu h100-sxm --scheme bf16,w4a16-g128 --batch 1,64 --format json > '$work/model.json'"
check "qfront model's JSON carries version $version" python3 -c "import json,sys
j = json.load(open('$work/model.json'))
assert j['qfront_version'] == '$version', j['qfront_version']
assert [s['id'] for s in j['schemes']] == ['bf16', 'w4a16-g128'], j['schemes']"
check "qfront search answers from the installed files" bash -c "'$qfront' search \
  --model llama-3.1-8b --use-case code-completion --load sync --slo-tpot-ms 30 --format json \
  > '$work/search.json'"
check "qfront search's JSON has a deployment and version $version" python3 -c "import json
j = json.load(open('$work/search.json'))
assert j['qfront_version'] == '$version', j.get('qfront_version')
assert j['output_format_version'] >= 1, j.get('output_format_version')
assert j['best']['gpu'] and j['best']['launch'], j['best']"
check "the published calibration points are installed" test -s \
  "$prefix/share/quantfront/calibration/published/h100-vllm-test.csv"
check "qfront calibrate --check runs on them" bash -c "'$qfront' calibrate \
  '$prefix/share/quantfront/calibration/published/h100-vllm-test.csv' --gpu h100-sxm --check \
  > /dev/null"

if [[ -x $prefix/bin/quantfront ]]; then
  check "quantfront --version is $version" bash -c \
    "'$prefix/bin/quantfront' --version | grep -qx 'QuantFront $version'"
  check "quantfront --export step.png headless" env -u DISPLAY -u WAYLAND_DISPLAY \
    "$prefix/bin/quantfront" --export "$work/step.png"
  check "step.png is a PNG" bash -c "head -c 8 '$work/step.png' | od -An -tx1 | \
    grep -q '89 50 4e 47 0d 0a 1a 0a'"
  check "the desktop entry is installed" test -s "$prefix/share/applications/quantfront.desktop"
  check "the session MIME type is installed" grep -q '\*.session.json' \
    "$prefix/share/mime/packages/quantfront.xml"
  check "the icon is installed" test -s "$prefix/share/icons/hicolor/scalable/apps/quantfront.svg"
fi

for page in qfront quantfront qfront-measure; do
  f=$prefix/share/man/man1/$page.1.gz
  [[ -e $f || $page == qfront ]] || continue
  check "man page $page(1) is installed" test -s "$f"
  if command -v man > /dev/null; then
    check "man $page renders without warnings" bash -c "MANWIDTH=80 man --warnings -l '$f' \
      2>&1 > '$work/man.txt' | (! grep .) && grep -q NAME '$work/man.txt'"
  fi
done
check "qfront(1) documents every option of qfront model --help" bash -c "
  zcat '$prefix/share/man/man1/qfront.1.gz' | sed 's/\\\\-/-/g' > '$work/qfront.1'
  for o in \$('$qfront' model --help | grep -o -- '^  --[a-z0-9-]*'); do
    grep -q -- \"\$o\" '$work/qfront.1' || { echo \"missing \$o\"; exit 1; }
  done"

completion=$prefix/share/bash-completion/completions/qfront
check "bash completion completes commands, options and catalog ids" bash -c "
  source '$completion'
  COMP_WORDS=(qfront mod); COMP_CWORD=1; _qfront; [[ \${COMPREPLY[*]} == model ]] || exit 1
  COMP_WORDS=(qfront search --slo-t); COMP_CWORD=2; _qfront
  [[ \${COMPREPLY[*]} == '--slo-ttft-ms --slo-tpot-ms' ]] || exit 2
  COMP_WORDS=(qfront model --gpu h20); COMP_CWORD=3; _qfront
  [[ \" \${COMPREPLY[*]} \" == *' h200-sxm '* ]] || exit 3"

# A broken install: one bundled file removed from a copy of the prefix.
broken=$work/broken
cp -a "$prefix" "$broken"
rm "$broken/share/quantfront/catalog/gpus.json"
"$broken/bin/qfront" model --model llama-3-8b --gpu h100-sxm > /dev/null 2> "$work/broken.err"
rc=$?
check "a broken install exits 2" test "$rc" -eq 2
check "... naming the file and the folder it looked in" grep -q \
  "catalog/gpus.json.*missing from the data folder $broken/share/quantfront" "$work/broken.err"
QUANTFRONT_DATA_DIR=$work/nowhere "$qfront" catalog > /dev/null 2> "$work/env.err"
rc=$?
check "QUANTFRONT_DATA_DIR naming no folder exits 2" test "$rc" -eq 2
check "... and says the variable chose it" grep -q "QUANTFRONT_DATA_DIR" "$work/env.err"
QUANTFRONT_DATA_DIR=$prefix/share/quantfront "$broken/bin/qfront" catalog > /dev/null 2>&1
check "QUANTFRONT_DATA_DIR repairs it" test $? -eq 0

rm -rf "$work"
if [[ $failures -gt 0 ]]; then
  echo "installed-programs-check: $failures check(s) failed" >&2
  exit 1
fi
echo "installed-programs-check: every check passed"
