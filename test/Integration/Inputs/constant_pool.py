#!/usr/bin/env python3
"""Model and reference for constant-pool.test.

  constant_pool.py gen DIR        writes DIR/model.mlir, DIR/x.npy
  constant_pool.py check DIR OUT N  compares OUT/output_*.npy with numpy
                                    after N calls of @main

The model's globals are all large enough for the constant pool (>= 1 KiB):
random f32 weights, an i1 mask, a splat, f16 values and a mutable
accumulator that the calls update in place.
"""
import os
import sys

import numpy as np


def values(rng):
    return {
        "w": rng.standard_normal((64, 32)).astype(np.float32),
        "m": rng.random((64, 32)) < 0.5,
        "acc": rng.standard_normal((8, 32)).astype(np.float32),
        "h": rng.standard_normal((8, 64)).astype(np.float16),
        "x": rng.standard_normal((8, 64)).astype(np.float32),
    }


def dense(array, type_):
    if array.dtype == np.bool_:
        rows = ("[%s]" % ", ".join("true" if v else "false" for v in row)
                for row in array)
        return "dense<[%s]> : %s" % (", ".join(rows), type_)
    return 'dense<"0x%s"> : %s' % (array.tobytes().hex().upper(), type_)


MODEL = """
ml_program.global private @w({w}) : tensor<64x32xf32>
ml_program.global private @m({m}) : tensor<64x32xi1>
ml_program.global private @s(dense<0.5> : tensor<8x32xf32>) : tensor<8x32xf32>
ml_program.global private @h({h}) : tensor<8x64xf16>
ml_program.global private mutable @acc({acc}) : tensor<8x32xf32>
ml_program.func @main(%x: tensor<8x64xf32>) -> (tensor<8x32xf32>, tensor<8x64xf16>) {{
  %w = ml_program.global_load_const @w : tensor<64x32xf32>
  %m = ml_program.global_load_const @m : tensor<64x32xi1>
  %s = ml_program.global_load_const @s : tensor<8x32xf32>
  %h = ml_program.global_load_const @h : tensor<8x64xf16>
  %acc = ml_program.global_load @acc : tensor<8x32xf32>
  %neg = arith.negf %w : tensor<64x32xf32>
  %z = arith.select %m, %w, %neg : tensor<64x32xi1>, tensor<64x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.matmul ins(%x, %z : tensor<8x64xf32>, tensor<64x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %ys = arith.mulf %y, %s : tensor<8x32xf32>
  %next = arith.addf %acc, %ys : tensor<8x32xf32>
  ml_program.global_store @acc = %next : tensor<8x32xf32>
  %hh = arith.addf %h, %h : tensor<8x64xf16>
  ml_program.return %next, %hh : tensor<8x32xf32>, tensor<8x64xf16>
}}
"""


def main():
    mode, directory = sys.argv[1], sys.argv[2]
    v = values(np.random.default_rng(7))
    if mode == "gen":
        with open(os.path.join(directory, "model.mlir"), "w") as f:
            f.write(MODEL.format(
                w=dense(v["w"], "tensor<64x32xf32>"),
                m=dense(v["m"], "tensor<64x32xi1>"),
                h=dense(v["h"], "tensor<8x64xf16>"),
                acc=dense(v["acc"], "tensor<8x32xf32>")))
        np.save(os.path.join(directory, "x.npy"), v["x"])
        return
    out, calls = sys.argv[3], int(sys.argv[4])
    z = np.where(v["m"], v["w"], -v["w"])
    y = (v["x"].astype(np.float64) @ z.astype(np.float64)) * 0.5
    acc = v["acc"].astype(np.float64) + calls * y
    got = np.load(os.path.join(out, "output_0.npy"))
    assert got.dtype == np.float32 and got.shape == (8, 32), got.dtype
    np.testing.assert_allclose(got, acc, rtol=1e-4, atol=1e-4)
    hh = np.load(os.path.join(out, "output_1.npy"))
    assert hh.dtype == np.float16 and hh.shape == (8, 64), hh.dtype
    np.testing.assert_array_equal(hh, v["h"] + v["h"])
    print("%s: matches numpy after %d call(s)" % (os.path.basename(out), calls))


if __name__ == "__main__":
    main()
