"""Writes a MIL program using lists inside and across while_loop and cond
(DIR/program.pbtxt), random inputs (DIR/input_<i>.npy) and the outputs a
plain numpy model of MIL list semantics gives (DIR/reference_<i>.npy).

The program:
  rows   = list_scatter(make_list(5, fixed, [4]), perm, x)   # rows[perm[k]] = x[k]
  dyn    = make_list(init_length=n0 (run time), dynamic, [4])
  counts = make_list(5, fixed, [] int32)                     # scalar elements
  while i < n:
    e = list_read(rows, i)
    dyn = cond(i < 2) { list_write(dyn, 2 * i, e) } else { list_write(dyn, i + 3, -e) }
    counts = list_write(counts, i, i * i)
  picked = list_gather(dyn, gidx);  length = list_length(dyn)
  grown  = list_scatter(dyn, sidx, x[:2])  (run-time indices past the end)
  length2 = list_length(grown);  stack = list_gather(grown, range_1d(0, length2, 1))
  squares = list_gather(counts, 0..4)
"""

import os
import sys

import numpy as np

DT = {"fp32": "FLOAT32", "i32": "INT32", "bool": "BOOL"}


def T(dt, shape):
    dims = "".join(" dimensions { constant { size: %d } }" % d for d in shape)
    return "tensorType { dataType: %s rank: %d%s }" % (DT[dt], len(shape), dims)


def L(dt, shape, length=None):
    dims = "".join(" dimensions { constant { size: %d } }" % d for d in shape)
    ln = (" length { constant { size: %d } }" % length if length is not None
          else " length { unknown { variadic: false } }")
    return "listType { type { tensorType { dataType: %s rank: %d%s } }%s }" % (
        DT[dt], len(shape), dims, ln)


def imm(dt, vals, shape=()):
    vals = np.asarray(vals).reshape(-1)
    if dt == "str":
        return ('value { type { tensorType { dataType: STRING rank: 0 } } '
                'immediateValue { tensor { strings { values: "%s" } } } }'
                % vals[0])
    kind = {"i32": "ints", "fp32": "floats", "bool": "bools"}[dt]
    text = ", ".join(("true" if v else "false") if dt == "bool" else
                     repr(float(v)) if dt == "fp32" else str(int(v))
                     for v in vals)
    return "value { type { %s } immediateValue { tensor { %s { values: [%s] } } } }" % (
        T(dt, shape), kind, text)


def name(n):
    return 'name: "%s"' % n


def op(type_, inputs, outputs, blocks=()):
    s = 'operations { type: "%s"\n' % type_
    for k, args in inputs.items():
        args = [args] if isinstance(args, str) else args
        s += '  inputs { key: "%s" value { %s } }\n' % (
            k, " ".join("arguments { %s }" % a for a in args))
    for n, t in outputs:
        s += '  outputs { name: "%s" type { %s } }\n' % (n, t)
    return s + "".join(blocks) + "}\n"


def const(n, dt, v):
    return ('operations { type: "const" outputs { name: "%s" type { %s } } '
            'attributes { key: "val" %s } }\n' % (n, T(dt, []), imm(dt, v)))


def block(inputs, outputs, ops):
    s = "blocks {\n"
    s += "".join('  inputs { name: "%s" type { %s } }\n' % i for i in inputs)
    s += "".join('  outputs: "%s"\n' % o for o in outputs)
    return s + "".join(ops) + "}\n"


def program(inputs, outputs, ops):
    s = 'version: 1\nfunctions {\n  key: "main"\n  value {\n'
    s += "".join('    inputs { name: "%s" type { %s } }\n' % i for i in inputs)
    s += ('    opset: "CoreML5"\n    block_specializations {\n'
          '      key: "CoreML5"\n      value {\n')
    s += "".join('        outputs: "%s"\n' % o for o in outputs)
    return s + "".join(ops) + "      }\n    }\n  }\n}\n"


class NumpyList:
    """MIL list semantics: elements of one shape, zero until written; a
    dynamic-length list grows to index + 1 on a write past its end."""

    def __init__(self, length, shape, dtype, dynamic):
        self.items = [np.zeros(shape, dtype) for _ in range(length)]
        self.shape, self.dtype, self.dynamic = shape, dtype, dynamic

    def write(self, i, v):
        assert i >= 0 and (self.dynamic or i < len(self.items))
        while i >= len(self.items):
            self.items.append(np.zeros(self.shape, self.dtype))
        self.items[i] = np.asarray(v, self.dtype)

    def gather(self, idx):
        return np.stack([self.items[i] for i in idx])


def main(out):
    rng = np.random.default_rng(21)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    perm = rng.permutation(5).astype(np.int32)
    n0, n = np.int32(2), np.int32(5)
    gidx = np.array([7, 0, 5, 2, 6], np.int32)
    sidx = np.array([9, 1], np.int32)
    inputs = [("x", x), ("perm", perm), ("n0", n0), ("n", n), ("gidx", gidx),
              ("sidx", sidx)]

    # Reference.
    rows = NumpyList(5, (4,), np.float32, False)
    for k in range(5):
        rows.write(int(perm[k]), x[k])
    dyn = NumpyList(int(n0), (4,), np.float32, True)
    counts = NumpyList(5, (), np.int32, False)
    for i in range(int(n)):
        e = rows.items[i]
        if i < 2:
            dyn.write(2 * i, e)
        else:
            dyn.write(i + 3, -e)
        counts.write(i, i * i)
    picked, length = dyn.gather(gidx), np.int32(len(dyn.items))
    for k in range(2):
        dyn.write(int(sidx[k]), x[k])
    stack, length2 = dyn.gather(range(10)), np.int32(len(dyn.items))
    squares = counts.gather(range(5))
    references = [picked, length, stack, length2, squares]

    dynT, rowT = L("fp32", [4]), T("fp32", [4])
    cntT = L("i32", [], 5)
    ops = [
        op("make_list", {"init_length": imm("i32", 5),
                         "dynamic_length": imm("bool", False),
                         "elem_shape": imm("i32", 4)},
           [("rows0", L("fp32", [4], 5))]),
        op("list_scatter", {"ls": name("rows0"), "indices": name("perm"),
                            "value": name("x")},
           [("rows", L("fp32", [4], 5))]),
        op("make_list", {"init_length": name("n0"),
                         "elem_shape": imm("i32", 4)}, [("dyn0", dynT)]),
        op("make_list", {"init_length": imm("i32", 5),
                         "dynamic_length": imm("bool", False),
                         "elem_shape": [], "dtype": imm("str", "int32")},
           [("counts0", cntT)]),
        const("zero", "i32", 0),
    ]
    vars_ = [("i", T("i32", [])), ("d", dynT), ("c", cntT)]
    cond_block = block(vars_, ["more"], [
        op("less", {"x": name("i"), "y": name("n")}, [("more", T("bool", []))])])
    body = block([("i2", T("i32", [])), ("d2", dynT), ("c2", cntT)],
                 ["next_i", "next_d", "next_c"], [
        op("list_read", {"ls": name("rows"), "index": name("i2")},
           [("e", rowT)]),
        op("less", {"x": name("i2"), "y": imm("i32", 2)},
           [("early", T("bool", []))]),
        op("cond", {"pred": name("early")}, [("next_d", dynT)], [
            block([], ["d_even"], [
                op("mul", {"x": name("i2"), "y": imm("i32", 2)},
                   [("at_even", T("i32", []))]),
                op("list_write", {"ls": name("d2"), "index": name("at_even"),
                                  "value": name("e")}, [("d_even", dynT)])]),
            block([], ["d_odd"], [
                op("add", {"x": name("i2"), "y": imm("i32", 3)},
                   [("at_odd", T("i32", []))]),
                op("mul", {"x": name("e"), "y": imm("fp32", -1)},
                   [("minus_e", rowT)]),
                op("list_write", {"ls": name("d2"), "index": name("at_odd"),
                                  "value": name("minus_e")},
                   [("d_odd", dynT)])])]),
        op("mul", {"x": name("i2"), "y": name("i2")},
           [("square", T("i32", []))]),
        op("list_write", {"ls": name("c2"), "index": name("i2"),
                          "value": name("square")}, [("next_c", cntT)]),
        op("add", {"x": name("i2"), "y": imm("i32", 1)},
           [("next_i", T("i32", []))]),
    ])
    ops += [
        op("while_loop", {"loop_vars": [name("zero"), name("dyn0"),
                                        name("counts0")]},
           [("iters", T("i32", [])), ("dyn", dynT), ("counts", cntT)],
           [cond_block, body]),
        op("list_gather", {"ls": name("dyn"), "indices": name("gidx")},
           [("picked", T("fp32", [5, 4]))]),
        op("list_length", {"ls": name("dyn")}, [("length", T("i32", []))]),
        op("slice_by_size", {"x": name("x"), "begin": imm("i32", [0, 0], [2]),
                             "size": imm("i32", [2, 4], [2])},
           [("head", T("fp32", [2, 4]))]),
        op("list_scatter", {"ls": name("dyn"), "indices": name("sidx"),
                            "value": name("head")}, [("grown", dynT)]),
        op("list_length", {"ls": name("grown")}, [("length2", T("i32", []))]),
        op("range_1d", {"start": imm("i32", 0), "end": name("length2"),
                        "step": imm("i32", 1)}, [("order", T("i32", [10]))]),
        op("list_gather", {"ls": name("grown"), "indices": name("order")},
           [("stack", T("fp32", [10, 4]))]),
        op("list_gather", {"ls": name("counts"),
                           "indices": imm("i32", np.arange(5), [5])},
           [("squares", T("i32", [5]))]),
    ]
    text = program([(k, T("i32" if v.dtype == np.int32 else "fp32", v.shape))
                    for k, v in inputs],
                   ["picked", "length", "stack", "length2", "squares"], ops)
    with open(os.path.join(out, "program.pbtxt"), "w") as f:
        f.write(text)
    for i, (_, v) in enumerate(inputs):
        np.save(os.path.join(out, "input_%d.npy" % i), v)
    for i, v in enumerate(references):
        np.save(os.path.join(out, "reference_%d.npy" % i), v)


if __name__ == "__main__":
    main(sys.argv[1])
