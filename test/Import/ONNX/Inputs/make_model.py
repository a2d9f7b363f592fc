"""Writes a small ONNX model for the importer tests.

usage: make_model.py NAME OUT.onnx   (NAME: see MODELS below)
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def add_bcast_dynamic():
    # [N, 3, 4] + [4] with a symbolic batch dim.
    return model([helper.make_node("Add", ["x", "b"], ["y"], name="add0")],
                 [helper.make_tensor_value_info("x", F, ["N", 3, 4]),
                  helper.make_tensor_value_info("b", F, [4])],
                 [helper.make_tensor_value_info("y", F, ["N", 3, 4])])


def matmul_dynamic():
    # [N, 2, 3] x [3, 5]: broadcast of a 2-D operand over a dynamic batch.
    w = numpy_helper.from_array(np.ones((3, 5), np.float32), "w")
    return model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
                 [helper.make_tensor_value_info("x", F, ["N", 2, 3])],
                 [helper.make_tensor_value_info("y", F, ["N", 2, 5])], [w])


def channel_shuffle_dynamic():
    # shufflenet's channel shuffle on [N, 4, H, W] with symbolic N, H, W:
    # Reshape to [n, 2, 2, h, w] (n, h, w from Shape/Gather, the groups
    # constant), Transpose the two channel axes, Reshape back to [n, 4, h, w].
    i64 = TensorProto.INT64
    def const(name, values):
        return helper.make_node("Constant", [], [name], name=name,
                                value=helper.make_tensor(name + "_v", i64,
                                                         [len(values)], values))
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             const("i0", [0]), const("i2", [2]), const("i3", [3]),
             const("two", [2]), const("four", [4]),
             helper.make_node("Gather", ["s", "i0"], ["n"], name="n"),
             helper.make_node("Gather", ["s", "i2"], ["h"], name="h"),
             helper.make_node("Gather", ["s", "i3"], ["w"], name="w"),
             helper.make_node("Concat", ["n", "two", "two", "h", "w"], ["s5"],
                              name="s5", axis=0),
             helper.make_node("Reshape", ["x", "s5"], ["x5"], name="split"),
             helper.make_node("Transpose", ["x5"], ["t5"], name="shuffle",
                              perm=[0, 2, 1, 3, 4]),
             helper.make_node("Concat", ["n", "four", "h", "w"], ["s4"],
                              name="s4", axis=0),
             helper.make_node("Reshape", ["t5", "s4"], ["y"], name="merge")]
    return model(nodes,
                 [helper.make_tensor_value_info("x", F, ["N", 4, "H", "W"])],
                 [helper.make_tensor_value_info("y", F, ["N", 4, "H", "W"])])


def fold_chain():
    # torch's padding and `if x.numel() != 0` exports on [N, 4]: a Reshape
    # shape from Concat(Cast(int32 constant), Sub(rank-0, rank-1)) and an If
    # on Cast(Not(Equal(Size(x), 0))) whose branches differ in rank.
    i64, i32, B = TensorProto.INT64, TensorProto.INT32, TensorProto.BOOL
    def const(name, dtype, dims, values):
        return helper.make_node("Constant", [], [name], name=name,
                                value=helper.make_tensor(name + "_v", dtype,
                                                         dims, values))
    then_branch = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape")],
        "then", [], [helper.make_tensor_value_info("r", F, ["A", "B"])])
    else_branch = helper.make_graph(
        [const("axes", i64, [1], [0]),
         helper.make_node("Unsqueeze", ["x", "axes"], ["u"], name="unsq")],
        "else", [], [helper.make_tensor_value_info("u", F, [1, "N", 4])])
    nodes = [const("two32", i32, [1], [2]), const("six", i64, [], [6]),
             const("two", i64, [1], [2]), const("zero", i64, [], [0]),
             helper.make_node("Cast", ["two32"], ["rows"], name="cast", to=i64),
             helper.make_node("Sub", ["six", "two"], ["cols"], name="sub"),
             helper.make_node("Concat", ["rows", "cols"], ["shape"],
                              name="concat", axis=0),
             helper.make_node("Size", ["x"], ["n"], name="size"),
             helper.make_node("Equal", ["n", "zero"], ["empty"], name="eq"),
             helper.make_node("Not", ["empty"], ["some"], name="not"),
             helper.make_node("Cast", ["some"], ["cond"], name="cond", to=B),
             helper.make_node("If", ["cond"], ["y"], name="if",
                              then_branch=then_branch,
                              else_branch=else_branch)]
    return model(nodes, [helper.make_tensor_value_info("x", F, ["N", 4])],
                 [helper.make_tensor_value_info("y", F, ["A", "B"])])


def sample_rate_branch():
    # silero-vad's `if sr == 16000` on a scalar int64 input: [3] -> [3].
    i64 = TensorProto.INT64
    then_branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["a"], name="same")], "then", [],
        [helper.make_tensor_value_info("a", F, [3])])
    else_branch = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["n"], name="neg")], "else", [],
        [helper.make_tensor_value_info("n", F, [3])])
    nodes = [helper.make_node("Constant", [], ["rate"], name="rate",
                              value=helper.make_tensor("r", i64, [], [16000])),
             helper.make_node("Equal", ["sr", "rate"], ["is16k"], name="eq"),
             helper.make_node("If", ["is16k"], ["y"], name="if",
                              then_branch=then_branch,
                              else_branch=else_branch)]
    return model(nodes, [helper.make_tensor_value_info("x", F, [3]),
                         helper.make_tensor_value_info("sr", i64, [])],
                 [helper.make_tensor_value_info("y", F, [3])])


def initializers():
    # Names that are not MLIR identifiers; typed (non-raw) data; int64 and
    # float16 raw data; an initializer read by Reshape as its shape.
    w = helper.make_tensor("fc/weight:0", F, [2, 3], [1, 2, 3, 4, 5, 6])
    b = numpy_helper.from_array(np.array([0.5, -0.5], np.float32), "0bias")
    shape = numpy_helper.from_array(np.array([0, -1], np.int64), "shape")
    h = numpy_helper.from_array(np.array([1.5, 2.0], np.float16), "half")
    nodes = [helper.make_node("Gemm", ["x", "fc/weight:0", "0bias"], ["g"],
                              name="fc", transB=1),
             helper.make_node("Reshape", ["g", "shape"], ["y"], name="flat"),
             helper.make_node("Identity", ["half"], ["h"], name="id")]
    return model(nodes, [helper.make_tensor_value_info("x", F, [4, 3])],
                 [helper.make_tensor_value_info("y", F, [4, 2]),
                  helper.make_tensor_value_info("h", TensorProto.FLOAT16, [2])],
                 [w, b, shape, h])


def unsupported_op():
    # An op of a made-up domain: no handler will ever exist for it.
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="n1"),
             helper.make_node("Frobnicate", ["a"], ["y"], name="n3",
                              domain="com.example")]
    m = model(nodes, [helper.make_tensor_value_info("x", F, [2, 2])],
              [helper.make_tensor_value_info("y", F, [])])
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    return m


def unnamed_node_error():
    # Conv with a non-constant input of dynamic channel count: a builder
    # error whose location falls back to "<op_type>#<index>".
    nodes = [helper.make_node("Relu", ["x"], ["a"]),
             helper.make_node("Conv", ["a", "w"], ["y"])]
    return model(nodes, [helper.make_tensor_value_info("x", F, [1, "C", 4, 4]),
                         helper.make_tensor_value_info("w", F, [1, 1, 3, 3])],
                 [helper.make_tensor_value_info("y", F, [1, 1, 2, 2])])


def external_data():
    w = TensorProto(name="w", data_type=F, dims=[2])
    w.data_location = TensorProto.EXTERNAL
    w.external_data.add(key="location", value="weights.bin")
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [helper.make_tensor_value_info("x", F, [2])],
                 [helper.make_tensor_value_info("y", F, [2])], [w])


def softmax(opset):
    return lambda: model(
        [helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)],
        [helper.make_tensor_value_info("x", F, [2, 3, 4])],
        [helper.make_tensor_value_info("y", F, [2, 3, 4])], opset=opset)


def maxpool_ceil():
    node = helper.make_node("MaxPool", ["x"], ["y"], name="pool",
                            kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    return model([node], [helper.make_tensor_value_info("x", F, [1, 2, 6, 6])],
                 [helper.make_tensor_value_info("y", F, [1, 2, 3, 3])])


def constant_dropout():
    c = helper.make_node("Constant", [], ["c"], name="c",
                         value=helper.make_tensor("v", F, [2], [1.0, 2.0]))
    nodes = [c, helper.make_node("Mul", ["x", "c"], ["m"], name="mul"),
             helper.make_node("Dropout", ["m"], ["y"], name="drop")]
    return model(nodes, [helper.make_tensor_value_info("x", F, [3, 2])],
                 [helper.make_tensor_value_info("y", F, [3, 2])])


def boundary_dtypes():
    # Every element type kind at the graph boundary: uint8 (an Add that
    # wraps past 255), uint16 and int8 passed through, float16, bfloat16,
    # bool.
    vi = helper.make_tensor_value_info
    U8, U16, I8 = TensorProto.UINT8, TensorProto.UINT16, TensorProto.INT8
    F16, BF16, B = TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.BOOL
    return model([helper.make_node("Add", ["a", "b"], ["sum"], name="add"),
                  helper.make_node("Identity", ["w"], ["w_out"], name="w"),
                  helper.make_node("Identity", ["s"], ["s_out"], name="s"),
                  helper.make_node("Identity", ["h"], ["h_out"], name="h"),
                  helper.make_node("Identity", ["g"], ["g_out"], name="g"),
                  helper.make_node("Not", ["p"], ["p_out"], name="not")],
                 [vi("a", U8, [4]), vi("b", U8, [4]), vi("w", U16, [2]),
                  vi("s", I8, [2]), vi("h", F16, [2]), vi("g", BF16, [2]),
                  vi("p", B, [2])],
                 [vi("sum", U8, [4]), vi("w_out", U16, [2]),
                  vi("s_out", I8, [2]), vi("h_out", F16, [2]),
                  vi("g_out", BF16, [2]), vi("p_out", B, [2])])


def unsorted():
    # Nodes listed out of topological order (the Relu feeding Neg comes
    # last); the importer sorts them, as onnxruntime does.
    nodes = [helper.make_node("Neg", ["a"], ["y"], name="neg"),
             helper.make_node("Add", ["x", "x"], ["s"], name="add"),
             helper.make_node("Relu", ["s"], ["a"], name="relu")]
    return model(nodes, [helper.make_tensor_value_info("x", F, [2])],
                 [helper.make_tensor_value_info("y", F, [2])])


def cycle():
    # a = Relu(b), b = Neg(a): no order exists.
    nodes = [helper.make_node("Relu", ["b"], ["a"], name="relu"),
             helper.make_node("Neg", ["a"], ["b"], name="neg"),
             helper.make_node("Add", ["x", "b"], ["y"], name="add")]
    return model(nodes, [helper.make_tensor_value_info("x", F, [2])],
                 [helper.make_tensor_value_info("y", F, [2])])


def ir10_opset18():
    # What torch 2.x / onnx >= 1.15 write: IR version 10, opset 18, with an
    # op whose schema changed at 18 (ReduceMean takes axes as an input), so
    # libonnx 1.12 must neither refuse the IR version nor check the node
    # against ReduceMean-13.
    axes = numpy_helper.from_array(np.array([1], np.int64), "axes")
    nodes = [helper.make_node("ReduceMean", ["x", "axes"], ["m"], name="mean",
                              keepdims=0),
             helper.make_node("Relu", ["m"], ["y"], name="relu")]
    m = model(nodes, [helper.make_tensor_value_info("x", F, [2, 3])],
              [helper.make_tensor_value_info("y", F, [2])], [axes], opset=18)
    m.ir_version = 10
    return m


def float6_input():
    # A FLOAT6E2M3 (TensorProto.DataType 27, newer than libonnx 1.12 and
    # not supported; the 8-, 4- and 2-bit types 17-26 are, see
    # narrow-types.test) input: refused by name.
    x = helper.make_tensor_value_info("x", F, [2])
    x.type.tensor_type.elem_type = 27
    m = model([helper.make_node("Cast", ["x"], ["y"], name="cast", to=F)],
              [x], [helper.make_tensor_value_info("y", F, [2])], opset=19)
    m.ir_version = 12
    return m


def ml_domain_newer():
    # ai.onnx.ml's LabelEncoder-4 (default_tensor, newer than libonnx 1.12
    # knows) beside default-domain ops: an unsupported op, not a checker
    # failure.
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("LabelEncoder", ["r"], ["y"], name="encode",
                              domain="ai.onnx.ml", keys_floats=[1.0],
                              values_floats=[2.0],
                              default_tensor=helper.make_tensor(
                                  "d", F, [1], [0.0]))]
    m = model(nodes, [helper.make_tensor_value_info("x", F, [2])],
              [helper.make_tensor_value_info("y", F, [2])], opset=21)
    m.opset_import.append(helper.make_opsetid("ai.onnx.ml", 4))
    m.ir_version = 10
    return m


MODELS = {
    "boundary_dtypes": boundary_dtypes,
    "add_bcast_dynamic": add_bcast_dynamic,
    "matmul_dynamic": matmul_dynamic,
    "channel_shuffle_dynamic": channel_shuffle_dynamic,
    "fold_chain": fold_chain,
    "sample_rate_branch": sample_rate_branch,
    "initializers": initializers,
    "unsupported_op": unsupported_op,
    "unnamed_node_error": unnamed_node_error,
    "external_data": external_data,
    "softmax_opset11": softmax(11),
    "softmax_opset13": softmax(13),
    "maxpool_ceil": maxpool_ceil,
    "constant_dropout": constant_dropout,
    "unsorted": unsorted,
    "cycle": cycle,
    "ir10_opset18": ir10_opset18,
    "float6_input": float6_input,
    "ml_domain_newer": ml_domain_newer,
}

if __name__ == "__main__":
    m = MODELS[sys.argv[1]]()
    with open(sys.argv[2], "wb") as f:
        f.write(m.SerializeToString())

