"""Execution test of the copy and elementwise code generation
(lib/Pipelines/CPU/LowerStridedCopies.cpp and VectorizeElementwise.cpp) on
odd shapes and element types.

  elementwise_shapes.py gen DIR      writes DIR/module.mlir (one function with
                                     every case below), DIR/in_<i>.npy and
                                     DIR/inputs.txt (the --input options)
  elementwise_shapes.py check DIR RUN...
                                     compares DIR/<RUN>/output_<i>.npy with
                                     numpy

Rows are not multiples of the vector width (16 f32 lanes with AVX-512, 8
with AVX2), some are shorter than one vector, some ops are large enough to
run on several threads, and the element types include i8, i32, i64, f16 and
f64.
"""
import os

import numpy as np

from cases_module import check_runs, load_inputs, main, write_module

MLIR_TYPES = {np.float32: "f32", np.float64: "f64", np.float16: "f16",
              np.int32: "i32", np.int8: "i8", np.int64: "i64"}


def ty(shape, dtype):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), MLIR_TYPES[dtype])


def const(value, dtype):
    if np.issubdtype(dtype, np.integer):
        return "arith.constant %d : %s" % (value, MLIR_TYPES[dtype])
    if np.isinf(value):
        bits = {np.float32: "0xFF800000", np.float16: "0xFC00",
                np.float64: "0xFFF0000000000000"}[dtype]
        return "arith.constant %s : %s" % (bits, MLIR_TYPES[dtype])
    return "arith.constant %r : %s" % (float(value), MLIR_TYPES[dtype])


def pad_case(shape, low, high, value, dtype):
    """tensor.pad with a constant: a fill and a copy into a strided view."""
    out = tuple(s + lo + hi for s, lo, hi in zip(shape, low, high))
    t = MLIR_TYPES[dtype]

    def body(r, ins):
        args = ", ".join("%%i%d: index" % d for d in range(len(shape)))
        return ["%%v%s = %s" % (r, const(value, dtype)),
                "%%r%s = tensor.pad %s low[%s] high[%s] {" % (
                    r, ins[0], ", ".join(map(str, low)),
                    ", ".join(map(str, high))),
                "^bb0(%s):" % args,
                "  tensor.yield %%v%s : %s" % (r, t),
                "} : %s to %s" % (ty(shape, dtype), ty(out, dtype))]
    return ("pad %s %s" % (shape, t), [(shape, dtype)], (out, dtype), body,
            lambda x: np.pad(x, list(zip(low, high)), constant_values=value))


def slice_case(shape, offsets, sizes, strides, dtype):
    """A strided slice returned from the function: copied out of a view."""
    def body(r, ins):
        return ["%%r%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
            r, ins[0], ", ".join(map(str, offsets)), ", ".join(map(str, sizes)),
            ", ".join(map(str, strides)), ty(shape, dtype),
            ty(sizes, dtype))]

    def ref(x):
        index = tuple(slice(o, o + (n - 1) * s + 1, s)
                      for o, n, s in zip(offsets, sizes, strides))
        return x[index]
    return ("slice %s of %s" % (sizes, shape), [(shape, dtype)],
            (tuple(sizes), dtype), body, ref)


def insert_case(small, big, offsets, dtype):
    """insert_slice (concatenation): a copy into a view of a copy."""
    def body(r, ins):
        return ["%%r%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s "
                "into %s" % (r, ins[0], ins[1], ", ".join(map(str, offsets)),
                             ", ".join(map(str, small)),
                             ", ".join("1" for _ in small), ty(small, dtype),
                             ty(big, dtype))]

    def ref(a, b):
        b = b.copy()
        b[tuple(slice(o, o + n) for o, n in zip(offsets, small))] = a
        return b
    return ("insert %s into %s" % (small, big), [(small, dtype), (big, dtype)],
            (big, dtype), body, ref)


def generic_case(name, inputs, maps, out, dtype, scalar, ref):
    """An all-parallel linalg.generic over `out`: inputs [(shape, map)], the
    body `scalar(block args, result name) -> lines` and a numpy reference."""
    rank = len(out)
    dims = ", ".join("d%d" % i for i in range(rank))
    t = MLIR_TYPES[dtype]

    def body(r, ins):
        amaps = ["affine_map<(%s) -> (%s)>" % (dims, m) for m in maps]
        amaps.append("affine_map<(%s) -> (%s)>" % (dims, dims))
        lines = ["%%e%s = tensor.empty() : %s" % (r, ty(out, dtype)),
                 "%%r%s = linalg.generic {indexing_maps = [%s], "
                 "iterator_types = [%s]} ins(%s : %s) outs(%%e%s : %s) {" % (
                     r, ", ".join(amaps),
                     ", ".join(['"parallel"'] * rank), ", ".join(ins),
                     ", ".join(ty(s, dtype) for s, _ in inputs), r,
                     ty(out, dtype)),
                 "^bb0(%s, %%o: %s):" % (
                     ", ".join("%%a%d: %s" % (i, t) for i in range(len(ins))),
                     t)]
        lines += ["  " + line for line in scalar(t)]
        lines.append("} -> %s" % ty(out, dtype))
        return lines
    return (name, [(s, dtype) for s, _ in inputs], (out, dtype), body, ref)


def relu(t):
    return ["%z = arith.constant 0.0 : " + t,
            "%m = arith.maximumf %a0, %z : " + t,
            "linalg.yield %m : " + t]


def clip(t):
    return ["%lo = arith.constant 0.0 : " + t,
            "%hi = arith.constant 6.0 : " + t,
            "%m = arith.maximumf %a0, %lo : " + t,
            "%n = arith.minimumf %m, %hi : " + t,
            "linalg.yield %n : " + t]


def addf(t):
    return ["%s = arith.addf %a0, %a1 : " + t, "linalg.yield %s : " + t]


def addi(t):
    return ["%s = arith.addi %a0, %a1 : " + t, "linalg.yield %s : " + t]


def mulf(t):
    return ["%s = arith.mulf %a0, %a1 : " + t, "linalg.yield %s : " + t]


def affine(t):
    return ["%m = arith.mulf %a0, %a1 : " + t,
            "%s = arith.addf %m, %a2 : " + t, "linalg.yield %s : " + t]


def copy(t):
    return ["linalg.yield %a0 : " + t]


def cases():
    f32, f16, f64 = np.float32, np.float16, np.float64
    i8, i32, i64 = np.int8, np.int32, np.int64
    out = [
        pad_case((2, 3, 13, 21), (0, 0, 1, 2), (0, 0, 2, 1), -1.5, f32),
        # 3.3 MB: parallel; rows of 56 = 3 vectors + 8 (AVX-512).
        pad_case((1, 64, 56, 56), (0, 0, 1, 1), (0, 0, 1, 1), 0.0, f32),
        pad_case((1, 5, 7, 7), (0, 0, 3, 3), (0, 0, 3, 3), float("-inf"), f32),
        pad_case((3, 5, 7), (1, 0, 3), (2, 1, 0), 7, i32),
        pad_case((4, 33), (0, 5), (0, 2), -3, i8),
        pad_case((2, 9, 40), (0, 1, 1), (0, 1, 1), 0.5, f16),
        pad_case((2, 3, 300), (0, 2, 0), (1, 0, 5), 2.0, f64),
        slice_case((64, 196), (0, 3), (64, 190), (1, 1), f32),
        slice_case((7, 196), (2, 0), (5, 192), (1, 1), i64),
        # A column: rows of one element that are not contiguous.
        slice_case((2, 3, 4, 5), (0, 0, 0, 2), (2, 3, 4, 1), (1, 1, 1, 1), f32),
        # Strided innermost: stays a generic copy.
        slice_case((10, 40), (0, 1), (10, 19), (1, 2), f32),
        insert_case((2, 5, 9, 9), (2, 12, 9, 9), (0, 4, 0, 0), f32),
        insert_case((3, 1, 17), (3, 4, 17), (0, 2, 0), i8),
        generic_case("relu", [((1, 37, 13, 11), "d0, d1, d2, d3")],
                     ["d0, d1, d2, d3"], (1, 37, 13, 11), f32, relu,
                     lambda x: np.maximum(x, 0)),
        generic_case("clip", [((1, 24, 56, 56), "")], ["d0, d1, d2, d3"],
                     (1, 24, 56, 56), f32, clip, lambda x: np.clip(x, 0, 6)),
        generic_case("bias add", [((2, 5, 7, 33), ""), ((5,), "")],
                     ["d0, d1, d2, d3", "d1"], (2, 5, 7, 33), f32, addf,
                     lambda x, b: x + b[None, :, None, None]),
        generic_case("bias broadcast", [((19,), "")], ["d1"], (1, 19, 9, 130),
                     f32, copy,
                     lambda b: np.broadcast_to(b[None, :, None, None],
                                               (1, 19, 9, 130))),
        generic_case("batchnorm affine", [((1, 19, 9, 130), ""), ((19,), ""),
                                          ((19,), "")],
                     ["d0, d1, d2, d3", "d1", "d1"], (1, 19, 9, 130), f32,
                     affine, lambda x, s, b: x * s[None, :, None, None] +
                     b[None, :, None, None]),
        generic_case("row broadcast i32", [((3, 100), ""), ((100,), "")],
                     ["d0, d1", "d1"], (3, 100), i32, addi,
                     lambda x, b: x + b[None, :]),
        generic_case("add i64", [((33,), ""), ((33,), "")], ["d0", "d0"],
                     (33,), i64, addi, lambda x, y: x + y),
        generic_case("column broadcast f16", [((7, 45), ""), ((7,), "")],
                     ["d0, d1", "d0"], (7, 45), f16, mulf,
                     lambda x, y: x * y[:, None]),
        generic_case("transpose add", [((6, 7, 5), ""), ((5, 6, 7), "")],
                     ["d1, d2, d0", "d0, d1, d2"], (5, 6, 7), f32, addf,
                     lambda x, y: x.transpose(2, 0, 1) + y),
        generic_case("residual add", [((1, 64, 28, 28), ""),
                                      ((1, 64, 28, 28), "")],
                     ["d0, d1, d2, d3", "d0, d1, d2, d3"], (1, 64, 28, 28),
                     f32, addf, lambda x, y: x + y),
    ]
    return out


def random(rng, shape, dtype):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-50, 50, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def gen(root):
    rng = np.random.default_rng(11)
    args, body, results = [], [], []
    index = 0
    for i, (_, inputs, result, build, _) in enumerate(cases()):
        names = []
        for shape, dtype in inputs:
            np.save(os.path.join(root, "in_%d.npy" % index),
                    random(rng, shape, dtype))
            names.append("%%in%d" % index)
            args.append("%%in%d: %s" % (index, ty(shape, dtype)))
            index += 1
        body += ["  " + line for line in build(str(i), names)]
        results.append(("%%r%d" % i, ty(*result)))
    write_module(root, args, [], body, results, index)


def compare(got, want, message):
    """Shape and dtype exact; integers exact, floats to 1e-6 (f16: 1e-3)."""
    assert got.shape == want.shape and got.dtype == want.dtype, (
        message, got.shape, got.dtype)
    if np.issubdtype(want.dtype, np.integer):
        np.testing.assert_array_equal(got, want, err_msg=message)
    else:
        rtol = 1e-3 if want.dtype == np.float16 else 1e-6
        np.testing.assert_allclose(got, want, rtol=rtol, err_msg=message)


def check(root, runs):
    all_cases = cases()
    refs = []
    for (name, inputs, (shape, dtype), _, ref), ins in zip(
            all_cases, load_inputs(root, [len(c[1]) for c in all_cases])):
        want = np.asarray(ref(*ins)).astype(dtype)
        assert want.shape == tuple(shape), (name, want.shape)
        refs.append((name, want))
    check_runs(root, runs, refs, compare)


if __name__ == "__main__":
    main(gen, check)
