#!/usr/bin/env python3
"""Hostile-input campaign against the built programs: every kind of input that once lost
data, crashed, hung or passed silently, run again and judged.

usage: scripts/reliability-campaign.py [BUILD_DIR] [--json OUT.json] [--only SUBSTRING]

Each case runs qfront or quantfront (offscreen) in a scratch folder and is judged into one
class:
  refused   exit 2 with one line on stderr naming what is wrong (what bad input must get)
  correct   exit 0 and what the case checks holds
  crash     killed by a signal, or exit 1 (an internal error: an exception that escaped)
  hang      still running after its time limit
  loss      a file the case guards was changed, destroyed or left unreadable
  wrong     exit 0 where a refusal was due, or a check that fails
The totals are printed last; the exit status is 1 when any of the last four is not 0.
"""
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAD = ("crash", "hang", "loss", "wrong")


class Ctx:
    def __init__(self, build, work):
        self.build = build
        self.work = work
        self.qfront = os.path.join(build, "app", "qfront")
        self.quantfront = os.path.join(build, "app", "quantfront")
        self.example = os.path.join(ROOT, "resources", "sessions", "llama-3.1-8b-70b.json")
        self.data = os.path.join(ROOT, "tests", "data")
        self.runtime = os.path.join(work, "runtime")
        os.makedirs(self.runtime, mode=0o700, exist_ok=True)

    def path(self, name):
        return os.path.join(self.work, name)

    def write(self, name, text):
        p = self.path(name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def session(self, name="s.json"):
        p = self.path(name)
        shutil.copyfile(self.example, p)
        return p


def digest(path):
    if not os.path.exists(path):
        return None
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        return ("special", stat.S_IFMT(st.st_mode))
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run(ctx, argv, timeout=120, env_extra=None):
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["XDG_CONFIG_HOME"] = ctx.path("config")
    env["XDG_DATA_HOME"] = ctx.path("data")
    env["XDG_STATE_HOME"] = ctx.path("state")
    env["XDG_RUNTIME_DIR"] = ctx.runtime
    if env_extra:
        env.update(env_extra)
    try:
        p = subprocess.run(argv, cwd=ctx.work, env=env, capture_output=True, timeout=timeout,
                           text=True, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", ""


def judge(expect, rc, out, err, check_msg, guard_msg):
    if rc is None:
        return "hang", "no exit within the limit"
    if rc < 0 or rc >= 128:
        return "crash", "signal %d" % (-rc if rc < 0 else rc - 128)
    if rc == 1:
        return "crash", "internal error: " + err.strip()[:200]
    if guard_msg:
        return "loss", guard_msg
    if expect == "refuse":
        if rc != 2:
            return "wrong", "exit %d where a refusal was due" % rc
        lines = [ln for ln in err.splitlines() if ln.strip() and "warning:" not in ln
                 and "note:" not in ln]
        if len(lines) != 1:
            return "wrong", "refusal in %d lines" % len(lines)
        if check_msg:
            return "wrong", check_msg
        return "refused", lines[0][:160]
    if rc != 0:
        return "wrong", "exit %d: %s" % (rc, err.strip()[:200])
    if check_msg:
        return "wrong", check_msg
    return "correct", ""


# --- cases -------------------------------------------------------------------------------
# Each returns (expect, rc, out, err, check_msg, guard_msg).

def q(ctx, *args, **kw):
    return run(ctx, [ctx.qfront] + list(args), **kw)


def gui(ctx, *args, **kw):
    return run(ctx, [ctx.quantfront] + list(args), **kw)


def guarded(ctx, paths, fn):
    before = {p: digest(p) for p in paths}
    rc, out, err = fn()
    changed = [p for p in paths if digest(p) != before[p]]
    return rc, out, err, ("changed: " + ", ".join(os.path.basename(p) for p in changed)
                          if changed else "")


def refuse(ctx, *args, guard=(), timeout=120, needle=None):
    rc, out, err, lost = guarded(ctx, list(guard), lambda: q(ctx, *args, timeout=timeout))
    msg = ""
    if needle and rc == 2 and needle not in err:
        msg = "refusal does not say %r: %s" % (needle, err.strip()[:160])
    return "refuse", rc, out, err, msg, lost


def session_loads(ctx, path):
    rc, out, err = q(ctx, "session", "list", path)
    return "" if rc == 0 else "session no longer opens: " + err.strip()[:160]


CASES = []


def case(name):
    def reg(fn):
        CASES.append((name, fn))
        return fn
    return reg


# Data lost or destroyed
@case("session edits at once keep both updates (hide + hide, 5 trials)")
def _(ctx):
    for trial in range(5):
        s = ctx.session("race%d.json" % trial)
        procs = [subprocess.Popen([ctx.qfront, "session", "hide", s, cid], cwd=ctx.work,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for cid in ("8b-bf16-a6000x1", "8b-w8a8-int8-a6000x1")]
        rcs = [p.wait(timeout=60) for p in procs]
        if any(r != 0 for r in rcs):
            return "ok", max(rcs), "", "", "an edit failed", ""
        doc = json.load(open(s))
        hidden = set((doc.get("view") or {}).get("hidden", []))
        if not {"8b-bf16-a6000x1", "8b-w8a8-int8-a6000x1"} <= hidden:
            return "ok", 0, "", "", "", "an update was lost (hidden: %s)" % sorted(hidden)
    return "ok", 0, "", "", "", ""


@case("calibrate -o onto a FIFO is refused and the FIFO stays")
def _(ctx):
    fifo = ctx.path("out.fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    pts = os.path.join(ROOT, "resources", "calibration", "published", "h100-vllm-fit.csv")
    return refuse(ctx, "calibrate", pts, "--gpu", "h100-sxm", "-o", fifo, guard=[fifo])


@case("quantfront --dump-session onto a FIFO is refused and the FIFO stays")
def _(ctx):
    fifo = ctx.path("dump.fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    rc, out, err, lost = guarded(ctx, [fifo], lambda: gui(ctx, "--dump-session", fifo))
    return "refuse", rc, out, err, "", lost


@case("quantfront --export onto the open session is refused")
def _(ctx):
    s = ctx.session("open.json")
    rc, out, err, lost = guarded(ctx, [s], lambda: gui(ctx, "--session", s, "--export", s))
    return "refuse", rc, out, err, "", lost


@case("session rename to an id with a newline is refused and changes nothing")
def _(ctx):
    s = ctx.session()
    return refuse(ctx, "session", "rename", s, "8b-bf16-a6000x1", "a\nb", guard=[s])


@case("session rename to an id with an escape is refused and changes nothing")
def _(ctx):
    s = ctx.session()
    return refuse(ctx, "session", "rename", s, "8b-bf16-a6000x1", "a\x1b[31mb", guard=[s])


def many_candidates(ctx, name, n):
    doc = json.load(open(ctx.example))
    base = doc["candidates"]
    cands = []
    for i in range(n):
        c = dict(base[i % len(base)])
        c["id"] = "%s-%d" % (c["id"], i)
        c["metrics"] = {k: v for k, v in c["metrics"].items()
                        if v["provenance"]["kind"] != "modelled"}
        cands.append(c)
    doc["candidates"] = cands
    doc["imported_runs"] = []
    doc["view"] = {}
    p = ctx.path(name)
    with open(p, "w") as f:
        json.dump(doc, f)
    return p


@case("session refresh of 32,000 candidates: refused with the size, the session kept")
def _(ctx):
    s = many_candidates(ctx, "big32k.json", 32000)
    exp, rc, out, err, msg, lost = refuse(ctx, "session", "refresh", s, guard=[s], timeout=300,
                                          needle="refresh would add about")
    return exp, rc, out, err, msg, lost or session_loads(ctx, s)


@case("session refresh of 2,000 candidates: done, and the session opens again")
def _(ctx):
    s = many_candidates(ctx, "big2k.json", 2000)
    rc, out, err = q(ctx, "session", "refresh", s, timeout=300)
    msg = "" if os.path.getsize(s) < 768 << 20 else "grew past the reader's limit"
    return "ok", rc, out, err, msg, session_loads(ctx, s) if rc == 0 else ""


# Crashes and unbounded work
@case("frontier of a 400 MB session whose unknown key holds 2x10^8 zeros")
def _(ctx):
    p = ctx.path("zeros.json")
    doc = json.load(open(ctx.example))
    head = json.dumps(doc)[:-1]
    with open(p, "w") as f:
        f.write(head + ', "x_unknown": [0')
        chunk = ",0" * (1 << 20)
        for _ in range(190):
            f.write(chunk)
        f.write("]}")
    return refuse(ctx, "frontier", p, guard=[p], timeout=300)


@case("calibrate of a 500 MB points CSV is refused by its size")
def _(ctx):
    p = ctx.path("huge.csv")
    with open(p, "w") as f:
        f.write("model,gpu,tp,scheme,kv_dtype,batch,input_len,output_len,metric,value,unit\n")
        row = "llama-3-8b,h100-sxm,1,bf16,bf16,16,128,128,e2e_latency_s,1.16509,s\n" * 10000
        while f.tell() < 500 << 20:
            f.write(row)
    return refuse(ctx, "calibrate", p, "--gpu", "h100-sxm", timeout=120)


LOADS = ",".join(str(i) for i in range(1, 201))
SERVE = ["serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--scheme", "bf16"]


@case("serving: 200 loads x 10^6 requests is refused before it starts")
def _(ctx):
    return refuse(ctx, *SERVE, "--input-len", "100", "--output-len", "10", "--load", LOADS,
                  "--requests", "1000000", timeout=65)


@case("serving: 10^5-token prompts fed one token a step is refused before it starts")
def _(ctx):
    return refuse(ctx, *SERVE, "--input-len", "100000", "--output-len", "10", "--token-budget",
                  "1", "--max-batch", "1", "--load", "1", timeout=65)


# Silently wrong
@case("serving at load max with 19 requests warns that it is a ramp")
def _(ctx):
    rc, out, err = q(ctx, *SERVE, "--input-len", "100", "--output-len", "10", "--load", "max",
                     "--requests", "19")
    return "ok", rc, out, err, "" if "warning: --requests 19" in err else "no warning", ""


for tp in ("3", "1024"):
    @case("serving --tp %s for a 32-head model" % tp)
    def _(ctx, tp=tp):
        return refuse(ctx, *SERVE, "--tp", tp, "--input-len", "100", "--output-len", "10",
                      "--load", "1")

    @case("quantfront --export with --tp %s" % tp)
    def _(ctx, tp=tp):
        rc, out, err = gui(ctx, "--model", "llama-3.1-8b", "--tp", tp, "--export",
                           ctx.path("tp.png"))
        return "refuse", rc, out, err, "", ""

    @case("import --tp %s of a latency run" % tp)
    def _(ctx, tp=tp):
        s = ctx.session()
        return refuse(ctx, "import", os.path.join(ctx.data, "import", "vllm_latency.json"), "-o",
                      s, "--model", "llama-3.1-8b", "--batch", "8", "--input-len", "128",
                      "--output-len", "128", "--tp", tp, guard=[s])

    @case("calibrate points with tp %s" % tp)
    def _(ctx, tp=tp):
        p = ctx.write("tp.csv", "model,gpu,tp,scheme,kv_dtype,batch,input_len,output_len,"
                      "metric,value,unit\nllama-3.1-8b,h100-sxm,%s,bf16,bf16,16,128,128,"
                      "e2e_latency_s,1.2,s\n" % tp)
        return refuse(ctx, "calibrate", p, "--gpu", "h100-sxm")


@case("search for 10^7 + 10^7 tokens on an 8,192-token model")
def _(ctx):
    return refuse(ctx, "search", "--model", "llama-3-8b", "--input-len", "10000000",
                  "--output-len", "10000000")


def points(ctx, name, rows):
    return ctx.write(name, "model,gpu,tp,scheme,kv_dtype,batch,input_len,output_len,metric,"
                     "value,unit\n" + "".join(r + "\n" for r in rows))


@case("calibrate: a static batch of 10^7 sequences")
def _(ctx):
    p = points(ctx, "b7.csv", ["llama-3-8b,h100-sxm,1,bf16,bf16,10000000,128,128,"
                               "e2e_latency_s,1.2,s"])
    return refuse(ctx, "calibrate", p, "--gpu", "h100-sxm")


@case("calibrate: every point 1e308 s")
def _(ctx):
    p = points(ctx, "big.csv", ["llama-3-8b,h100-sxm,1,bf16,bf16,%d,128,128,e2e_latency_s,"
                                "1e308,s" % b for b in (1, 8, 16, 64)])
    return refuse(ctx, "calibrate", p, "--gpu", "h100-sxm")


@case("calibrate: every point 1 ns")
def _(ctx):
    p = points(ctx, "ns.csv", ["llama-3-8b,h100-sxm,1,bf16,bf16,%d,128,128,e2e_latency_s,"
                               "1e-9,s" % b for b in (1, 8, 16, 64)])
    return refuse(ctx, "calibrate", p, "--gpu", "h100-sxm")


@case("calibrate: 1,000 copies of five rows are counted once, with a note")
def _(ctx):
    src = os.path.join(ROOT, "resources", "calibration", "published", "h100-vllm-fit.csv")
    rows = open(src).read().splitlines()
    head, body = rows[0], rows[1:6]
    p = ctx.write("dup.csv", head + "\n" + "\n".join(body * 1000) + "\n")
    rc, out, err = q(ctx, "calibrate", p, "--gpu", "h100-sxm", "--format", "json")
    return "ok", rc, out, err, "" if "counted once" in err or "repeat" in err else \
        "no note about repeated rows", ""


@case("calibrate: --device with a CSV")
def _(ctx):
    src = os.path.join(ROOT, "resources", "calibration", "published", "h100-vllm-fit.csv")
    return refuse(ctx, "calibrate", src, "--gpu", "h100-sxm", "--device", "NVIDIA H100")


@case("calibrate: --model with a CSV")
def _(ctx):
    src = os.path.join(ROOT, "resources", "calibration", "published", "h100-vllm-fit.csv")
    return refuse(ctx, "calibrate", src, "--gpu", "h100-sxm", "--model", "llama-3-8b")


for lat in ("0", "-1", "1e308", "1e-300"):
    @case("import a latency run with avg_latency %s" % lat)
    def _(ctx, lat=lat):
        s = ctx.session()
        doc = json.load(open(os.path.join(ctx.data, "import", "vllm_latency.json")))
        doc["avg_latency"] = float(lat)
        p = ctx.write("lat.json", json.dumps(doc))
        return refuse(ctx, "import", p, "-o", s, "--model", "llama-3.1-8b", "--batch", "8",
                      "--input-len", "128", "--output-len", "128", guard=[s])


@case("import: one --batch stamped on two static-batch files")
def _(ctx):
    s = ctx.session()
    a = os.path.join(ctx.data, "import", "vllm_latency.json")
    b = ctx.path("lat2.json")
    shutil.copyfile(a, b)
    with open(b, "a") as f:
        f.write("\n")
    return refuse(ctx, "import", a, b, "-o", s, "--model", "llama-3.1-8b", "--batch", "8",
                  "--input-len", "128", "--output-len", "128", guard=[s])


def kl_pair(ctx, a_lines, b_lines):
    a = ctx.write("a.jsonl", "\n".join(a_lines) + "\n")
    b = ctx.write("b.jsonl", "\n".join(b_lines) + "\n")
    return a, b


def tops(p, top=None):
    """A bare chat response whose one generated token has the top-2 logprobs p."""
    if top is None:
        top = [{"token": "x", "logprob": p[0]}, {"token": "y", "logprob": p[1]}]
    content = [{"token": "x", "logprob": p[0], "top_logprobs": top}]
    return json.dumps({"choices": [{"index": 0, "logprobs": {"content": content}}]})


@case("stats kl: a blank first line does not shift prompts")
def _(ctx):
    import math
    rows = [tops((math.log(0.5 + 0.01 * i), math.log(0.3))) for i in range(20)]
    a, b = kl_pair(ctx, [""] + rows, rows)
    rc, out, err = q(ctx, "stats", "kl", a, b)
    msg = ""
    if rc == 0:
        try:
            v = json.loads(out)["kl_per_token_nats"]["mean"]
            msg = "" if abs(v) < 1e-9 else "KL %g for identical runs" % v
        except (ValueError, KeyError) as e:
            msg = "unreadable output: %s" % e
    return "ok", rc, out, err, msg, ""


@case("stats kl: top-k probabilities summing to 5")
def _(ctx):
    import math
    bad = tops((math.log(2.5), math.log(2.5)))
    a, b = kl_pair(ctx, [bad] * 3, [bad] * 3)
    return refuse(ctx, "stats", "kl", a, b)


@case("stats kl: top_logprobs that is not a list")
def _(ctx):
    lots = tops((-0.1, -2.0), top="lots")
    a, b = kl_pair(ctx, [lots] * 3, [lots] * 3)
    return refuse(ctx, "stats", "kl", a, b)


@case("a GPU file with memory_gib twice")
def _(ctx):
    g = ctx.write("dup-gpu.json", open(os.path.join(ctx.data, "cli", "gpu_custom.json")).read()
                  .replace("{", '{"memory_gib": 1,', 1))
    return refuse(ctx, "model", "--model", "llama-3.1-8b", "--gpu", g)


@case("a session with candidates twice")
def _(ctx):
    text = open(ctx.example).read().replace('"candidates": [', '"candidates": [], "candidates": [',
                                            1)
    p = ctx.write("dupkey.json", text)
    return refuse(ctx, "frontier", p, guard=[p])


SEARCH = ["search", "--model", "llama-3.1-8b", "--use-case", "rag"]
for label, extra, field in [
        ("a GPU listed twice", ["--gpus", "h100-sxm,H100-SXM", "--price", "h100-sxm=2"], "gpus"),
        ("a scheme listed twice", ["--gpus", "h100-sxm", "--price", "h100-sxm=2", "--schemes",
                                   "bf16,bf16"], "schemes"),
        ("two prices for one GPU", ["--gpus", "h100-sxm", "--price", "h100-sxm=2,h100-sxm=3"],
         "price"),
        ("a price of 1e308 USD/h", ["--gpus", "h100-sxm", "--price", "h100-sxm=1e308"], "price"),
        ("a load of 5e-324 req/s", ["--load", "5e-324"], "load"),
        ("a TPOT target with one output token", None, "slo-tpot-ms")]:
    @case("search: " + label)
    def _(ctx, extra=extra, field=field):
        if extra is None:
            return refuse(ctx, "search", "--model", "llama-3.1-8b", "--input-len", "100",
                          "--output-len", "1", "--slo-tpot-ms", "0.001", needle=field)
        return refuse(ctx, *SEARCH, *extra, needle=field)


@case("serving: --moe on a dense model")
def _(ctx):
    return refuse(ctx, "serving", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--linear",
                  "bf16", "--moe", "w4a16-g128", "--use-case", "rag", "--load", "1")


for dur in ("0", "-5", "1e-300"):
    @case("stats serving with a duration of %s s" % dur)
    def _(ctx, dur=dur):
        doc = json.load(open(os.path.join(ctx.data, "import", "vllm_serve_detailed.json")))
        doc["duration"] = float(dur)
        p = ctx.write("dur.json", json.dumps(doc))
        return refuse(ctx, "stats", "serving", p)


@case("quantfront --tab given twice")
def _(ctx):
    rc, out, err = gui(ctx, "--tab", "pareto", "--tab", "deploy", "--export", ctx.path("t.png"))
    return "refuse", rc, out, err, "", ""


@case("quantfront --screenshot x.pdf")
def _(ctx):
    rc, out, err = gui(ctx, "--screenshot", ctx.path("x.pdf"))
    return "refuse", rc, out, err, "", ""


@case("session detach takes the 12-digit prefix session list prints")
def _(ctx):
    s = ctx.session()
    rc, out, err = q(ctx, "import", os.path.join(ctx.data, "import", "vllm_serve_detailed.json"),
                     "-o", s, "--model", "llama-3.1-8b", "--scheme", "bf16", "--gpu", "h100-sxm")
    if rc != 0:
        return "ok", rc, out, err, "import failed", ""
    sha = hashlib.sha256(open(os.path.join(ctx.data, "import", "vllm_serve_detailed.json"),
                              "rb").read()).hexdigest()[:12]
    rc, out, err = q(ctx, "session", "detach", s, sha)
    return "ok", rc, out, err, "", session_loads(ctx, s) if rc == 0 else ""


@case("a well-formed serving run still works (throughput figure beside the model)")
def _(ctx):
    rc, out, err = q(ctx, *SERVE, "--use-case", "rag", "--load", "2", "--format", "json")
    msg = ""
    if rc == 0:
        rows = json.loads(out).get("rows") or json.loads(out).get("loads") or []
        msg = "" if rows else "no rows"
    return "ok", rc, out, err, msg, ""


def main():
    args = sys.argv[1:]
    build = os.path.join(ROOT, "build")
    out_json = None
    only = None
    while args:
        a = args.pop(0)
        if a == "--json":
            out_json = args.pop(0)
        elif a == "--only":
            only = args.pop(0)
        else:
            build = os.path.abspath(a)
    results = []
    totals = {}
    with tempfile.TemporaryDirectory(prefix="qf-campaign-") as work:
        ctx = Ctx(build, work)
        for name, fn in CASES:
            if only and only not in name:
                continue
            try:
                expect, rc, out, err, msg, lost = fn(ctx)
                cls, why = judge(expect, rc, out, err, msg, lost)
            except Exception as e:  # the harness itself
                cls, why = "wrong", "harness: %r" % e
            totals[cls] = totals.get(cls, 0) + 1
            results.append({"case": name, "class": cls, "detail": why})
            print("%-8s %s%s" % (cls, name, ("  -- " + why) if why else ""), flush=True)
    print("\ntotals: " + ", ".join("%s %d" % (k, totals.get(k, 0))
                                   for k in ("refused", "correct") + BAD)
          + " (%d cases)" % len(results))
    if out_json:
        with open(out_json, "w") as f:
            json.dump({"totals": totals, "cases": results}, f, indent=1)
    return 1 if any(totals.get(k, 0) for k in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
