#!/usr/bin/env python3
"""`sebx report` against `sebx stats --by step --format json` on one large training run
(issue 43: the report is written within the time stats takes, plus 10%).

Writes a verl-style dump of STEPS x PER_STEP samples (default 500 x 400 = 200,000) made of
the demo's training samples (samples/demo/training/rollout), each with a prose line of its
own so every sample is a rollout of its own while programs repeat (grading stays cheap),
then: one `sebx stats` to grade and remember every verdict in a score cache of the bench's
own, and after that REPEAT alternating runs of `stats --by step --format json` and
`report -o ... --figures ...` over the warm cache. Prints each time, the medians and the
ratio. Uses the binary given (default target/debug/sebx: build it first; the ratio is what
counts, both commands load and compute the same report).

    python3 benches/report_vs_stats.py [--samples 200000] [--repeat 3] [--sebx PATH] [--keep DIR]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "samples", "demo")
PER_STEP = 400


def write_dump(run, samples):
    demo_steps = []
    for n in (1, 2, 3):
        with open(os.path.join(DEMO, "training", "rollout", f"{n}.jsonl")) as f:
            demo_steps.append([json.loads(line) for line in f if line.strip()])
    steps = max(1, samples // PER_STEP)
    os.makedirs(run, exist_ok=True)
    written = 0
    for step in range(1, steps + 1):
        rows = demo_steps[(step - 1) % 3]
        with open(os.path.join(run, f"{step}.jsonl"), "w") as f:
            for i in range(PER_STEP):
                row = dict(rows[i % len(rows)])
                row["step"] = step
                row["output"] = f"Sample {step}-{i}.\n" + row["output"]
                f.write(json.dumps(row) + "\n")
                written += 1
    return written


def timed(cmd, env):
    start = time.perf_counter()
    out = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    took = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out.stderr.decode(errors='replace')}")
    return took


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sebx", default=os.path.join(ROOT, "target", "debug", "sebx"))
    ap.add_argument("--keep", help="write the dump and caches here and keep them")
    args = ap.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="sebx-report-bench-")
    try:
        run = os.path.join(work, "exp", "rollout")
        if not os.path.isdir(run):
            n = write_dump(run, args.samples)
            print(f"wrote {n} samples to {run}")
        env = dict(os.environ)
        env["SEBX_SCORE_CACHE"] = os.path.join(work, "scores")
        env["SEBX_TRACE_CACHE"] = os.path.join(work, "traces")
        inputs = [run, os.path.join(DEMO, "tasks.jsonl"), os.path.join(DEMO, "api_doc.jsonl")]
        stats = [args.sebx, "stats", *inputs, "--by", "step", "--format", "json", "-q",
                 "-o", os.path.join(work, "stats.json")]
        report = [args.sebx, "report", *inputs, "-q", "-o", os.path.join(work, "report.html"),
                  "--figures", os.path.join(work, "figures")]
        print(f"first stats (grading, remembering): {timed(stats, env):.2f} s")
        times = {"stats": [], "report": []}
        for _ in range(args.repeat):
            times["stats"].append(timed(stats, env))
            times["report"].append(timed(report, env))
        for k, v in times.items():
            print(f"{k}: " + ", ".join(f"{t:.2f}" for t in v) + f" s; median {statistics.median(v):.2f} s")
        ratio = statistics.median(times["report"]) / statistics.median(times["stats"])
        print(f"report / stats: {ratio:.3f} (target <= 1.10)")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
