#!/usr/bin/env python3
"""Writes a synthetic request-rate sweep in the format of `vllm bench serve --save-result`
(with --save-detailed per-request arrays) for three checkpoints of Llama-3.1-8B: bf16, FP8 and
W4A16, at request rates 1, 2, 4, 8, 16 and inf, 24 prompts each. The numbers are made up (a
simple queueing shape: TPOT grows with the requests in flight, TTFT with the queue), clearly
labelled as synthetic, for tests and for the documentation's screenshots. Deterministic.

Usage: generate.py [OUTDIR]   (default: this file's folder)
"""
import json
import os
import random
import sys

MODELS = {
    "bf16": ("meta-llama/Llama-3.1-8B-Instruct", 7.4, 1.00),
    "fp8": ("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", 5.1, 1.00),
    # W4A16: fastest at low load, slower per token when saturated, and stops a little earlier.
    "w4a16": ("neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", 4.2, 0.92),
}
RATES = [1, 2, 4, 8, 16, "inf"]
PROMPTS = 24
INPUT_LEN = 512
OUTPUT_LEN = 128


def percentile(values, p):
    v = sorted(values)
    k = (len(v) - 1) * p / 100.0
    f = int(k)
    c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)


def run(tag, rate, rng):
    model, tpot0_ms, length_factor = MODELS[tag]
    r = 64.0 if rate == "inf" else float(rate)
    # Requests in flight grow with the rate; the compute-bound part grows faster for W4A16.
    in_flight = min(PROMPTS, 1 + r * 2.5)
    slope = 0.055 if tag == "w4a16" else 0.03
    tpot_ms = tpot0_ms * (1 + slope * in_flight)
    ttft_base_ms = 18 + 0.9 * in_flight * (1.25 if tag == "bf16" else 1.0)
    ttfts, itls, outs, lat = [], [], [], []
    for _ in range(PROMPTS):
        n = max(8, int(rng.gauss(OUTPUT_LEN * length_factor, 9)))
        n = min(n, OUTPUT_LEN)
        ttft = ttft_base_ms * rng.uniform(0.8, 1.4) / 1e3
        gaps = [tpot_ms * rng.uniform(0.9, 1.12) / 1e3 for _ in range(n - 1)]
        ttfts.append(round(ttft, 6))
        itls.append([round(g, 6) for g in gaps])
        outs.append(n)
        lat.append(round(ttft + sum(gaps), 6))
    duration = PROMPTS / r + max(lat) if rate != "inf" else max(lat) * 1.6
    total_out = sum(outs)
    tpots = [(l - t) / (o - 1) * 1e3 for l, t, o in zip(lat, ttfts, outs)]
    all_itls = [g * 1e3 for row in itls for g in row]
    doc = {
        "date": "20251110-120000",
        "endpoint_type": "openai",
        "backend": "vllm",
        "label": "synthetic sweep (QuantFront test data, not a measurement)",
        "model_id": model,
        "tokenizer_id": model,
        "num_prompts": PROMPTS,
        "request_rate": "inf" if rate == "inf" else float(rate),
        "burstiness": 1.0,
        "max_concurrency": None,
        "duration": round(duration, 4),
        "completed": PROMPTS,
        "failed": 0,
        "total_input_tokens": INPUT_LEN * PROMPTS,
        "total_output_tokens": total_out,
        "request_throughput": round(PROMPTS / duration, 6),
        "request_goodput": None,
        "output_throughput": round(total_out / duration, 6),
        "total_token_throughput": round((total_out + INPUT_LEN * PROMPTS) / duration, 6),
    }
    for name, values in (("ttft", [t * 1e3 for t in ttfts]), ("tpot", tpots), ("itl", all_itls),
                         ("e2el", [l * 1e3 for l in lat])):
        doc[f"mean_{name}_ms"] = sum(values) / len(values)
        doc[f"median_{name}_ms"] = percentile(values, 50)
        mean = doc[f"mean_{name}_ms"]
        doc[f"std_{name}_ms"] = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
        doc[f"p90_{name}_ms"] = percentile(values, 90)
        doc[f"p99_{name}_ms"] = percentile(values, 99)
    doc.update({
        "input_lens": [INPUT_LEN] * PROMPTS,
        "output_lens": outs,
        "ttfts": ttfts,
        "itls": itls,
        "latencies": lat,
        "generated_texts": ["synthetic"] * PROMPTS,
        "errors": [""] * PROMPTS,
    })
    return doc


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rng = random.Random(20251110)
    for tag in MODELS:
        for rate in RATES:
            path = os.path.join(out, f"vllm_serve_{tag}_rate{rate}.json")
            with open(path, "w") as f:
                json.dump(run(tag, rate, rng), f, separators=(",", ":"))
                f.write("\n")


if __name__ == "__main__":
    main()
