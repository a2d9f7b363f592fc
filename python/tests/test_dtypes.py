"""Element types at the boundary: what an ONNX model declares is the numpy
dtype a call returns (docs/running.md, "Element types at the boundary")."""

import importlib.util
import os

import numpy as np
import pytest

import mlprog

pytestmark = pytest.mark.skipif(not mlprog.HAVE_ONNX,
                                reason="built without the ONNX importer")

HAVE_ML_DTYPES = importlib.util.find_spec("ml_dtypes") is not None


def compile_onnx(op, elem_type, num_inputs=1, shape=(4,)):
    """One `op` node over `num_inputs` inputs of `elem_type` and `shape`."""
    onnx = pytest.importorskip("onnx")
    from onnx import helper
    names = ["x%d" % i for i in range(num_inputs)]
    graph = helper.make_graph(
        [helper.make_node(op, names, ["y"], name="n")], "g",
        [helper.make_tensor_value_info(n, elem_type, list(shape))
         for n in names],
        [helper.make_tensor_value_info("y", elem_type, list(shape))])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 14)])
    return mlprog.compile(mlprog.import_onnx(model.SerializeToString(),
                                             name=op + ".onnx"))


def test_uint8_output_is_uint8():
    from onnx import TensorProto
    exe = compile_onnx("Add", TensorProto.UINT8, num_inputs=2)
    a = np.array([100, 200, 255, 0], np.uint8)
    b = np.array([100, 0, 1, 0], np.uint8)
    y = exe.main(a, b)
    assert y.dtype == np.uint8
    np.testing.assert_array_equal(y, a + b)  # 200 stays 200; 256 wraps
    sig = exe.main.signature
    assert sig["results"][0]["dtype"] == "uint8"
    assert sig["inputs"][0]["type"] == "tensor<4xui8>"


def test_int8_array_for_uint8_input_is_refused():
    from onnx import TensorProto
    exe = compile_onnx("Identity", TensorProto.UINT8)
    with pytest.raises(mlprog.Error,
                       match=r"input 0: expected tensor<4xui8>, got i8 array"):
        exe.main(np.zeros(4, np.int8))


@pytest.mark.parametrize("elem_type, dtype", [
    ("UINT16", np.uint16), ("UINT32", np.uint32), ("UINT64", np.uint64),
    ("INT8", np.int8), ("BOOL", np.bool_), ("FLOAT16", np.float16)])
def test_declared_dtype_round_trips(elem_type, dtype):
    from onnx import TensorProto
    exe = compile_onnx("Identity", getattr(TensorProto, elem_type))
    x = np.array([1, 0, 1, 1]).astype(dtype)
    if dtype in (np.uint16, np.uint32, np.uint64):
        x[0] = np.iinfo(dtype).max  # negative if read back signed
    y = exe.main(x)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y, x)


@pytest.mark.skipif(not HAVE_ML_DTYPES, reason="needs ml_dtypes")
def test_bfloat16_round_trips_through_ml_dtypes():
    import ml_dtypes
    from onnx import TensorProto
    exe = compile_onnx("Identity", TensorProto.BFLOAT16)
    x = np.array([1.5, -2.0, 0.0, 3.0], ml_dtypes.bfloat16)
    y = exe.main(x)
    assert y.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(y.view(np.uint16), x.view(np.uint16))
    assert exe.main.signature["results"][0]["dtype"] == "bfloat16"
    torch = pytest.importorskip("torch")
    t = exe.main(torch.tensor([1.5, -2.0, 0.0, 3.0], dtype=torch.bfloat16))
    np.testing.assert_array_equal(t.view(np.uint16), x.view(np.uint16))


@pytest.mark.skipif(HAVE_ML_DTYPES, reason="ml_dtypes is installed")
def test_bfloat16_result_without_ml_dtypes_is_an_error():
    from onnx import TensorProto
    exe = compile_onnx("Identity", TensorProto.BFLOAT16)
    # Bit patterns as a 2-byte void array go in; the result cannot come out.
    bits = np.array([0x3fc0, 0xc000, 0, 0x4040], np.uint16).view("V2")
    with pytest.raises(mlprog.Error,
                       match="result 0 has element type bf16, which numpy "
                             "holds only with the ml_dtypes package"):
        exe.main(bits)
    torch = pytest.importorskip("torch")
    with pytest.raises(mlprog.Error, match="input 0: bfloat16 tensors need "
                                           "the ml_dtypes package"):
        exe.main(torch.zeros(4, dtype=torch.bfloat16))


@pytest.mark.skipif(not HAVE_ML_DTYPES, reason="needs ml_dtypes")
@pytest.mark.parametrize("name,elem_type,values", [
    ("float8_e4m3fn", 17, [1.5, -2.0, 0.0, 448.0]),
    ("float8_e5m2fnuz", 20, [1.5, -2.0, 0.0, 57344.0]),
    ("float8_e5m2", 19, [1.5, -2.0, -0.0, float("inf")]),
    ("float8_e8m0fnu", 24, [1.0, 2.0, 0.25, 2.0 ** 100]),
    ("float4_e2m1fn", 23, [1.5, -2.0, 0.5, 6.0]),
    ("uint4", 21, [15, 0, 7, 8]),
    ("int4", 22, [-8, 7, -1, 0]),
    ("uint2", 25, [3, 0, 1, 2]),
    ("int2", 26, [-2, 1, -1, 0]),
])
def test_narrow_types_round_trip_through_ml_dtypes(name, elem_type, values):
    # The ONNX 8-, 4- and 2-bit types go in and come back as the ml_dtypes
    # arrays onnx itself uses, bit for bit; uint4/uint2 are marked unsigned.
    import ml_dtypes
    onnx = pytest.importorskip("onnx")
    from onnx import helper
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"], name="n")], "g",
        [helper.make_tensor_value_info("x", elem_type, [4])],
        [helper.make_tensor_value_info("y", elem_type, [4])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 23)])
    model.ir_version = 11
    exe = mlprog.compile(mlprog.import_onnx(model.SerializeToString(),
                                            name=name + ".onnx"))
    dtype = np.dtype(getattr(ml_dtypes, name))
    x = np.array(values, dtype)
    y = exe.main(x)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y.view(np.uint8), x.view(np.uint8))
    assert exe.main.signature["results"][0]["dtype"] == name


_NUMPY2_SCRIPT = """
import numpy as np, mlprog
assert int(np.__version__.split(".")[0]) >= 2, np.__version__
exe = mlprog.compile(mlprog.parse('''
ml_program.func @main(%a: tensor<2x3xf32>, %b: tensor<3xi64>, %c: tensor<2xf16>)
    -> (tensor<2x3xf32>, tensor<3xi64>, tensor<2xf16>) {
  ml_program.return %a, %b, %c : tensor<2x3xf32>, tensor<3xi64>, tensor<2xf16>
}'''))
a = np.arange(6, dtype=np.float32).reshape(2, 3)
b = np.array([7, -1, 1 << 40])
c = np.array([0.5, -2], dtype=np.float16)
for got, want in zip(exe.main(a, b, c), (a, b, c)):
    assert got.dtype == want.dtype and got.strides == want.strides, (got.dtype, got.strides)
    assert np.array_equal(got, want), got
print("ok")
"""


def test_numpy2_arrays_cross_the_boundary(repo_root):
    """Under numpy 2 (the project's .venv) dtypes and strides are read right:
    the module's pybind11 predates numpy 2, whose dtype struct differs."""
    import subprocess
    import sys
    python = os.path.join(repo_root, ".venv", "bin", "python")
    if not os.path.exists(python):
        pytest.skip("no .venv (scripts/setup-venv.sh makes it): numpy 2 untested")
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(mlprog.__file__)))
    env = dict(os.environ, PYTHONPATH=package_dir)
    run = subprocess.run([python, "-c", _NUMPY2_SCRIPT], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
