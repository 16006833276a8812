#!/usr/bin/env bash
# The serving model's saturated throughput against published maximum-throughput figures
# (resources/calibration/published/saturated.csv: TensorRT-LLM trtllm-bench, FP8 and FP16, H100
# and H200), with the bundled constants. Prints one line per figure (model, GPU, TP, scheme,
# lengths, published, modelled, error %) and the median |error| per source and in all.
#   scripts/published-saturated.sh [BUILD_DIR] [MAX_BATCH] [TOKEN_BUDGET]
# trtllm-bench sizes its batch and token budget per case; 2048 sequences and 8192 tokens a
# step stand in for them (the KV cache binds first for long outputs).
set -euo pipefail
cd "$(dirname "$0")/.."
qfront="${1:-build}/app/qfront"
maxBatch="${2:-2048}"
budget="${3:-8192}"
export qfront maxBatch budget

one() {  # model,gpu,tp,scheme,kv,in,out,published,source,engine
  IFS=, read -r model gpu tp scheme kv in out published source engine <<<"$1"
  modelled=$("$qfront" serving --model "$model" --gpu "$gpu" --tp "$tp" --scheme "$scheme" \
    --engine "${engine:-vllm}" \
    --kv-dtype "$kv" --input-len "$in" --output-len "$out" --load max --max-batch "$maxBatch" \
    --token-budget "$budget" --requests $((20 * maxBatch)) --format json 2>/dev/null |
    sed -n 's/.*"analytic_output_tok_s": \([0-9.e+-]*\).*/\1/p' | head -1)
  [[ -z $modelled ]] && modelled=nan
  awk -v m="$modelled" -v p="$published" -v line="$model $gpu tp$tp $scheme $in/$out" \
    -v src="$source" 'BEGIN { e = (m == "nan") ? "nan" : sprintf("%.1f", 100 * (m / p - 1));
      printf "%s|%s|%s|%s|%s\n", src, line, p, m, e }'
}
export -f one

tail -n +2 resources/calibration/published/saturated.csv | xargs -d '\n' -P 2 -I{} bash -c 'one "$@"' _ {} |
  sort | tee /dev/stderr |
  awk -F'|' '$5 != "nan" { split($1, s, " "); e = ($5 < 0 ? -$5 : $5); all[++n] = e;
               per[s[1]] = per[s[1]] " " e }
             function median(a, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
                 if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
               return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
             END { for (src in per) { k = split(per[src], v, " "); printf "%s: %d figures, median |error| %.1f%%\n", src, k, median(v, k) }
                   printf "all: %d figures, median |error| %.1f%%\n", n, median(all, n) }'
