#!/usr/bin/env bash
# Refits the bundled Hopper constants (resources/catalog/calibration.json) from the fit halves of
# the published H100 sets: vLLM and TensorRT-LLM static batches (LLM-Inference-Bench, the
# TensorRT-LLM tables) and TensorRT-LLM's saturated throughputs over TP 1-8
# (resources/calibration/published/*-fit.csv; the -test halves are never read here).
#   scripts/fit-bundled-hopper.sh [BUILD_DIR]
# First one fit of all of them, from the A6000 carry-over as its prior with the GEMM-shape and
# TP constants seeded (M½ 64 rows, w½ 1024, α 10 µs, t_seq 10 µs) so that the fit names them.
# Then, from that joint fit as the prior, one fit per engine (docs/model.md, "Constants per
# serving engine"): the vLLM half gives the GPU's block (what vLLM and SGLang figures take),
# the TensorRT-LLM static and saturated halves its "engines": {"trtllm": ...} block. The
# H100 SXM takes both; the H200 SXM, H100 PCIe and H20 carry them over (the same Hopper
# kernels); GPUs that carry the A6000 fit take the vLLM block's host, all-reduce and GEMM-shape
# constants. Marlin's η_k stays 0.679 (docs/model.md, "Bundled defaults"). Prints the fits;
# rewrites the file.
set -euo pipefail
cd "$(dirname "$0")/.."
qfront="$(realpath "${1:-build}")/app/qfront"
pub=resources/calibration/published
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$pub"/*.json "$work"/
header="model,gpu,tp,scheme,kv_dtype,batch,input_len,output_len,metric,value,unit,load,max_batch,token_budget,source,engine"
static_rows() {  # FILE ENGINE: a static-batch file's rows in the serving header
  tail -n +2 "$1" | awk -F, -v e="$2" 'BEGIN { OFS = "," } { print $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,"","","",$12,e }'
}
echo "$header" >"$work/vllm-fit.csv"
static_rows "$pub/h100-vllm-fit.csv" vllm >>"$work/vllm-fit.csv"
echo "$header" >"$work/trtllm-fit.csv"
static_rows "$pub/h100-trtllm-fit.csv" trtllm >>"$work/trtllm-fit.csv"
tail -n +2 "$pub/saturated-fit.csv" >>"$work/trtllm-fit.csv"
all="$work/h100-all-fit.csv"
cat "$work/vllm-fit.csv" >"$all"
tail -n +2 "$work/trtllm-fit.csv" >>"$all"
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
g = [x for x in json.load(open('resources/catalog/gpus.json'))['gpus'] if x['id'] == 'h100-sxm'][0]
c = dict(json.load(open('resources/catalog/calibration.json'))['gpus']['h100-sxm'])
for k in ('carried_over_from', 'e2e_fit'):
    c.pop(k, None)
c.update(source='prior', gemm_m_half=64, tp_width_half=1024, allreduce_latency_us=10, seq_overhead_us=10)
g['calibration'] = c
json.dump(g, open(work + '/prior.json', 'w'))
PY
(cd "$work" && "$qfront" calibrate h100-all-fit.csv --gpu prior.json -o joint.json | sed -n '1,16p')
# The joint fit, its record dropped, is the prior of each engine's fit.
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
g = json.load(open(work + '/joint.json'))
g['calibration'].pop('e2e_fit', None)
g['calibration']['source'] = 'joint fit'
json.dump(g, open(work + '/joint-prior.json', 'w'))
PY
(cd "$work" && "$qfront" calibrate vllm-fit.csv --gpu joint-prior.json -o vllm.json | sed -n '1,16p')
(cd "$work" && "$qfront" calibrate trtllm-fit.csv --gpu joint-prior.json -o trtllm.json | sed -n '1,16p')
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
path = 'resources/catalog/calibration.json'
doc = json.load(open(path))
gpus = doc['gpus']
marlin = ('Marlin weight-only kernels (w4a16-g128, w4a16-g128-asym, w8a16) read their weights at '
          '0.679 of the bandwidth (published Marlin-vs-cuBLAS timings on H100, docs/model.md)')
def block(name, what):
    fit = json.load(open(work + '/' + name))['calibration']
    ce = fit['compute_efficiency']
    # One fraction per rate class: fp16 runs as bf16, int8 (and fp4, which Hopper lacks) as fp8.
    ce.update(fp16=ce['bf16'], int8=ce['fp8'], fp4=ce['fp8'])
    fit['source'] = (f'bundled defaults: fitted to {what}, from a joint fit of all 244 as the '
                     'prior; the held-out halves are in docs/benchmarks.md. ' + marlin)
    fit.pop('request_overhead_ms', None)
    # The record keeps what intervals need (constants, covariance, scale, range), not residuals.
    fit['e2e_fit'].pop('residuals', None)
    fit['kernel_bandwidth_efficiency'] = {'w4a16-g128': 0.679, 'w4a16-g128-asym': 0.679, 'w8a16': 0.679}
    return fit
fit = block('vllm.json', '71 published H100 SXM vLLM figures (the fit half of '
            'resources/calibration/published: static batches, TP 1-4)')
trt = block('trtllm.json', '173 published H100 SXM TensorRT-LLM figures (the fit halves of '
            'resources/calibration/published: static batches, TP 1-4, and saturated throughputs, '
            'TP 1-8)')
fit['engines'] = {'trtllm': trt}
gpus['h100-sxm'] = fit
for gid in ('h200-sxm', 'h100-pcie', 'h20'):
    carried = json.loads(json.dumps(fit))
    for c, engine in ((carried, 'vLLM'), (carried['engines']['trtllm'], 'TensorRT-LLM')):
        c['source'] = (f'bundled defaults: carried over from the H100 SXM fit to published {engine} '
                       'figures (the same Hopper kernels); Marlin weight-only kernels read their '
                       'weights at 0.679 of the bandwidth')
        c['carried_over_from'] = 'h100-sxm'
    gpus[gid] = carried
shared = {k: fit[k] for k in ('seq_overhead_us', 'allreduce_latency_us', 'gemm_m_half', 'tp_width_half')}
for gid, c in gpus.items():
    if c.get('carried_over_from') == 'a6000':
        c.update(shared)
        if 'host' not in c['source']:
            c['source'] += ('; host, all-reduce and GEMM-shape constants (t_seq, alpha, M-half, '
                            'w-half) from the H100 SXM fit')
    elif gid in ('a6000', 'a100-80gb'):
        # Their own fits (one TP per model, batch 1) cannot give t_seq or alpha: none is stated.
        for k in ('seq_overhead_us', 'allreduce_latency_us'):
            if c.get(k, 0) <= 1e-5:
                c.pop(k, None)
doc['note'] = ('Bundled end-to-end constants per catalog GPU, applied when a GPU has no calibration '
               'block of its own and --datasheet is not given. a6000 and a100-80gb: fitted by '
               '`qfront calibrate resources/calibration/seed001-points.csv --gpu ID` to arXiv:2411.02355 '
               'Table 5. h100-sxm: fitted by scripts/fit-bundled-hopper.sh to the fit halves of the '
               'published H100 sets (resources/calibration/published), its block to the vLLM figures and '
               'its engines.trtllm block to the TensorRT-LLM ones; h200-sxm, h100-pcie and h20 carry '
               'both over. Other GPUs carry over the A6000 fit with its fraction of the bf16 tensor peak on '
               'every tensor path, and the H100 fit\'s host, all-reduce and GEMM-shape constants. '
               'docs/model.md lists the residuals.')
open(path, 'w').write(json.dumps(doc, indent=2, sort_keys=False) + '\n')
PY
# The per-request fixed cost is not fitted here (no published static row has one).
scripts/bundle-request-overhead.sh "${1:-build}"
echo "rewrote resources/catalog/calibration.json"
