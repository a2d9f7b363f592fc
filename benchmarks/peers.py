"""Fair conditions for the peers of the benchmarks (run.py, transformers.py).

Some machines set OPENBLAS_CORETYPE=Haswell and OPENBLAS_L2_SIZE for old
OpenBLAS builds; they force OpenBLAS (numpy's and Debian torch's BLAS) onto
its AVX2 kernels on AVX-512 cores (sgemm 1024^3 on one core: about 128
GFLOP/s with them, 235 without). OpenBLAS reads them once, when it loads,
so a benchmark drops them from the environment of the processes it starts
(or starts itself again without them) and of nothing else. A 1-thread run
is pinned to one core. `blas_report` says which kernels each BLAS in the
process runs (threadpoolctl, Debian's python3-threadpoolctl).
"""

import os
import sys

FORCED_BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

# The cores this process may use, before any pinning.
ALL_CORES = (sorted(os.sched_getaffinity(0))
             if hasattr(os, "sched_getaffinity") else [])


def without_forced_blas(env):
    """A copy of `env` without the variables that force OpenBLAS's kernels."""
    return {k: v for k, v in env.items() if k not in FORCED_BLAS_VARIABLES}


def restart_without_forced_blas():
    """Starts this script again without those variables when one is set
    (they must be gone before OpenBLAS loads); returns otherwise."""
    dropped = [k for k in FORCED_BLAS_VARIABLES if k in os.environ]
    if not dropped:
        return
    print("peers: unset %s (they force OpenBLAS's AVX2 kernels)"
          % ", ".join("%s=%s" % (k, os.environ[k]) for k in dropped),
          flush=True)
    os.execve(sys.executable, [sys.executable] + sys.argv,
              without_forced_blas(os.environ))


def pin_for(threads):
    """Pins this process to the first core for a 1-thread run, and lets it
    use all its cores again for any other count (0: unpin)."""
    if not ALL_CORES:
        return
    os.sched_setaffinity(0, ALL_CORES[:1] if threads == 1 else ALL_CORES)


def limit_blas_threads(threads):
    """Sets every BLAS in the process to `threads` threads (threadpoolctl):
    torch.set_num_threads does not reach Debian PyTorch's OpenBLAS, whose
    own pool otherwise keeps one thread per core. Returns the limiter (keep
    it), or None without threadpoolctl."""
    try:
        import threadpoolctl
    except ImportError:
        return None
    return threadpoolctl.threadpool_limits(limits=threads, user_api="blas")


def blas_report():
    """One line per BLAS/OpenMP library loaded in this process: its kind,
    version, kernels (architecture) and thread count, from threadpoolctl."""
    try:
        import threadpoolctl
    except ImportError:
        return ["(threadpoolctl missing: apt install python3-threadpoolctl)"]
    lines = []
    for info in threadpoolctl.threadpool_info():
        lines.append("%s %s%s, %d thread(s): %s" % (
            info.get("internal_api"), info.get("version"),
            ", %s kernels" % info["architecture"]
            if info.get("architecture") else "",
            info.get("num_threads", 0), info.get("filepath")))
    return lines
