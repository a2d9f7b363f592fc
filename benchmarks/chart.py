#!/usr/bin/env python3
"""Draws mlprog's latency relative to its peers per model (issue "Faster
than onnxruntime on the CPU"), from the results `benchmarks/transformers.py
--json FILE` writes.

  /usr/bin/python3 benchmarks/chart.py RESULTS.json [MORE.json ...] \\
      --out benchmarks/latency-vs-peers.png [--title TEXT]

One group of bars per model and batch: mlprog / onnxruntime at each thread
count measured, and mlprog / PyTorch eager (1 thread, the only count the
export process times). Bars below the line at 1.0 are where mlprog is the
faster. Needs Debian's `python3-matplotlib` (`apt-get install
python3-matplotlib`); the tests do not.
"""
import argparse
import json
import sys


def load(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for row in data:
            for key in ("model", "batch", "threads", "ours_ms", "ort_ms"):
                if key not in row:
                    sys.exit(f"chart.py: {path}: a row without '{key}': not "
                             "the output of benchmarks/transformers.py --json")
            rows.append(row)
    if not rows:
        sys.exit("chart.py: no results in " + ", ".join(paths))
    return rows


def series(rows):
    """Returns the (model, batch) groups in first-seen order and, per bar
    label, the ratio of each group (None where not measured)."""
    groups = []
    for r in rows:
        key = (r["model"], r["batch"])
        if key not in groups:
            groups.append(key)
    bars = {}
    for r in rows:
        index = groups.index((r["model"], r["batch"]))
        label = "vs onnxruntime, %d thread%s" % (
            r["threads"], "" if r["threads"] == 1 else "s")
        bars.setdefault(label, [None] * len(groups))[index] = \
            r["ours_ms"] / r["ort_ms"]
        eager = r.get("torch_eager_ms_1t")
        if eager and r["threads"] == 1:
            bars.setdefault("vs PyTorch eager, 1 thread",
                            [None] * len(groups))[index] = r["ours_ms"] / eager
    return groups, bars


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--out", required=True, help="the PNG to write")
    parser.add_argument("--title", default="mlprog latency / peer latency "
                        "(lower is faster; 1.0 = parity)")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("chart.py: needs matplotlib: apt-get install "
                 "python3-matplotlib (and run it with /usr/bin/python3)")
    groups, bars = series(load(args.results))
    labels = ["%s\nbatch %d" % (model, batch) for model, batch in groups]
    width = 0.8 / len(bars)
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(groups)), 4.5))
    for i, (label, values) in enumerate(sorted(bars.items())):
        xs = [g + (i - (len(bars) - 1) / 2) * width
              for g, v in enumerate(values) if v is not None]
        ys = [v for v in values if v is not None]
        drawn = ax.bar(xs, ys, width, label=label)
        ax.bar_label(drawn, fmt="%.2f", fontsize=7, padding=1)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(groups)), labels, fontsize=8)
    ax.set_ylabel("mlprog / peer (latency)")
    ax.set_title(args.title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print("chart.py: wrote " + args.out)


if __name__ == "__main__":
    main()
