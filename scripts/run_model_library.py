#!/usr/bin/env python3
"""Runs a model library (`mlprog-compile -o model.so`, CPU or CUDA) through
its C ABI (include/mlprog-c/Model.h) with nothing but Python and numpy: the
way to try a library on a machine that has no mlprog build, such as a GPU
machine.

  python3 scripts/run_model_library.py model.so --input x.npy [--input ...]
      [--entry main] [--reference ref.npy] [--repeat 30] [--output-dir DIR]

Float32, int64 and int32 inputs. Prints each result's shape, the first
call's time (a CUDA library loads its module and the driver JIT-compiles
its PTX then) and the median of --repeat more calls; with --reference
(one per result, in order), the largest difference and MATCH or MISMATCH
(numpy.allclose, rtol 1e-4, atol 1e-4 times the largest |reference|).
Exit status 1 on an error or a mismatch.
"""
import argparse
import ctypes
import os
import sys
import time

import numpy as np

DTYPES = {np.dtype(np.float32): 11, np.dtype(np.int64): 4,
          np.dtype(np.int32): 3}
NUMPY = {v: k for k, v in DTYPES.items()}


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("rank", ctypes.c_int32), ("dtype", ctypes.c_int32)]


class EntryInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("num_inputs", ctypes.c_int32),
                ("num_results", ctypes.c_int32), ("inputs", ctypes.c_void_p),
                ("results", ctypes.c_void_p)]


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("library")
    p.add_argument("--input", action="append", default=[])
    p.add_argument("--entry", default="main")
    p.add_argument("--reference", action="append", default=[])
    p.add_argument("--repeat", type=int, default=30)
    p.add_argument("--output-dir")
    args = p.parse_args()
    lib = ctypes.CDLL(os.path.abspath(args.library))
    lib.mlprog_model_find_entry.restype = ctypes.c_int32
    lib.mlprog_model_entry.restype = ctypes.POINTER(EntryInfo)
    lib.mlprog_model_run.restype = ctypes.c_int32
    lib.mlprog_model_run.argtypes = [
        ctypes.c_int32, ctypes.POINTER(Tensor), ctypes.c_int32,
        ctypes.POINTER(Tensor), ctypes.c_int32, ctypes.c_char_p,
        ctypes.c_size_t]
    entry = lib.mlprog_model_find_entry(args.entry.encode())
    if entry < 0:
        sys.exit(f"run_model_library: no entry '{args.entry}'")
    num_results = lib.mlprog_model_entry(entry).contents.num_results
    arrays, shapes = [], []
    inputs = (Tensor * max(1, len(args.input)))()
    for i, path in enumerate(args.input):
        a = np.ascontiguousarray(np.load(path))
        if a.dtype not in DTYPES:
            sys.exit(f"run_model_library: {path}: unsupported dtype {a.dtype}")
        arrays.append(a)
        shapes.append((ctypes.c_int64 * max(1, a.ndim))(*a.shape))
        inputs[i] = Tensor(a.ctypes.data, shapes[-1], a.ndim, DTYPES[a.dtype])
    results = (Tensor * num_results)()
    error = ctypes.create_string_buffer(1024)

    def run():
        if lib.mlprog_model_run(entry, inputs, len(args.input), results,
                                num_results, error, len(error)):
            sys.exit("run_model_library: " + error.value.decode())
        out = []
        for r in results:
            shape = tuple(r.shape[d] for d in range(r.rank))
            dtype = NUMPY.get(r.dtype)
            if dtype is None:
                sys.exit(f"run_model_library: result dtype {r.dtype}")
            count = int(np.prod(shape)) if shape else 1
            buf = (ctypes.c_char * (count * dtype.itemsize)).from_address(
                r.data)
            out.append(np.frombuffer(buf, dtype).reshape(shape).copy())
            lib.mlprog_tensor_release(ctypes.byref(r))
        return out

    start = time.perf_counter()
    outputs = run()
    first = time.perf_counter() - start
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    status = 0
    for i, y in enumerate(outputs):
        line = f"result {i}: shape {y.shape} {y.dtype}"
        if i < len(args.reference):
            ref = np.load(args.reference[i])
            scale = float(np.abs(ref).max()) if ref.size else 0.0
            err = float(np.abs(y.astype(np.float64) - ref).max()) \
                if y.shape == ref.shape and y.size else 0.0
            ok = y.shape == ref.shape and np.allclose(
                y, ref, rtol=1e-4, atol=1e-4 * scale)
            status |= not ok
            line += (f", max abs error {err:.2e} (max |reference| "
                     f"{scale:.3g}): {'MATCH' if ok else 'MISMATCH'}")
        print(line)
        if args.output_dir:
            os.makedirs(args.output_dir, exist_ok=True)
            np.save(os.path.join(args.output_dir, f"output_{i}.npy"), y)
    median = f", median of {args.repeat} more {np.median(times) * 1e3:.2f} ms" \
        if times else ""
    print(f"first call {first * 1e3:.1f} ms{median}")
    return status


if __name__ == "__main__":
    sys.exit(main())
