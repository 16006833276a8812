#!/usr/bin/env bash
# Runs qfront over the bundled examples and test fixtures and writes every output (stdout,
# stderr, exit status) into one folder, so two builds can be compared byte for byte:
#   scripts/golden-outputs.sh build/app/qfront /tmp/before
#   scripts/golden-outputs.sh build/app/qfront /tmp/after && diff -r /tmp/before /tmp/after
set -u
QF=$(realpath "$1"); OUT=$2
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
n=0
run() {
  n=$((n + 1))
  local f; f=$(printf '%s/%03d' "$OUT" "$n")
  printf '%s\n' "$*" > "$f.cmd"
  "$QF" "$@" > "$f.out" 2> "$f.err"; echo $? > "$f.rc"
}
D=tests/data
S=resources/sessions/llama-3.1-8b-70b.json
run --version
run catalog
run catalog --format json
for fmt in table json csv; do
  run model --model llama-3-8b --gpu h100-sxm --scheme bf16,w8a8-fp8,w4a16-g128 --batch 1:1024 --format $fmt
done
run model --model qwen3-30b-a3b --gpu h100-sxm --linear w8a8-fp8 --moe w4a8-fp8-g128 --format json
run model --model llama-3.1-70b --gpu h100-sxm --tp 2 --scheme bf16,w4a16-g128
run model --model llama-3.1-70b --gpu h100-sxm --tp 2 --scheme bf16,w4a16-g128 --format json
run model --model deepseek-v3 --gpu h200 --tp 8 --scheme bf16,w8a8-fp8,w4a16-g128 --format json
run model --model mixtral-8x7b --gpu a100-80gb --scheme bf16,w8a16,w8a8-int8 --context 4096 --format json
run model --model $D/cli/model_gptq.json --gpu $D/cli/gpu_custom.json --format json
run model --model llama-3-8b --gpu h100-sxm --scheme bf16 --kv-dtype fp8 --context 2048 --format csv
for f in $D/cli/*.json $D/cli/not_json.txt; do run model --model "$f" --gpu h100-sxm; run model --model llama-3-8b --gpu "$f"; done
run frontier $S
run frontier $S --format json
run frontier $S --objectives open_llm_v2_recovery_pct:max,step_ms_b1:min --gate "open_llm_v2_recovery_pct>=97" --format json
for f in $D/frontier/*; do run frontier "$f"; run frontier "$f" --format json; done
run stats binomial --p 0.80 --n 1319
run stats binomial --p 0.80 --n 1319 --format json
run stats power --p 0.80 --delta 0.01
run stats paired $D/stats/bf16/*.jsonl $D/stats/w4a16/*.jsonl --metric exact_match
run stats paired $D/stats/bf16/*.jsonl $D/stats/w4a16/*.jsonl --metric exact_match --format json
run stats paired $D/stats/bf16/*.jsonl $D/stats/w4a16_badhash/*.jsonl --metric exact_match
run stats serving $D/import/vllm_serve_detailed.json --slo-ttft-ms 500 --slo-tpot-ms 70
run stats serving $D/import/vllm_serve_detailed.json --slo-ttft-ms 500 --slo-tpot-ms 70 --format json
T=/tmp/qf-golden-work; rm -rf "$T"; mkdir -p "$T"
for f in $D/import/*; do
  cp $D/session/minimal_v2.json $T/s.json
  run import "$f" -o $T/s.json
  n=$((n + 1)); sed -e 's/"qfront_version"[^,]*,//' $T/s.json > $(printf '%s/%03d.session' "$OUT" "$n")
done
rm -rf "$T"
