"""Execution test of the contraction and depthwise convolution code
generation on odd shapes (and of max pooling, which shares the depthwise
convolution's vector code).

  contraction_shapes.py gen DIR      writes DIR/module.mlir (one function with
                                     every case below) and DIR/in_<i>.npy
  contraction_shapes.py check DIR RUN...
                                     compares DIR/<RUN>/output_<i>.npy with
                                     numpy in float64

The shapes are not multiples of the register blocks (mr x nr = 8 x 32 with
AVX-512, 4 x 16 with AVX2), include extents of 1, K blocked into Kc (K >
768), and some have rows 4 KiB apart and enough M, N and K that B and A are
packed into panels.
"""
import os

import numpy as np

from cases_module import check_runs, load_inputs, main, write_module

# (M, K, N) of linalg.matmul.
MATMULS = [(1, 17, 63), (17, 1, 100), (63, 100, 17), (100, 63, 130),
           (130, 96, 64), (64, 1000, 96), (48, 1030, 160), (256, 40, 288),
           # Rows a multiple of 4 KiB apart: packed into panels.
           (100, 1024, 1024), (40, 1280, 1024),
           # Small N, not a multiple of the vectors: padded to full vectors.
           (96, 1100, 49)]
# (batch, M, K, N) of linalg.batch_matmul.
BATCH_MATMULS = [(3, 40, 50, 96), (2, 33, 17, 64), (2, 36, 1024, 1024),
                 (2, 24, 40, 49)]
# (x shape NCHW, w shape FCHW, stride) of linalg.conv_2d_nchw_fchw.
CONVS = [((1, 16, 15, 15), (40, 16, 3, 3), 1),
         ((2, 8, 17, 17), (36, 8, 3, 3), 2),
         ((1, 64, 10, 10), (48, 64, 1, 1), 1),
         ((1, 3, 23, 23), (64, 3, 7, 7), 2),
         # A 7x7 output map: N = 49 padded to 64.
         ((1, 32, 9, 9), (40, 32, 3, 3), 1)]
# (x shape NCHW, w shape CHW, stride, dilation) of
# linalg.depthwise_conv_2d_nchw_chw: rows of 17 (a vector and an overlapping
# one), 8 (less than a vector), 96 (more vectors than fit the registers),
# strides 2 whose last reads pass the end of the row, dilation 2.
DEPTHWISE = [((1, 5, 19, 19), (5, 3, 3), 1, 1),
             ((2, 3, 40, 37), (3, 3, 3), 2, 1),
             ((1, 4, 9, 12), (4, 3, 3), 1, 2),
             ((1, 6, 20, 100), (6, 5, 5), 1, 1),
             ((1, 7, 11, 130), (7, 3, 3), 2, 1),
             ((1, 9, 7, 7), (9, 3, 3), 2, 1)]


# (x shape NCHW, window (Kh, Kw), stride, dilation) of linalg.pooling_nchw_max
# into -inf: rows of 56 -> 28 (resnet18's 3x3 stride-2 pool), 17 (a vector
# and an overlapping one), 8 (less than a vector), stride 1, dilation 2.
POOLS = [((1, 4, 57, 57), (3, 3), 2, 1),
         ((2, 3, 19, 19), (3, 3), 1, 1),
         ((1, 5, 10, 10), (2, 2), 2, 1),
         ((1, 2, 13, 40), (5, 5), 1, 2)]


def ty(shape):
    return "tensor<%sxf32>" % "x".join(map(str, shape))


def conv_out(x, w, s):
    return (x[0], w[0], (x[2] - w[2]) // s + 1, (x[3] - w[3]) // s + 1)


def cases():
    """(op text builder, input shapes, output shape, reference function)."""
    out = []
    for m, k, n in MATMULS:
        out.append(("linalg.matmul", None, [(m, k), (k, n)], (m, n),
                    lambda a, b: a @ b))
    for bt, m, k, n in BATCH_MATMULS:
        out.append(("linalg.batch_matmul", None, [(bt, m, k), (bt, k, n)],
                    (bt, m, n), lambda a, b: a @ b))
    for x, w, s in CONVS:
        def ref(xv, wv, s=s):
            n, f, oh, ow = conv_out(xv.shape, wv.shape, s)
            r = np.zeros((n, f, oh, ow))
            for i in range(wv.shape[2]):
                for j in range(wv.shape[3]):
                    patch = xv[:, :, i:i + s * (oh - 1) + 1:s, j:j + s * (ow - 1) + 1:s]
                    r += np.einsum("fc,ncyx->nfyx", wv[:, :, i, j], patch)
            return r
        attrs = ("{dilations = dense<1> : tensor<2xi64>, strides = dense<%d> : "
                 "tensor<2xi64>}" % s)
        out.append(("linalg.conv_2d_nchw_fchw", attrs, [x, w],
                    conv_out(x, w, s), ref))
    for x, w, s, d in DEPTHWISE:
        oh = (x[2] - d * (w[1] - 1) - 1) // s + 1
        ow = (x[3] - d * (w[2] - 1) - 1) // s + 1

        def ref(xv, wv, s=s, d=d, oh=oh, ow=ow):
            r = np.zeros((xv.shape[0], xv.shape[1], oh, ow))
            for i in range(wv.shape[1]):
                for j in range(wv.shape[2]):
                    patch = xv[:, :, i * d:i * d + s * (oh - 1) + 1:s,
                               j * d:j * d + s * (ow - 1) + 1:s]
                    r += patch * wv[None, :, i, j, None, None]
            return r
        attrs = ("{dilations = dense<%d> : tensor<2xi64>, strides = dense<%d> : "
                 "tensor<2xi64>}" % (d, s))
        out.append(("linalg.depthwise_conv_2d_nchw_chw", attrs, [x, w],
                    (x[0], x[1], oh, ow), ref))
    for x, (kh, kw), s, d in POOLS:
        oh = (x[2] - d * (kh - 1) - 1) // s + 1
        ow = (x[3] - d * (kw - 1) - 1) // s + 1

        def ref(xv, _, s=s, d=d, oh=oh, ow=ow, kh=kh, kw=kw):
            r = np.full((xv.shape[0], xv.shape[1], oh, ow), -np.inf)
            for i in range(kh):
                for j in range(kw):
                    r = np.maximum(r, xv[:, :, i * d:i * d + s * (oh - 1) + 1:s,
                                         j * d:j * d + s * (ow - 1) + 1:s])
            return r
        attrs = ("{dilations = dense<%d> : tensor<2xi64>, strides = dense<%d> : "
                 "tensor<2xi64>}" % (d, s))
        out.append(("linalg.pooling_nchw_max", attrs, [x, (kh, kw)],
                    (x[0], x[1], oh, ow), ref))
    return out


def gen(root):
    rng = np.random.default_rng(7)
    args, body, results = [], [], []
    index = 0
    for i, (op, attrs, shapes, result, _) in enumerate(cases()):
        names = []
        for shape in shapes:
            np.save(os.path.join(root, "in_%d.npy" % index),
                    rng.standard_normal(shape, dtype=np.float32))
            names.append("%%in%d" % index)
            args.append("%%in%d: %s" % (index, ty(shape)))
            index += 1
        body.append("  %%e%d = tensor.empty() : %s" % (i, ty(result)))
        init = "%ninf" if op == "linalg.pooling_nchw_max" else "%zero"
        body.append("  %%f%d = linalg.fill ins(%s : f32) outs(%%e%d : %s) -> %s"
                    % (i, init, i, ty(result), ty(result)))
        body.append("  %%r%d = %s %sins(%s : %s) outs(%%f%d : %s) -> %s"
                    % (i, op, attrs + " " if attrs else "", ", ".join(names),
                       ", ".join(ty(s) for s in shapes), i, ty(result),
                       ty(result)))
        results.append(("%%r%d" % i, ty(result)))
    write_module(root, args, ["  %zero = arith.constant 0.0 : f32",
                  "  %ninf = arith.constant 0xFF800000 : f32"], body, results, index)


def check(root, runs):
    all_cases = cases()
    refs = [("%s %s" % (op, shapes), ref(*[a.astype(np.float64) for a in ins]))
            for (op, _, shapes, _, ref), ins in
            zip(all_cases, load_inputs(root, [len(c[2]) for c in all_cases]))]
    check_runs(root, runs, refs, lambda got, want, msg:
               np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4,
                                          err_msg=msg))


if __name__ == "__main__":
    main(gen, check)
