"""Builds Core ML packages whose weights use the constexpr compression ops,
with coremltools' MIL Builder and ct.convert (its own blob writer), plus
an input and a numpy reference for each.

Each case CASE is a program y = x + W, where W is the output of the
compression op(s) and x a float32 input; written to OUT/CASE.mlpackage,
OUT/CASE.input.npy and OUT/CASE.reference.npy. The reference decompresses
W here, with numpy, from the compressed parameters (not with coremltools'
decompression). `--malformed` writes broken variants instead (see
MALFORMED).

Usage: make_compressed.py OUT [--malformed]
"""

import argparse
import os
import struct
import sys
import warnings
import zlib

import numpy as np

warnings.filterwarnings("ignore")
import logging  # noqa: E402

logging.disable(logging.WARNING)
import coremltools as ct  # noqa: E402
from coremltools.converters.mil import Builder as mb  # noqa: E402
from coremltools.converters.mil.mil import types  # noqa: E402

rng = np.random.default_rng(21)


# --- numpy references, written from the op definitions --------------------


def pack_bits(values, nbits):
    """LSB-first bit packing of unsigned values (MILBlob/iOS16 layout)."""
    bits = ((values.ravel()[:, None] >> np.arange(nbits)) & 1).astype(np.uint8)
    return np.packbits(bits.ravel(), bitorder="little")


def blockwise(data, scale, offset):
    d = data.astype(np.float64)
    s = scale.astype(np.float64)
    o = None if offset is None else offset.astype(np.float64)
    for axis, (n, m) in enumerate(zip(data.shape, scale.shape)):
        s = np.repeat(s, n // m, axis)
        if o is not None:
            o = np.repeat(o, n // m, axis)
    return (d - (0 if o is None else o)) * s


def lut_dense(indices, lut, vector_axis):
    """lut: [G.., P, V]; indices of the groups' shape times blocks."""
    k = indices.ndim
    out_shape = list(indices.shape)
    v = lut.shape[-1]
    if v > 1:
        out_shape[vector_axis] *= v
    out = np.zeros(out_shape, dtype=lut.dtype)
    for pos in np.ndindex(*indices.shape):
        g = tuple(p // (indices.shape[d] // lut.shape[d]) for d, p in enumerate(pos))
        vec = lut[g + (int(indices[pos]),)]
        for j in range(v):
            o = list(pos)
            if v > 1:
                o[vector_axis] = pos[vector_axis] * v + j
            out[tuple(o)] = vec[j]
    return out


def sparse_dense(mask, values):
    out = np.zeros(mask.shape, dtype=values.dtype)
    out[mask.astype(bool)] = values
    return out


# --- cases ----------------------------------------------------------------

CASES = {}


def case(name, opset):
    def register(fn):
        CASES[name] = (fn, opset)
        return fn
    return register


def u(shape, lo, hi, dtype):
    return rng.integers(lo, hi, size=shape).astype(dtype)


def f(shape):
    return (rng.standard_normal(shape) * 0.5).astype(np.float32)


@case("affine_int8_axis0", ct.target.iOS16)
def _():
    q = u((8, 16), -128, 128, np.int8)
    zp = u((8,), -5, 5, np.int8)
    s = (rng.random(8) * 0.1 + 0.01).astype(np.float32)
    op = lambda: mb.constexpr_affine_dequantize(
        quantized_data=q, zero_point=zp, scale=s, axis=0)
    ref = (q.astype(np.float64) - zp[:, None]) * s[:, None]
    return op, ref


@case("affine_uint8_axis1_scalar_zp", ct.target.iOS16)
def _():
    q = u((8, 16), 0, 256, np.uint8)
    zp = np.uint8(128)
    s = (rng.random(16) * 0.1 + 0.01).astype(np.float32)
    op = lambda: mb.constexpr_affine_dequantize(
        quantized_data=q, zero_point=zp, scale=s, axis=1)
    ref = (q.astype(np.float64) - 128) * s[None, :]
    return op, ref


@case("affine_int8_per_tensor", ct.target.iOS16)
def _():
    q = u((8, 16), -128, 128, np.int8)
    op = lambda: mb.constexpr_affine_dequantize(
        quantized_data=q, zero_point=np.int8(3), scale=np.float32(0.05), axis=0)
    return op, (q.astype(np.float64) - 3) * 0.05


@case("affine_uint8_float_zp", ct.target.iOS16)
def _():
    q = u((8, 16), 0, 256, np.uint8)
    zp = (rng.random(8) * 255).astype(np.float32)
    s = (rng.random(8) * 0.1 + 0.01).astype(np.float32)
    op = lambda: mb.constexpr_affine_dequantize(
        quantized_data=q, zero_point=zp, scale=s, axis=0)
    return op, (q.astype(np.float64) - zp[:, None]) * s[:, None]


@case("affine_int8_uint8_zp", ct.target.iOS16)
def _():
    # int8 data with a uint8 zero point above 127 (signless i8 in MLIR).
    q = u((8, 16), -128, 128, np.int8)
    zp = u((8,), 128, 256, np.uint8)
    s = (rng.random(8) * 0.1 + 0.01).astype(np.float32)
    op = lambda: mb.constexpr_affine_dequantize(
        quantized_data=q, zero_point=zp, scale=s, axis=0)
    return op, (q.astype(np.float64) - zp[:, None]) * s[:, None]


@case("cast_fp16", ct.target.iOS16)
def _():
    h = f((8, 16)).astype(np.float16)
    return (lambda: mb.constexpr_cast(source_val=h, output_dtype="fp32"),
            h.astype(np.float64))


def lut16(nbits):
    def build():
        shape = (8, 12)
        idx = u(shape, 0, 2 ** nbits, np.uint8)
        lut = f((2 ** nbits,))
        packed = pack_bits(idx, nbits)
        op = lambda: mb.constexpr_lut_to_dense(
            indices=packed, lut=lut, shape=np.array(shape, dtype=np.uint32))
        return op, lut[idx].astype(np.float64)
    return build


for _n in (1, 2, 4, 6, 8):
    case("lut16_%dbit" % _n, ct.target.iOS16)(lut16(_n))


@case("sparse16", ct.target.iOS16)
def _():
    shape = (6, 10)
    mask = u(shape, 0, 2, np.uint8)
    vals = f((int(mask.sum()),))
    op = lambda: mb.constexpr_sparse_to_dense(
        nonzero_data=vals, mask=pack_bits(mask, 1),
        shape=np.array(shape, dtype=np.uint32))
    return op, sparse_dense(mask, vals).astype(np.float64)


SUBBYTE = {"int4": (types.np_int4_dtype, -8, 8), "uint4": (types.np_uint4_dtype, 0, 16),
           "int8": (np.int8, -128, 128), "uint8": (np.uint8, 0, 256)}


def bss(dtype, scale_shape, offset):
    def build():
        npdt, lo, hi = SUBBYTE[dtype]
        raw = u((8, 16), lo, hi, np.int32)
        s = (rng.random(scale_shape) * 0.1 + 0.01).astype(np.float32)
        kw = {}
        off = None
        if offset == "int":
            off = u(scale_shape, lo, hi, np.int32)
            kw["offset"] = off.astype(npdt)
        elif offset == "float":
            off = f(scale_shape)
            kw["offset"] = off
        op = lambda: mb.constexpr_blockwise_shift_scale(
            data=raw.astype(npdt), scale=s, **kw)
        return op, blockwise(raw, s, off)
    return build


case("bss_int8_blocks_offset", ct.target.iOS18)(bss("int8", (4, 2), "int"))
case("bss_uint8_per_channel", ct.target.iOS18)(bss("uint8", (8, 1), None))
case("bss_int4_blocks_offset", ct.target.iOS18)(bss("int4", (2, 4), "int"))
case("bss_uint4_float_offset", ct.target.iOS18)(bss("uint4", (1, 4), "float"))
case("bss_int4_per_tensor", ct.target.iOS18)(bss("int4", (1, 1), None))

UINT = {1: types.np_uint1_dtype, 2: types.np_uint2_dtype, 3: types.np_uint3_dtype,
        4: types.np_uint4_dtype, 6: types.np_uint6_dtype, 8: np.uint8}


def lut18(nbits, groups, vector, vector_axis=None):
    def build():
        shape = (8, 12)
        idx = u(shape, 0, 2 ** nbits, np.int32)
        lut = f(groups + (2 ** nbits, vector))
        kw = {} if vector_axis is None else {"vector_axis": np.int32(vector_axis)}
        op = lambda: mb.constexpr_lut_to_dense(
            indices=idx.astype(UINT[nbits]), lut=lut, **kw)
        return op, lut_dense(idx, lut, vector_axis).astype(np.float64)
    return build


for _n in (1, 2, 3, 4, 6, 8):
    case("lut18_%dbit" % _n, ct.target.iOS18)(lut18(_n, (1, 1), 1))
case("lut18_per_group", ct.target.iOS18)(lut18(2, (2, 3), 1))
case("lut18_vector_axis1", ct.target.iOS18)(lut18(3, (1, 1), 2, 1))
case("lut18_vector_axis0_groups", ct.target.iOS18)(lut18(2, (1, 2), 3, 0))


@case("sparse18", ct.target.iOS18)
def _():
    mask = u((6, 10), 0, 2, np.int32)
    vals = f((int(mask.sum()),))
    op = lambda: mb.constexpr_sparse_to_dense(
        nonzero_data=vals, mask=mask.astype(types.np_uint1_dtype))
    return op, sparse_dense(mask, vals).astype(np.float64)


@case("lut_to_sparse_vector", ct.target.iOS18)
def _():
    mask = u((6, 8), 0, 2, np.int32)
    n = int(mask.sum())
    idx = u((n,), 0, 4, np.int32)
    lut = f((1, 1, 4, 2))

    def op():
        m, nz = mb.constexpr_lut_to_sparse(
            indices_mask=mask.astype(types.np_uint1_dtype),
            indices_nonzero_data=idx.astype(types.np_uint2_dtype),
            lut=lut, vector_axis=np.int32(0))
        return mb.constexpr_sparse_to_dense(nonzero_data=nz, mask=m)
    dense_idx = sparse_dense(mask, idx)
    values = lut_dense(dense_idx, lut, 0)
    return op, np.where(np.repeat(mask, 2, 0) != 0, values, 0).astype(np.float64)


@case("sparse_bss_int8", ct.target.iOS18)
def _():
    mask = u((6, 8), 0, 2, np.int32)
    n = int(mask.sum())
    q = u((n,), -128, 128, np.int32)
    s = (rng.random((3, 1)) * 0.1 + 0.01).astype(np.float32)
    off = u((3, 1), -4, 4, np.int32)

    def op():
        m, nz = mb.constexpr_sparse_blockwise_shift_scale(
            data_mask=mask.astype(types.np_uint1_dtype),
            nonzero_data=q.astype(np.int8), scale=s, offset=off.astype(np.int8))
        return mb.constexpr_sparse_to_dense(nonzero_data=nz, mask=m)
    dense = sparse_dense(mask, q)
    return op, np.where(mask != 0, blockwise(dense, s, off), 0)


def build_case(out, name):
    # One seed per case: a case's data does not depend on the others.
    global rng
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    fn, opset = CASES[name]
    op, ref = fn()
    shape = ref.shape

    @mb.program(input_specs=[mb.TensorSpec(shape=shape)], opset_version=opset)
    def prog(x):
        return mb.add(x=x, y=op())

    model = ct.convert(prog, convert_to="mlprogram",
                       minimum_deployment_target=opset,
                       compute_precision=ct.precision.FLOAT32)
    model.save(os.path.join(out, name + ".mlpackage"))
    x = f(shape)
    np.save(os.path.join(out, name + ".input.npy"), x)
    np.save(os.path.join(out, name + ".reference.npy"),
            (x.astype(np.float64) + ref).astype(np.float32))


# --- malformed variants ---------------------------------------------------


def model_path(out, name):
    return os.path.join(out, name + ".mlpackage", "Data", "com.apple.CoreML",
                        "model.mlmodel")


def edit_spec(out, name, edit):
    from coremltools.proto import Model_pb2
    path = model_path(out, name)
    spec = Model_pb2.Model()
    with open(path, "rb") as fh:
        spec.ParseFromString(fh.read())
    fn = spec.mlProgram.functions["main"]
    block = fn.block_specializations[fn.opset]
    op = next(o for o in block.operations if o.type.startswith("constexpr"))
    edit(op)
    with open(path, "wb") as fh:
        fh.write(spec.SerializeToString())


def param(op, key):
    if key in op.attributes:
        return op.attributes[key]
    return op.inputs[key].arguments[0].value


def weight_bin(out, name):
    return os.path.join(out, name + ".mlpackage", "Data", "com.apple.CoreML",
                        "weights", "weight.bin")


def blob_data_offset(out, name, key):
    offsets = []

    def grab(op):
        offsets.append(param(op, key).blobFileValue.offset)
    edit_spec(out, name, grab)
    with open(weight_bin(out, name), "rb") as fh:
        fh.seek(offsets[0] + 16)
        return struct.unpack("<Q", fh.read(8))[0]


def bad_axis(op):
    param(op, "axis").immediateValue.tensor.ints.values[0] = 1


def bad_lut_size(op):
    lut = param(op, "lut")
    lut.type.tensorType.dimensions[2].constant.size = 8
    vals = lut.immediateValue.tensor.floats.values
    vals.extend(list(vals))


def bad_shape(op):
    shape = param(op, "shape")
    shape.immediateValue.tensor.bytes.values = np.array(
        [8, 13], dtype=np.uint32).tobytes()


def flip_mask_bit(out, name):
    kinds = []
    edit_spec(out, name, lambda op: kinds.append(param(op, "mask").WhichOneof("value")))
    if kinds[0] == "immediateValue":
        def edit(op):
            t = param(op, "mask").immediateValue.tensor
            t.bytes.values = bytes([t.bytes.values[0] ^ 1]) + t.bytes.values[1:]
        edit_spec(out, name, edit)
        return
    off = blob_data_offset(out, name, "mask")
    with open(weight_bin(out, name), "r+b") as fh:
        fh.seek(off)
        b = fh.read(1)[0]
        fh.seek(off)
        fh.write(bytes([b ^ 1]))


def truncate(out, name):
    path = weight_bin(out, name)
    size = os.path.getsize(path)
    with open(path, "r+b") as fh:
        fh.truncate(size - 8)


def offset_past_end(out, name):
    def edit(op):
        param(op, "data").blobFileValue.offset = 1 << 20
    edit_spec(out, name, edit)


MALFORMED = {
    # name: (valid case, mutation of the spec or of the package)
    "bad_scale_axis": ("affine_int8_axis0", lambda o, n: edit_spec(o, n, bad_axis)),
    "bad_lut_size": ("lut18_2bit", lambda o, n: edit_spec(o, n, bad_lut_size)),
    "bad_indices_bytes": ("lut16_4bit", lambda o, n: edit_spec(o, n, bad_shape)),
    "bad_mask_count": ("sparse16", flip_mask_bit),
    "truncated_blob": ("bss_int4_blocks_offset", truncate),
    "offset_past_end": ("bss_int4_blocks_offset", offset_past_end),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--malformed", action="store_true")
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.malformed:
        for bad, (good, mutate) in MALFORMED.items():
            build_case(args.out, good)
            os.rename(os.path.join(args.out, good + ".mlpackage"),
                      os.path.join(args.out, bad + ".mlpackage"))
            mutate(args.out, bad)
        return
    names = args.only.split(",") if args.only else list(CASES)
    for name in names:
        build_case(args.out, name)
    with open(os.path.join(args.out, "cases.txt"), "w") as fh:
        fh.write("\n".join(names) + "\n")


if __name__ == "__main__":
    sys.exit(main())
