#!/usr/bin/env python3
"""Prints each GUI figure of a benchmark's JSON beside its target and the last recorded value
(bench/gui_targets.json), so that a regression shows the day it lands.
    scripts/bench-guard.py BENCH_NAME < bench-output.json
The JSON is the benchmarks' harness document: {"benchmarks": [{"name", "results": [{"axes",
figures...}]}]}. A figure names its benchmark, the field of a result, and optionally `select`:
values the result's figures (or, failing those, its axes) must have.
Exit status 0 always: shared machines are noisy, and the figures are read, not asserted."""
import json
import os
import sys


def matches(result, select):
    for key, want in select.items():
        have = result.get(key, result.get("axes", {}).get(key))
        if have != want:
            return False
    return True


def figure_of(doc, fig):
    for bench in doc.get("benchmarks", []):
        if bench.get("name") != fig["benchmark"]:
            continue
        for result in bench.get("results", []):
            if "failed" in result or not matches(result, fig.get("select", {})):
                continue
            node = result
            for key in fig["field"] if isinstance(fig["field"], list) else [fig["field"]]:
                node = node.get(key, {}) if isinstance(node, dict) else {}
            if isinstance(node, (int, float)):
                return node
    return None


def main():
    name = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "bench", "gui_targets.json")) as f:
        figures = [x for x in json.load(f)["figures"] if x["bench"] == name]
    if not figures:
        return
    out = json.load(sys.stdin)
    print(f"  {'figure':<48} {'now':>9} {'target':>9} {'last':>9}  verdict")
    for fig in figures:
        now = figure_of(out, fig)
        target, last = fig.get("target_ms"), fig.get("last_ms")
        verdict = []
        if now is not None and target is not None:
            verdict.append("meets target" if now < target else "MISSES target")
        if now is not None and last:
            ratio = now / last
            if ratio > 1.25:
                verdict.append(f"{ratio:.2f}x the last recorded: a regression?")
            elif ratio < 0.8:
                verdict.append(f"{ratio:.2f}x the last recorded: record the gain")
        fmt = lambda v: "-" if v is None else f"{v:.1f} ms"
        print(f"  {fig['name']:<48} {fmt(now):>9} {fmt(target):>9} {fmt(last):>9}  "
              + "; ".join(verdict))


if __name__ == "__main__":
    main()
