#!/usr/bin/env bash
# The scheme ratios arXiv:2411.02355 quotes, recomputed with the bundled constants: synchronous
# cost reduction (bf16's latency over the scheme's, one request at a time) and asynchronous
# speedup (the scheme's saturated requests per second over bf16's), each the mean over the
# paper's seven use cases (prompt + output tokens). Prints one line per published figure:
# deployment, scheme, mode, published, modelled, error %.
#   scripts/seed001-ratios.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
qfront="${1:-build}/app/qfront"
use_cases="256:1024 768:128 1024:1024 1024:128 256:128 512:256 4096:512"

sync_ratio() {  # model gpu tp scheme
  local sum=0 in out a b
  for uc in $use_cases; do
    in=${uc%:*} out=${uc#*:}
    read -r a b < <("$qfront" model --model "$1" --gpu "$2" --tp "$3" --scheme "bf16,$4" --batch 1 \
      --input-len "$in" --output-len "$out" --format json |
      python3 -c 'import json,sys; j=json.load(sys.stdin); print(*[s["points"][0]["e2e_latency_s"] for s in j["schemes"]])')
    sum=$(python3 -c "print($sum + $a / $b)")
  done
  python3 -c "print($sum / 7)"
}

async_ratio() {  # model gpu tp scheme
  local sum=0 in out a b
  for uc in $use_cases; do
    in=${uc%:*} out=${uc#*:}
    a=$("$qfront" serving --model "$1" --gpu "$2" --tp "$3" --scheme bf16 --input-len "$in" \
      --output-len "$out" --load max --requests 2000 --format json |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["loads"][0]["analytic_output_tok_s"])')
    b=$("$qfront" serving --model "$1" --gpu "$2" --tp "$3" --scheme "$4" --input-len "$in" \
      --output-len "$out" --load max --requests 2000 --format json |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["loads"][0]["analytic_output_tok_s"])')
    sum=$(python3 -c "print($sum + $b / $a)")
  done
  python3 -c "print($sum / 7)"
}

while IFS=, read -r model gpu tp scheme mode published; do
  if [[ $mode == sync ]]; then m=$(sync_ratio "$model" "$gpu" "$tp" "$scheme"); else
    m=$(async_ratio "$model" "$gpu" "$tp" "$scheme"); fi
  python3 -c "print(f'$model {$tp}x$gpu $scheme $mode: published {$published:.2f}x, model {$m:.2f}x ({100 * ($m / $published - 1):+.1f}%)')"
done <<'EOF'
llama-3.1-8b,a6000,1,w4a16-g128,sync,2.39
llama-3.1-8b,a6000,1,w8a8-int8,sync,1.54
llama-3.1-70b,a6000,4,w4a16-g128,sync,2.96
llama-3.1-70b,a6000,4,w8a8-int8,sync,1.94
llama-3.1-70b,a100-80gb,2,w4a16-g128,sync,2.67
llama-3.1-70b,a100-80gb,2,w8a8-int8,sync,1.81
llama-3.1-70b,h100-sxm,2,w4a16-g128,sync,2.11
llama-3.1-70b,h100-sxm,2,w8a8-fp8,sync,1.84
llama-3.1-8b,a6000,1,w8a8-int8,async,1.38
llama-3.1-8b,a6000,1,w4a16-g128,async,1.08
llama-3.1-70b,a6000,4,w8a8-int8,async,1.91
llama-3.1-70b,a6000,4,w4a16-g128,async,1.92
llama-3.1-70b,a100-80gb,4,w8a8-int8,async,1.87
llama-3.1-70b,a100-80gb,4,w4a16-g128,async,1.64
llama-3.1-70b,h100-sxm,4,w8a8-fp8,async,1.77
llama-3.1-70b,h100-sxm,4,w4a16-g128,async,1.55
EOF
