"""Writes MIL programs as protobuf text (for `protoc --encode` against
include/mlprog/Import/MIL/mil.proto), Core ML weight blob files (blob storage
v2) and .mlpackage directories, and computes numpy references alongside.

Each op method takes Vars (or immediates) and the numpy value its output must
have; the caller computes that value with numpy, so a program and its
reference are built together.
"""

import json
import os
import struct

import numpy as np

DATA_TYPES = {
    np.dtype("bool"): "BOOL",
    np.dtype("float16"): "FLOAT16",
    np.dtype("float32"): "FLOAT32",
    np.dtype("float64"): "FLOAT64",
    np.dtype("int8"): "INT8",
    np.dtype("int16"): "INT16",
    np.dtype("int32"): "INT32",
    np.dtype("int64"): "INT64",
    np.dtype("uint8"): "UINT8",
}
# Blob storage v2 dtype codes (Core ML MILBlob BlobDataType).
BLOB_DTYPES = {
    np.dtype("float16"): 1,
    np.dtype("float32"): 2,
    np.dtype("uint8"): 3,
    np.dtype("int8"): 4,
    np.dtype("int32"): 14,
}
BLOB_SENTINEL = 0xDEADBEEF


class S(str):
    """A string immediate (pad_type, mode, dtype ...), not a name."""


class Var:
    def __init__(self, name, value, shape=None):
        self.name = name
        self.value = np.asarray(value)
        # The declared shape (None extents are unknown); the value's shape by
        # default.
        self.shape = tuple(self.value.shape) if shape is None else tuple(shape)


def tensor_type(dtype, shape):
    """A tensor ValueType; a None extent is an unknown dimension."""
    dims = "".join(" dimensions { unknown { variadic: false } }" if d is None
                   else " dimensions { constant { size: %d } }" % d
                   for d in shape)
    return "tensorType { dataType: %s rank: %d%s }" % (
        DATA_TYPES[np.dtype(dtype)], len(shape), dims)


def _escape(data):
    return "".join("\\%03o" % b for b in data)


def immediate(value):
    """The text of a Value holding `value` inline."""
    if isinstance(value, S):
        return ('type { tensorType { dataType: STRING rank: 0 } } '
                'immediateValue { tensor { strings { values: "%s" } } }' % value)
    arr = np.asarray(value)
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    flat = arr.reshape(-1)
    if arr.dtype == np.float32:
        payload = "floats { values: [%s] }" % ", ".join(
            "%.9g" % v for v in flat)
    elif arr.dtype == np.int32:
        payload = "ints { values: [%s] }" % ", ".join(str(int(v)) for v in flat)
    elif arr.dtype == np.int64:
        payload = "longInts { values: [%s] }" % ", ".join(
            str(int(v)) for v in flat)
    elif arr.dtype == np.bool_:
        payload = "bools { values: [%s] }" % ", ".join(
            "true" if v else "false" for v in flat)
    else:
        payload = 'bytes { values: "%s" }' % _escape(arr.tobytes())
    return "type { %s } immediateValue { tensor { %s } }" % (
        tensor_type(arr.dtype, arr.shape), payload)


class BlobWriter:
    """Blob storage v2: a 64-byte header, then per blob a 64-byte metadata
    record and 64-byte aligned data."""

    def __init__(self):
        self.data = bytearray(64)
        self.count = 0

    def _align(self):
        self.data += bytes(-len(self.data) % 64)

    def add(self, arr):
        arr = np.ascontiguousarray(arr)
        self._align()
        meta = len(self.data)
        raw = arr.tobytes()
        self.data += struct.pack("<IIQQQ32x", BLOB_SENTINEL,
                                 BLOB_DTYPES[arr.dtype], len(raw), meta + 64, 0)
        self.data += raw
        self.count += 1
        return meta

    def bytes(self):
        self._align()
        out = bytearray(self.data)
        struct.pack_into("<II", out, 0, self.count, 2)
        return bytes(out)


class Program:
    """One function `main` with one block specialization."""

    def __init__(self, blob_min_elements=None,
                 blob_file="@model_path/weights/weight.bin", opset="CoreML5"):
        self.inputs = []
        self.ops = []
        self.blobs = BlobWriter()
        self.blob_min_elements = blob_min_elements
        self.blob_file = blob_file
        self.opset = opset
        self.count = 0

    def _name(self, prefix):
        self.count += 1
        return "%s_%d" % (prefix, self.count)

    def input(self, name, value, shape=None):
        var = Var(name, value, shape)
        self.inputs.append(var)
        return var

    def const(self, value, name=None, blob=None):
        if isinstance(value, S):
            var = Var(name or self._name("const"), np.zeros(()))
            self.ops.append(
                'operations { type: "const" outputs { name: "%s" type { '
                'tensorType { dataType: STRING rank: 0 } } } attributes { '
                'key: "val" value { %s } } }' % (var.name, immediate(value)))
            return var
        arr = np.asarray(value)
        var = Var(name or self._name("const"), arr)
        if blob is None:
            blob = (self.blob_min_elements is not None
                    and arr.size >= self.blob_min_elements
                    and arr.dtype in BLOB_DTYPES)
        if blob:
            val = 'type { %s } blobFileValue { fileName: "%s" offset: %d }' % (
                tensor_type(arr.dtype, arr.shape), self.blob_file,
                self.blobs.add(arr))
        else:
            val = immediate(arr)
        self.ops.append(
            'operations { type: "const" outputs { name: "%s" type { %s } } '
            'attributes { key: "val" value { %s } } }' %
            (var.name, tensor_type(arr.dtype, arr.shape), val))
        return var

    def op(self, op_type, result, name=None, **args):
        """Appends `op_type` with named arguments; returns its output, whose
        value (and declared type) is `result`. Argument values: a Var (bound
        by name), a list of Vars (variadic), an S string or a numpy/python
        value (bound as an immediate Value)."""
        return self.multi_op(op_type, [result], name=name, **args)[0]

    def multi_op(self, op_type, results, name=None, shapes=None, **args):
        """`op` with one output per entry of `results` (named `name`_<i>);
        `shapes` optionally declares their shapes (None extents unknown)."""
        base = name or self._name(op_type)
        shapes = shapes or [None] * len(results)
        outs = [Var(base if len(results) == 1 else "%s_%d" % (base, i), r,
                    shape)
                for i, (r, shape) in enumerate(zip(results, shapes))]
        bindings = []
        for key, arg in args.items():
            if isinstance(arg, Var):
                items = 'arguments { name: "%s" }' % arg.name
            elif isinstance(arg, list) and arg and isinstance(arg[0], Var):
                items = " ".join('arguments { name: "%s" }' % a.name
                                 for a in arg)
            else:
                items = "arguments { value { %s } }" % immediate(arg)
            bindings.append('inputs { key: "%s" value { %s } }' % (key, items))
        decls = " ".join('outputs { name: "%s" type { %s } }' %
                         (v.name, tensor_type(v.value.dtype, v.shape))
                         for v in outs)
        self.ops.append('operations { type: "%s" %s %s }' %
                        (op_type, " ".join(bindings), decls))
        return outs

    def program_text(self, outputs):
        inputs = "".join(
            '\n    inputs { name: "%s" type { %s } }' %
            (v.name, tensor_type(v.value.dtype, v.shape))
            for v in self.inputs)
        body = "".join("\n        " + op for op in self.ops)
        outs = "".join('\n        outputs: "%s"' % v.name for v in outputs)
        return ('version: 1\nfunctions {\n  key: "main"\n  value {%s\n'
                '    opset: "%s"\n    block_specializations {\n'
                '      key: "%s"\n      value {%s%s\n      }\n    }\n  }\n}\n'
                % (inputs, self.opset, self.opset, outs, body))

    def model_text(self, outputs):
        """A Core ML Model (specificationVersion 7) holding the program."""
        text = self.program_text(outputs)
        return "specificationVersion: 7\nmlProgram {\n%s}\n" % text

    def write_weights(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(self.blobs.bytes())


def write_package(directory, model_text_, weights):
    """Lays out an .mlpackage: Manifest.json, Data/com.apple.CoreML/
    model.pbtxt (to be encoded into model.mlmodel) and weights/weight.bin."""
    data = os.path.join(directory, "Data", "com.apple.CoreML")
    os.makedirs(os.path.join(data, "weights"), exist_ok=True)
    manifest = {
        "fileFormatVersion": "1.0.0",
        "itemInfoEntries": {
            "4C5A4E9B-0000-4000-8000-000000000001": {
                "author": "com.apple.CoreML",
                "description": "CoreML Model Specification",
                "name": "model.mlmodel",
                "path": "com.apple.CoreML/model.mlmodel",
            },
            "4C5A4E9B-0000-4000-8000-000000000002": {
                "author": "com.apple.CoreML",
                "description": "CoreML Model Weights",
                "name": "weights",
                "path": "com.apple.CoreML/weights",
            },
        },
        "rootModelIdentifier": "4C5A4E9B-0000-4000-8000-000000000001",
    }
    with open(os.path.join(directory, "Manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    with open(os.path.join(data, "model.pbtxt"), "w") as f:
        f.write(model_text_)
    with open(os.path.join(data, "weights", "weight.bin"), "wb") as f:
        f.write(weights)
