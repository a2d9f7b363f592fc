#!/usr/bin/python3
"""mlprog CPU benchmarks against the peers a user would otherwise run.

    /usr/bin/python3 benchmarks/run.py [--build build] [--quick] [--only sgemm,conv,models]

Runs, for 1 thread and for all cores (each in its own subprocess, with
MLPROG_NUM_THREADS, OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and
torch.set_num_threads all set to the same count):

  sgemm   f32 C = A @ B, n = 256, 512, 1024, 2048: mlprog (a linalg.matmul
          module) vs numpy (Debian's numpy on libblas.so.3, which is OpenBLAS
          once libopenblas0 is installed); GFLOP/s, ratio, % of peak.
  conv    the distinct conv2d shapes of resnet18 (batch 1): mlprog (ONNX
          import of one nn.Conv2d) vs torch.nn.functional.conv2d.
  models  torchvision resnet18 and mobilenet_v2 (random weights, eval mode)
          exported to ONNX, imported and compiled by mlprog; batch-1 latency
          and batch-8 throughput vs PyTorch eager and TorchScript-frozen.
          Import + compile wall time and peak RSS are measured in a fresh
          subprocess per model, for the JIT (mlprog.compile) and for the AOT
          compiler (mlprog-translate, then mlprog-compile to a library).

Ours and the peer run alternately in one process; each figure is the median
of the repetitions. OMP_WAIT_POLICY=PASSIVE (unless set): the two OpenMP
runtimes in the process would otherwise spin against each other. The workers
run without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, 1-thread workers pinned to
one core, and print which kernels the peers' BLAS runs (peers.py). Nothing
here is a test: it prints tables, and --json FILE writes the raw medians.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import peers

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Peak f32 FLOP/s per core quoted by issue #7 for its reference machine
# (znver3, 2 FMA pipes x 8 lanes x 2 flops x 2.45 GHz): the fallback when
# fma_peak.c cannot be compiled (no C compiler).
QUOTED_PEAK_GFLOPS_PER_CORE = 78.0


def peak_gflops_per_core():
    """The f32 FMA throughput of one core measured by fma_peak.c (built
    with `cc -O2 -march=native`, run pinned to the first allowed core), and
    how it was obtained; issue #7's quoted figure without a C compiler. On
    an AVX-512 machine the quoted 78 made our sgemm read as 300% of peak."""
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "fma_peak")
        try:
            subprocess.run(["cc", "-O2", "-march=native",
                            os.path.join(HERE, "fma_peak.c"), "-o", exe],
                           check=True, capture_output=True)
            core = str(min(os.sched_getaffinity(0)))
            out = subprocess.run(["taskset", "-c", core, exe], check=True,
                                 capture_output=True, text=True).stdout
            return float(out.split()[0]), "measured by benchmarks/fma_peak.c"
        except (OSError, subprocess.CalledProcessError, ValueError,
                IndexError):
            return QUOTED_PEAK_GFLOPS_PER_CORE, "quoted by issue #7"

RESNET18_CONVS = [
    # (cin, cout, hw, kernel, stride, pad)
    (3, 64, 224, 7, 2, 3),
    (64, 64, 56, 3, 1, 1),
    (64, 128, 56, 3, 2, 1),
    (64, 128, 56, 1, 2, 0),
    (128, 128, 28, 3, 1, 1),
    (128, 256, 28, 3, 2, 1),
    (256, 256, 14, 3, 1, 1),
    (256, 512, 14, 3, 2, 1),
    (512, 512, 7, 3, 1, 1),
]


def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] + values[n // 2])


# Untimed pause after each call when several threads run: the thread pools
# of OpenBLAS, libgomp and libomp keep spinning for a while after their work,
# and the next contender would share the cores with them.
SETTLE_SECONDS = 0.3


def alternate(ours, peers, reps, warmup=1, settle=0.0):
    """Times `ours` and each peer alternately; returns median seconds.
    `settle` seconds of sleep (untimed) follow every call."""
    for _ in range(warmup):
        ours()
        for peer in peers.values():
            peer()
    times = {"ours": []}
    times.update({name: [] for name in peers})
    for _ in range(reps):
        time.sleep(settle)
        start = time.perf_counter()
        ours()
        times["ours"].append(time.perf_counter() - start)
        for name, peer in peers.items():
            time.sleep(settle)
            start = time.perf_counter()
            peer()
            times[name].append(time.perf_counter() - start)
    return {name: median(t) for name, t in times.items()}


def import_mlprog(build):
    sys.path.insert(0, os.path.join(os.path.abspath(build), "python"))
    import mlprog
    return mlprog


def call(exe, *arrays):
    """Calls @main with as little Python around it as possible."""
    return exe._impl.call("main", list(arrays))


# ---------------------------------------------------------------------------
# sgemm
# ---------------------------------------------------------------------------

SGEMM = """
ml_program.func @main(%a: tensor<{n}x{n}xf32>, %b: tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{n}x{n}xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>) outs(%init : tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  ml_program.return %r : tensor<{n}x{n}xf32>
}}
"""


def bench_sgemm(mlprog, threads, quick):
    import numpy as np
    peak, peak_source = peak_gflops_per_core()
    rows = []
    for n in ([256, 512, 1024] if quick else [256, 512, 1024, 2048]):
        exe = mlprog.compile(mlprog.parse(SGEMM.format(n=n)))
        rng = np.random.default_rng(0)
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        err = np.abs(call(exe, a, b)[0] - ref).max() / np.abs(ref).max()
        reps = max(3, min(30, int(2e9 / (2 * n ** 3))))
        t = alternate(lambda: call(exe, a, b), {"openblas": lambda: a @ b}, reps,
                      settle=SETTLE_SECONDS if threads > 1 else 0.0)
        flops = 2.0 * n ** 3
        ours, peer = flops / t["ours"] / 1e9, flops / t["openblas"] / 1e9
        rows.append({"n": n, "threads": threads, "ours_gflops": ours,
                     "openblas_gflops": peer, "ratio": ours / peer,
                     "pct_peak": 100 * ours / (peak * threads),
                     "rel_err": float(err)})
    print("\nsgemm f32, %d thread(s)  (ratio = ours / OpenBLAS; peak = %.0f "
          "GFLOP/s/core, %s)" % (threads, peak, peak_source))
    print("%6s %12s %12s %7s %7s %9s" % ("n", "ours GF/s", "OpenBLAS", "ratio", "%peak", "rel.err"))
    for r in rows:
        print("%6d %12.1f %12.1f %7.2f %6.0f%% %9.1e" % (
            r["n"], r["ours_gflops"], r["openblas_gflops"], r["ratio"],
            r["pct_peak"], r["rel_err"]))
    return rows


# ---------------------------------------------------------------------------
# conv2d
# ---------------------------------------------------------------------------

def export_onnx(model, example, path):
    import torch
    with torch.no_grad():
        torch.onnx.export(model, example, path, opset_version=13,
                          input_names=["x"], output_names=["y"])


def bench_conv(mlprog, threads, quick, tmp):
    import numpy as np
    import torch
    rows = []
    for cin, cout, hw, k, s, p in RESNET18_CONVS:
        conv = torch.nn.Conv2d(cin, cout, k, stride=s, padding=p, bias=False).eval()
        x = torch.randn(1, cin, hw, hw)
        path = os.path.join(tmp, "conv.onnx")
        export_onnx(conv, x, path)
        exe = mlprog.compile(mlprog.import_onnx(path))
        xn = x.numpy()
        with torch.no_grad():
            ref = conv(x).numpy()
            err = np.abs(call(exe, xn)[0] - ref).max() / np.abs(ref).max()
            weight = conv.weight

            def peer():
                torch.nn.functional.conv2d(x, weight, stride=s, padding=p)
            t = alternate(lambda: call(exe, xn), {"torch": peer}, 5 if quick else 15,
                          settle=SETTLE_SECONDS if threads > 1 else 0.0)
        ho = (hw + 2 * p - k) // s + 1
        flops = 2.0 * cout * ho * ho * cin * k * k
        rows.append({"shape": "%dx%dx%d k%d s%d" % (cin, cout, hw, k, s),
                     "threads": threads, "ours_ms": 1e3 * t["ours"],
                     "torch_ms": 1e3 * t["torch"], "ratio": t["torch"] / t["ours"],
                     "ours_gflops": flops / t["ours"] / 1e9, "rel_err": float(err)})
    print("\nconv2d (resnet18 layers, batch 1), %d thread(s)  (speedup = torch time / ours)"
          % threads)
    print("%-22s %9s %9s %8s %9s %9s" % ("cin x cout x hw", "ours ms", "torch ms", "speedup",
                                         "ours GF/s", "rel.err"))
    for r in rows:
        print("%-22s %9.2f %9.2f %8.2f %9.1f %9.1e" % (
            r["shape"], r["ours_ms"], r["torch_ms"], r["ratio"], r["ours_gflops"],
            r["rel_err"]))
    return rows


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------

def make_model(name):
    import torch
    import torchvision
    torch.manual_seed(0)
    return getattr(torchvision.models, name)().eval()


COMPILE_SCRIPT = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import mlprog
start = time.perf_counter()
module = mlprog.import_onnx(sys.argv[2])
imported = time.perf_counter()
exe = mlprog.compile(module)
done = time.perf_counter()
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over fork+exec, so it would
# report the (torch-laden) parent's size when that is larger.
peak = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")]
print(imported - start, done - imported, float(peak[0].split()[1]) / 1024.0)
"""


def compile_stats(build, path):
    proc = subprocess.run([sys.executable, "-c", COMPILE_SCRIPT,
                           os.path.join(os.path.abspath(build), "python"), path],
                          capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1])
    out = proc.stdout
    imp, comp, rss = (float(v) for v in out.split()[-3:])
    return imp, comp, rss


def timed(cmd):
    """Wall seconds and peak RSS (MB) of the subprocess `cmd`."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd,
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1])
    return wall, float(proc.stderr.strip().splitlines()[-1]) / 1024.0


def aot_stats(build, path):
    """Import (mlprog-translate) and AOT compile (mlprog-compile) of the
    ONNX model `path`: wall seconds of each and the larger peak RSS."""
    bindir = os.path.join(os.path.abspath(build), "bin")
    mlir, library = path + ".mlir", path + ".so"
    imp, rss1 = timed([os.path.join(bindir, "mlprog-translate"),
                       "--import-onnx", path, "-o", mlir])
    comp, rss2 = timed([os.path.join(bindir, "mlprog-compile"), mlir,
                        "-o", library])
    return imp, comp, max(rss1, rss2)


def bench_models(mlprog, build, threads, quick, tmp):
    rows = []
    for name in ["resnet18", "mobilenet_v2"]:
        try:
            rows += bench_model(mlprog, build, threads, quick, tmp, name)
        except Exception as error:  # e.g. an op the importer lacks
            message = str(error).strip().splitlines()[0][:160]
            print("%s: not measured: %s" % (name, message))
    print_models(rows, threads)
    return rows


def bench_model(mlprog, build, threads, quick, tmp, name):
    import numpy as np
    import torch
    rows = []
    if True:
        model = make_model(name)
        for batch in [1, 8]:
            x = torch.randn(batch, 3, 224, 224)
            path = os.path.join(tmp, "%s_b%d.onnx" % (name, batch))
            export_onnx(model, x, path)
            row = {"model": name, "batch": batch, "threads": threads}
            if batch == 1 and threads == 1:
                row["import_s"], row["compile_s"], row["peak_rss_mb"] = \
                    compile_stats(build, path)
                row["aot_import_s"], row["aot_compile_s"], row["aot_rss_mb"] = \
                    aot_stats(build, path)
            exe = mlprog.compile(mlprog.import_onnx(path))
            xn = x.numpy()
            with torch.no_grad():
                frozen = torch.jit.freeze(torch.jit.script(model))
                ref = model(x).numpy()
                err = np.abs(call(exe, xn)[0] - ref).max()
                reps = (3 if quick else 10) if batch == 1 else (2 if quick else 5)
                t = alternate(lambda: call(exe, xn),
                              {"eager": lambda: model(x),
                               "frozen": lambda: frozen(x)}, reps,
                              settle=SETTLE_SECONDS if threads > 1 else 0.0)
            row.update({"ours_ms": 1e3 * t["ours"], "eager_ms": 1e3 * t["eager"],
                        "frozen_ms": 1e3 * t["frozen"], "max_abs_err": float(err)})
            rows.append(row)
    return rows


def print_models(rows, threads):
    print("\nmodels, %d thread(s)  (ratio = ours / peer time; < 1 is faster; "
          "batch 8 also as images/s)" % threads)
    print("%-13s %5s %9s %9s %9s %7s %7s %8s %9s" % (
        "model", "batch", "ours ms", "eager ms", "frozen ms", "/eager", "/frozen",
        "ours i/s", "max err"))
    for r in rows:
        print("%-13s %5d %9.1f %9.1f %9.1f %7.2f %7.2f %8.1f %9.1e" % (
            r["model"], r["batch"], r["ours_ms"], r["eager_ms"], r["frozen_ms"],
            r["ours_ms"] / r["eager_ms"], r["ours_ms"] / r["frozen_ms"],
            1e3 * r["batch"] / r["ours_ms"], r["max_abs_err"]))
    for r in rows:
        if "compile_s" in r:
            print("%-13s import %.2f s + compile %.2f s = %.2f s, peak RSS %.0f MB" % (
                r["model"], r["import_s"], r["compile_s"],
                r["import_s"] + r["compile_s"], r["peak_rss_mb"]))
        if "aot_compile_s" in r:
            print("%-13s AOT: mlprog-translate %.2f s + mlprog-compile %.2f s = "
                  "%.2f s, peak RSS %.0f MB" % (
                      r["model"], r["aot_import_s"], r["aot_compile_s"],
                      r["aot_import_s"] + r["aot_compile_s"], r["aot_rss_mb"]))


def worker(args):
    import numpy  # noqa: F401 (loads OpenBLAS for the report)
    import torch
    torch.set_num_threads(args.threads)
    peers.pin_for(args.threads)
    mlprog = import_mlprog(args.build)
    print("\n%d thread(s)%s; the peers' BLAS and OpenMP libraries:" % (
        args.threads, ", pinned to one core" if args.threads == 1 else ""))
    for line in peers.blas_report():
        print("  " + line)
    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        if "sgemm" in args.only:
            result["sgemm"] = bench_sgemm(mlprog, args.threads, args.quick)
        if "conv" in args.only:
            result["conv"] = bench_conv(mlprog, args.threads, args.quick, tmp)
        if "models" in args.only:
            result["models"] = bench_models(mlprog, args.build, args.threads,
                                            args.quick, tmp)
    sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--only", default="sgemm,conv,models")
    parser.add_argument("--threads", type=int, default=0,
                        help="run one thread count (default: 1 and all cores)")
    parser.add_argument("--quick", action="store_true", help="fewer sizes and repetitions")
    parser.add_argument("--json", help="write the medians to this file")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.only = args.only.split(",")
    if args.worker:
        return worker(args)

    cores = os.cpu_count() or 1
    counts = [args.threads] if args.threads else sorted({1, cores})
    print("mlprog benchmarks: %s, %d cores, %s" % (
        cpu_name(), cores, time.strftime("%Y-%m-%d %H:%M")))
    results = {}
    for threads in counts:
        # The peers' OpenBLAS chooses its own kernels (see peers.py).
        env = peers.without_forced_blas(os.environ)
        for var in ["MLPROG_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"]:
            env[var] = str(threads)
        # Two OpenMP runtimes share the process (PyTorch's libgomp, our
        # libomp), and each one's idle threads spin-wait (libomp for 200 ms)
        # on the cores the other then needs: timed alternately, each peer
        # ran up to 10x slower right after the other. Idle threads sleep.
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            cmd = [sys.executable, os.path.abspath(__file__), "--worker",
                   "--build", args.build, "--only", ",".join(args.only),
                   "--threads", str(threads), "--json", out.name]
            if args.quick:
                cmd.append("--quick")
            subprocess.run(cmd, env=env, check=True)
            results[threads] = json.load(open(out.name))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


if __name__ == "__main__":
    main()
