"""Execution test of convolutions whose input is a zero tensor.pad (the form
the importers emit for conv pads), which the CPU code generation reads
through instead of copying.

  padded_convolutions.py gen DIR      writes DIR/module.mlir (one function
                                      with every case below), DIR/in_<i>.npy
                                      and DIR/inputs.txt
  padded_convolutions.py check DIR RUN...
                                      compares DIR/<RUN>/output_<i>.npy with
                                      numpy in float64

Cases: pads on all sides and asymmetric ones ([top, left, bottom, right] =
[1, 0, 2, 1]), pads as wide as the window (output rows and columns that read
only padding), strides 1 and 2 (also different per dimension) and 3 (the
copy-generic fallback), dilation 2, batch 2, channels and widths that are
not multiples of the vector width (16 with AVX-512, 8 with AVX2), rows
narrower than one vector, column tensors large enough to be built in blocks
of output rows.
"""
import os

import numpy as np

from cases_module import check_runs, load_inputs, main, write_module

# (x shape NCHW, w shape FCHW, (sh, sw), (dh, dw), [top, left, bottom, right])
# of linalg.conv_2d_nchw_fchw on a padded x.
CONVS = [((1, 3, 23, 23), (16, 3, 7, 7), (2, 2), (1, 1), [3, 3, 3, 3]),
         ((1, 16, 15, 15), (20, 16, 3, 3), (1, 1), (1, 1), [1, 1, 1, 1]),
         ((2, 5, 17, 13), (12, 5, 3, 3), (2, 2), (1, 1), [1, 0, 2, 1]),
         ((1, 7, 20, 21), (9, 7, 3, 3), (1, 1), (2, 2), [2, 2, 2, 2]),
         ((1, 4, 6, 5), (8, 4, 5, 5), (1, 1), (1, 1), [4, 4, 4, 4]),
         ((1, 6, 19, 40), (10, 6, 3, 3), (2, 1), (1, 1), [0, 1, 1, 1]),
         ((1, 3, 11, 70), (8, 3, 3, 3), (2, 2), (1, 1), [1, 1, 1, 1]),
         ((1, 4, 12, 12), (6, 4, 3, 3), (3, 3), (1, 1), [1, 1, 1, 1]),
         ((2, 3, 10, 10), (5, 3, 3, 3), (1, 1), (1, 1), [2, 1, 0, 2]),
         ((1, 17, 9, 9), (8, 17, 1, 1), (2, 2), (1, 1), [0, 0, 0, 0]),
         ((1, 2, 8, 8), (4, 2, 3, 3), (1, 2), (1, 1), [3, 2, 1, 3]),
         # N = 98 and 49 (pointwise, no pad), 1 or 2 past a multiple of the
         # vector width: the column tensor gets zero columns.
         ((2, 4, 7, 7), (6, 4, 3, 3), (1, 1), (1, 1), [1, 1, 1, 1]),
         ((1, 20, 7, 7), (12, 20, 1, 1), (1, 1), (1, 1), [0, 0, 0, 0]),
         # Column tensors over 1.5 MiB, built and multiplied in blocks of
         # output rows (3, 6, 3, 2 x 2, 2 x 2 and 7 blocks; the last of 112
         # columns, a multiple of one vector but not of two with AVX-512).
         ((1, 16, 48, 64), (8, 16, 3, 3), (1, 1), (1, 1), [1, 1, 1, 1]),
         ((1, 16, 130, 128), (6, 16, 3, 3), (2, 2), (1, 1), [1, 0, 2, 1]),
         ((1, 3, 96, 128), (10, 3, 7, 7), (2, 2), (1, 1), [3, 3, 3, 3]),
         ((2, 16, 24, 64), (8, 16, 3, 3), (1, 1), (1, 1), [1, 1, 1, 1]),
         ((2, 32, 66, 64), (5, 32, 3, 3), (2, 2), (1, 1), [1, 0, 2, 1]),
         ((1, 64, 28, 28), (8, 64, 3, 3), (1, 1), (1, 1), [1, 1, 1, 1])]
# (x shape NCHW, w shape CHW, (sh, sw), (dh, dw), pads) of
# linalg.depthwise_conv_2d_nchw_chw on a padded x.
DEPTHWISE = [((1, 5, 19, 19), (5, 3, 3), (1, 1), (1, 1), [1, 1, 1, 1]),
             ((1, 6, 20, 37), (6, 3, 3), (2, 2), (1, 1), [1, 0, 2, 1]),
             ((2, 4, 9, 12), (4, 3, 3), (1, 1), (2, 2), [2, 2, 2, 2]),
             ((1, 6, 20, 100), (6, 5, 5), (1, 1), (1, 1), [2, 2, 2, 2]),
             ((1, 7, 11, 130), (7, 3, 3), (2, 2), (1, 1), [1, 1, 1, 1]),
             ((1, 9, 7, 7), (9, 3, 3), (2, 2), (1, 1), [1, 1, 1, 1]),
             ((1, 3, 4, 4), (3, 5, 5), (1, 1), (1, 1), [3, 3, 3, 3]),
             ((1, 3, 14, 33), (3, 3, 3), (2, 1), (1, 1), [0, 2, 1, 0])]


def ty(shape):
    return "tensor<%sxf32>" % "x".join(map(str, shape))


def padded_shape(x, pads):
    return (x[0], x[1], x[2] + pads[0] + pads[2], x[3] + pads[1] + pads[3])


def out_size(size, k, s, d):
    return (size - d * (k - 1) - 1) // s + 1


def reference(xv, wv, stride, dilation, pads, depthwise):
    xp = np.pad(xv, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    kh, kw = wv.shape[-2:]
    oh = out_size(xp.shape[2], kh, stride[0], dilation[0])
    ow = out_size(xp.shape[3], kw, stride[1], dilation[1])
    f = wv.shape[0]
    r = np.zeros((xv.shape[0], f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            y0, x0 = i * dilation[0], j * dilation[1]
            patch = xp[:, :, y0:y0 + stride[0] * (oh - 1) + 1:stride[0],
                       x0:x0 + stride[1] * (ow - 1) + 1:stride[1]]
            if depthwise:
                r += patch * wv[None, :, i, j, None, None]
            else:
                r += np.einsum("fc,ncyx->nfyx", wv[:, :, i, j], patch)
    return r


def cases():
    """(op, attrs, input shapes, pads, output shape, reference)."""
    out = []
    for op, table, depthwise in (("linalg.conv_2d_nchw_fchw", CONVS, False),
                                 ("linalg.depthwise_conv_2d_nchw_chw",
                                  DEPTHWISE, True)):
        for x, w, s, d, pads in table:
            p = padded_shape(x, pads)
            result = (x[0], w[0], out_size(p[2], w[-2], s[0], d[0]),
                      out_size(p[3], w[-1], s[1], d[1]))
            attrs = ("{dilations = dense<[%d, %d]> : tensor<2xi64>, "
                     "strides = dense<[%d, %d]> : tensor<2xi64>}"
                     % (d[0], d[1], s[0], s[1]))

            def ref(xv, wv, s=s, d=d, pads=pads, depthwise=depthwise):
                return reference(xv, wv, s, d, pads, depthwise)
            out.append((op, attrs, [x, w], pads, result, ref))
    return out


def gen(root):
    rng = np.random.default_rng(11)
    args, body, results = [], [], []
    index = 0
    for i, (op, attrs, shapes, pads, result, _) in enumerate(cases()):
        names = []
        for shape in shapes:
            np.save(os.path.join(root, "in_%d.npy" % index),
                    rng.standard_normal(shape, dtype=np.float32))
            names.append("%%in%d" % index)
            args.append("%%in%d: %s" % (index, ty(shape)))
            index += 1
        x = shapes[0]
        p = padded_shape(x, pads)
        body.append("  %%p%d = tensor.pad %s low[0, 0, %d, %d] high[0, 0, %d, %d] {"
                    % (i, names[0], pads[0], pads[1], pads[2], pads[3]))
        body.append("  ^bb0(%a: index, %b: index, %c: index, %d: index):")
        body.append("    tensor.yield %zero : f32")
        body.append("  } : %s to %s" % (ty(x), ty(p)))
        body.append("  %%e%d = tensor.empty() : %s" % (i, ty(result)))
        body.append("  %%f%d = linalg.fill ins(%%zero : f32) outs(%%e%d : %s) -> %s"
                    % (i, i, ty(result), ty(result)))
        body.append("  %%r%d = %s %s ins(%%p%d, %s : %s, %s) outs(%%f%d : %s) -> %s"
                    % (i, op, attrs, i, names[1], ty(p), ty(shapes[1]), i,
                       ty(result), ty(result)))
        results.append(("%%r%d" % i, ty(result)))
    write_module(root, args, ["  %zero = arith.constant 0.0 : f32"], body,
                 results, index)


def check(root, runs):
    all_cases = cases()
    refs = [("%s %s pads %s" % (op, shapes, pads),
             ref(*[a.astype(np.float64) for a in ins]))
            for (op, _, shapes, pads, _, ref), ins in
            zip(all_cases, load_inputs(root, [len(c[2]) for c in all_cases]))]
    check_runs(root, runs, refs, lambda got, want, msg:
               np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4,
                                          err_msg=msg))


if __name__ == "__main__":
    main(gen, check)
