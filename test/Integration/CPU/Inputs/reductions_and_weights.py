"""Execution test of the row reductions of --mlprog-vectorize-reductions
and of matrix products whose B is a weight (an immutable global), whose
register-block panels --mlprog-fold-constant-panels makes at compile time.

  reductions_and_weights.py gen DIR   writes DIR/module.mlir and DIR/in_<i>.npy
  reductions_and_weights.py check DIR RUN...
                                      compares DIR/<RUN>/output_<i>.npy with
                                      numpy in float64 (int64 for integers)

Rows are not multiples of the vector chunks (200 = 192 + 8), shorter than a
vector (7, left scalar), large enough for an scf.forall over rows (300 x 256),
of integers (maxsi), squared (powf 2) and weighted by a broadcast vector. The
weights have odd shapes (N not a multiple of the register block, M = 1), one
is read by two products (one set of panels), one is a broadcast B of a
batched product.
"""
import os

import numpy as np

from cases_module import check_runs, load_inputs, main, write_module

MAPS_2D = ("affine_map<(d0, d1) -> (d0, d1)>", "affine_map<(d0, d1) -> (d0)>")
MAPS_3D = ("affine_map<(d0, d1, d2) -> (d0, d1, d2)>",
           "affine_map<(d0, d1, d2) -> (d0, d1)>")

# (input shape, element type, init constant, body lines using %in/%out/%w,
#  result name, numpy reference on float64/int64 arrays, with weight row)
REDUCTIONS = [
    ((4, 64, 200), "f32", "0xFF800000", ["%r = arith.maximumf %in, %out : f32"],
     lambda x: x.max(axis=-1), False),
    ((3, 5, 64), "f32", "0.0", ["%r = arith.addf %in, %out : f32"],
     lambda x: x.sum(axis=-1), False),
    ((64, 256), "f32", "0.0",
     ["%p = math.powf %in, %two : f32", "%r = arith.addf %p, %out : f32"],
     lambda x: (x * x).sum(axis=-1), False),
    ((2, 7), "f32", "0.0", ["%r = arith.addf %in, %out : f32"],
     lambda x: x.sum(axis=-1), False),
    ((5, 100), "i32", "-2147483648", ["%r = arith.maxsi %in, %out : i32"],
     lambda x: x.max(axis=-1), False),
    ((300, 256), "f32", "0.0", ["%r = arith.addf %in, %out : f32"],
     lambda x: x.sum(axis=-1), False),
    ((32, 100), "f32", "0.0",
     ["%p = arith.mulf %in, %w : f32", "%r = arith.addf %p, %out : f32"],
     None, True),
]

# (name, K, N) of the weights; (weight, M) or (weight, batch, M) of products.
WEIGHTS = [("w_qkv", 256, 768), ("w_gemv", 64, 96), ("w_odd", 100, 72),
           ("w_shared", 128, 64), ("w_batch", 40, 64)]
PRODUCTS = [("w_qkv", 64), ("w_qkv", 197), ("w_gemv", 1), ("w_odd", 17),
            ("w_shared", 24), ("w_shared", 9)]
BATCHED = [("w_batch", 2, 33)]


def ty(shape, element="f32"):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), element)


def weight_values(name, k, n):
    rng = np.random.default_rng(sum(name.encode()) + k * n)
    return rng.standard_normal((k, n), dtype=np.float32)


def weights():
    return {name: weight_values(name, k, n) for name, k, n in WEIGHTS}


def gen(root):
    rng = np.random.default_rng(11)
    args, body, results, globals_ = [], [], [], []
    index = 0

    def add_input(array):
        nonlocal index
        np.save(os.path.join(root, "in_%d.npy" % index), array)
        element = "i32" if array.dtype == np.int32 else "f32"
        args.append("%%in%d: %s" % (index, ty(array.shape, element)))
        index += 1
        return "%%in%d" % (index - 1)

    for i, (shape, element, init, lines, _, weighted) in enumerate(REDUCTIONS):
        if element == "i32":
            x = rng.integers(-1000, 1000, shape, dtype=np.int32)
        else:
            x = rng.standard_normal(shape, dtype=np.float32)
        name = add_input(x)
        out = shape[:-1]
        ins, in_types, maps = [name], [ty(shape, element)], []
        block = ["^bb0(%%in: %s, %%out: %s):" % (element, element)]
        if weighted:
            ins.append(add_input(rng.standard_normal(shape[-1:],
                                                     dtype=np.float32)))
            in_types.append(ty(shape[-1:]))
            block = ["^bb0(%in: f32, %w: f32, %out: f32):"]
        maps = MAPS_2D if len(shape) == 2 else MAPS_3D
        map_list = [maps[0]] + (["affine_map<(d0, d1) -> (d1)>"]
                                if weighted else []) + [maps[1]]
        iterators = ", ".join(['"parallel"'] * (len(shape) - 1) +
                              ['"reduction"'])
        body += ["  %%c%d = arith.constant %s : %s" % (i, init, element),
                 "  %%e%d = tensor.empty() : %s" % (i, ty(out, element)),
                 "  %%f%d = linalg.fill ins(%%c%d : %s) outs(%%e%d : %s) -> %s"
                 % (i, i, element, i, ty(out, element), ty(out, element)),
                 "  %%r%d = linalg.generic {indexing_maps = [%s], "
                 "iterator_types = [%s]} ins(%s : %s) outs(%%f%d : %s) {"
                 % (i, ", ".join(map_list), iterators, ", ".join(ins),
                    ", ".join(in_types), i, ty(out, element))]
        body += ["  " + line for line in block]
        body += ["    " + line for line in lines]
        body += ["    linalg.yield %%r : %s" % element,
                 "  } -> %s" % ty(out, element)]
        results.append(("%%r%d" % i, ty(out, element)))

    values = weights()
    for name, k, n in WEIGHTS:
        data = values[name].tobytes().hex().upper()
        globals_.append('ml_program.global private @%s(dense<"0x%s"> : %s) : %s'
                        % (name, data, ty((k, n)), ty((k, n))))
    shapes = {name: (k, n) for name, k, n in WEIGHTS}
    for j, (name, m) in enumerate(PRODUCTS):
        k, n = shapes[name]
        a = add_input(rng.standard_normal((m, k), dtype=np.float32))
        body += ["  %%wl%d = ml_program.global_load_const @%s : %s"
                 % (j, name, ty((k, n))),
                 "  %%we%d = tensor.empty() : %s" % (j, ty((m, n))),
                 "  %%wf%d = linalg.fill ins(%%zero : f32) outs(%%we%d : %s) "
                 "-> %s" % (j, j, ty((m, n)), ty((m, n))),
                 "  %%wr%d = linalg.matmul ins(%s, %%wl%d : %s, %s) "
                 "outs(%%wf%d : %s) -> %s"
                 % (j, a, j, ty((m, k)), ty((k, n)), j, ty((m, n)),
                    ty((m, n)))]
        results.append(("%%wr%d" % j, ty((m, n))))
    for j, (name, batch, m) in enumerate(BATCHED):
        k, n = shapes[name]
        a = add_input(rng.standard_normal((batch, m, k), dtype=np.float32))
        out = ty((batch, m, n))
        body += ["  %%bl%d = ml_program.global_load_const @%s : %s"
                 % (j, name, ty((k, n))),
                 "  %%be%d = tensor.empty() : %s" % (j, out),
                 "  %%bf%d = linalg.fill ins(%%zero : f32) outs(%%be%d : %s) "
                 "-> %s" % (j, j, out, out),
                 "  %%br%d = linalg.generic {indexing_maps = ["
                 "affine_map<(b, m, n, k) -> (b, m, k)>, "
                 "affine_map<(b, m, n, k) -> (k, n)>, "
                 "affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = "
                 "[\"parallel\", \"parallel\", \"parallel\", \"reduction\"]} "
                 "ins(%s, %%bl%d : %s, %s) outs(%%bf%d : %s) {"
                 % (j, a, j, ty((batch, m, k)), ty((k, n)), j, out),
                 "  ^bb0(%a: f32, %b: f32, %c: f32):",
                 "    %p = arith.mulf %a, %b : f32",
                 "    %s = arith.addf %c, %p : f32",
                 "    linalg.yield %s : f32",
                 "  } -> %s" % out]
        results.append(("%%br%d" % j, out))
    write_module(root, args, ["  %zero = arith.constant 0.0 : f32",
                              "  %two = arith.constant 2.0 : f32"],
                 body, results, index, globals_)


def check(root, runs):
    counts = [2 if r[5] else 1 for r in REDUCTIONS]
    counts += [1] * (len(PRODUCTS) + len(BATCHED))
    inputs = list(load_inputs(root, counts))
    refs = []
    for (shape, element, _, _, ref, weighted), ins in zip(REDUCTIONS, inputs):
        if element == "i32":
            refs.append(("reduce %s %s" % (shape, element),
                         ref(ins[0].astype(np.int64))))
        elif weighted:
            refs.append(("weighted sum %s" % (shape,),
                         ins[0].astype(np.float64) @ ins[1].astype(np.float64)))
        else:
            refs.append(("reduce %s" % (shape,),
                         ref(ins[0].astype(np.float64))))
    values = weights()
    rest = inputs[len(REDUCTIONS):]
    for (name, m), ins in zip(PRODUCTS + [(b[0], None) for b in BATCHED],
                              rest):
        refs.append(("product with %s" % name,
                     ins[0].astype(np.float64) @ values[name].astype(np.float64)))
    check_runs(root, runs, refs, lambda got, want, msg:
               np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4,
                                          err_msg=msg))


if __name__ == "__main__":
    main(gen, check)
