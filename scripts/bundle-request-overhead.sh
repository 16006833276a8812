#!/usr/bin/env bash
# Sets the bundled per-request fixed cost t_req (request_overhead_ms) of every catalog GPU in
# resources/catalog/calibration.json from published single-client serving figures
# (resources/calibration/published/request-overhead.csv): each TTFT measured at concurrency 1
# minus the model's TTFT for that request without t_req (`qfront calibrate --check`, the
# bundled constants of the row's GPU). t_req is the median of these differences; its spread
# (the standard deviation of the positive differences' logarithms) enters each GPU's e2e_fit
# record as one more constant, independent of the others, so TTFT intervals carry it. Host-side work (tokenising, scheduling, HTTP,
# streaming) does not depend on the GPU, so every GPU takes the same value.
# docs/benchmarks.md, "A served request's fixed cost". Run after scripts/fit-bundled-*.sh.
#   scripts/bundle-request-overhead.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
qfront="$(realpath "${1:-build}")/app/qfront"
csv=resources/calibration/published/request-overhead.csv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - <<'PY'
import json
path = 'resources/catalog/calibration.json'
doc = json.load(open(path))
for c in list(doc['gpus'].values()) + [e for g in doc['gpus'].values() for e in g.get('engines', {}).values()]:
    c.pop('request_overhead_ms', None)
    c['source'] = c['source'].split('; per-request cost ')[0]
    rec = c.get('e2e_fit')
    if rec and 'request_overhead_ms' in rec.get('names', []):
        n = len(rec['names']); i = rec['names'].index('request_overhead_ms')
        cov = rec['covariance']
        rec['covariance'] = [cov[r * n + k] for r in range(n) for k in range(n) if r != i and k != i]
        rec['names'].pop(i)
        rec['constants'].pop('request_overhead_ms', None)
open(path, 'w').write(json.dumps(doc, indent=2) + '\n')
PY
# Each row's GPU as a file whose calibration block is the bundled one without t_req (read from
# disk: the program's own copy of the defaults may carry an earlier t_req).
for gpu in $(tail -n +2 "$csv" | cut -d, -f2 | sort -u); do
  python3 - "$gpu" "$work/$gpu-gpu.json" <<'PY'
import json, sys
gid, out = sys.argv[1], sys.argv[2]
g = [x for x in json.load(open('resources/catalog/gpus.json'))['gpus'] if x['id'] == gid][0]
g['calibration'] = json.load(open('resources/catalog/calibration.json'))['gpus'][gid]
json.dump(g, open(out, 'w'))
PY
  "$qfront" calibrate "$csv" --gpu "$work/$gpu-gpu.json" --check --format json 2>/dev/null >"$work/$gpu.json"
done
python3 - "$work" <<'PY'
import glob, json, math, statistics, sys
diffs = []
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    if f.endswith('-gpu.json'):
        continue
    for p in json.load(open(f))['points']:
        if p['metric'] == 'ttft_ms':
            diffs.append(p['measured'] - p['predicted'])
diffs.sort()
t_req = statistics.median(diffs)
logs = [math.log(d) for d in diffs if d > 0]
sigma = statistics.stdev(logs)
print('TTFT - modelled TTFT, ms:', ', '.join(f'{d:.1f}' for d in diffs))
print(f't_req = {t_req:.2f} ms, ln-spread {sigma:.3f} (80%: {t_req*math.exp(-1.2816*sigma):.1f}-{t_req*math.exp(1.2816*sigma):.1f} ms)')
path = 'resources/catalog/calibration.json'
doc = json.load(open(path))
for c in list(doc['gpus'].values()) + [e for g in doc['gpus'].values() for e in g.get('engines', {}).values()]:
    c['request_overhead_ms'] = t_req
    c['source'] = c['source'].split('; per-request cost ')[0] + (
        f'; per-request cost {t_req:.1f} ms from published single-client TTFTs')
    rec = c.get('e2e_fit')
    if not rec:
        continue
    n = len(rec['names'])
    cov = rec['covariance']
    grown = []
    for r in range(n + 1):
        for k in range(n + 1):
            grown.append(cov[r * n + k] if r < n and k < n else (sigma * sigma if r == k == n else 0.0))
    rec['covariance'] = grown
    rec['names'].append('request_overhead_ms')
    rec['constants']['request_overhead_ms'] = {'value': t_req, 'spread': t_req * sigma}
open(path, 'w').write(json.dumps(doc, indent=2) + '\n')
PY
