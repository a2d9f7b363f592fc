"""Modules from MLIR text: printing, saving, pipelines, executables."""

import numpy as np
import pytest

import mlprog

ADD = """
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = arith.addf %a, %b : tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""

PROGRAM = """
ml_program.global private @scale(dense<[1.0, 2.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
ml_program.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %s = ml_program.global_load_const @scale : tensor<3xf32>
  %y = arith.mulf %x, %s : tensor<3xf32>
  %z = arith.subf %y, %x : tensor<3xf32>
  ml_program.return %y, %z : tensor<3xf32>, tensor<3xf32>
}
ml_program.func @scaled_sum(%x: tensor<3xf32>, %k: f32) -> f32 {
  %s = ml_program.global_load_const @scale : tensor<3xf32>
  %init = tensor.empty() : tensor<f32>
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %p = arith.mulf %x, %s : tensor<3xf32>
  %r = linalg.reduce ins(%p : tensor<3xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%in: f32, %out: f32) {
      %t = arith.addf %in, %out : f32
      linalg.yield %t : f32
    }
  %e = tensor.extract %r[] : tensor<f32>
  %m = arith.mulf %e, %k : f32
  ml_program.return %m : f32
}
ml_program.func @count(%x: tensor<2x2xi64>) -> tensor<2x2xi64> {
  %one = arith.constant dense<1> : tensor<2x2xi64>
  %y = arith.addi %x, %one : tensor<2x2xi64>
  ml_program.return %y : tensor<2x2xi64>
}
"""


def test_parse_print_save_load(tmp_path):
    module = mlprog.parse(PROGRAM, "program.mlir")
    assert module.functions == ["main", "scaled_sum", "count"]
    text = str(module)
    assert "ml_program.global private @scale" in text
    assert "loc(" in module.to_string(debug_info=True)
    assert '"ml_program.func"' in module.to_string(generic=True)
    module.save(tmp_path / "p.mlir")
    module.save(tmp_path / "p.mlirbc")
    assert str(mlprog.load(tmp_path / "p.mlir")) == text
    assert str(mlprog.load(tmp_path / "p.mlirbc")) == text
    assert (tmp_path / "p.mlirbc").read_bytes()[:4] == b"ML\xefR"


def test_save_writes_weights_beside_the_ir(tmp_path, monkeypatch):
    weights = np.arange(512, dtype=np.float32).reshape(2, 256)
    text = ("ml_program.global private @w(dense<%s> : tensor<2x256xf32>) : "
            "tensor<2x256xf32>\n"
            "ml_program.global private @b(dense<[1.0, 2.0]> : tensor<2xf32>) "
            ": tensor<2xf32>\n"
            "ml_program.func @main() -> (tensor<2x256xf32>, tensor<2xf32>) {\n"
            "  %%w = ml_program.global_load_const @w : tensor<2x256xf32>\n"
            "  %%b = ml_program.global_load_const @b : tensor<2xf32>\n"
            "  ml_program.return %%w, %%b : tensor<2x256xf32>, tensor<2xf32>\n"
            "}\n" % np.array2string(weights, separator=",",
                                     threshold=10**6).replace("\n", ""))
    module = mlprog.parse(text)
    folder = tmp_path / "out"
    folder.mkdir()
    module.save(folder / "m.mlir")
    saved = (folder / "m.mlir").read_text()
    # The 2 KiB weight went to the bundle, the 8-byte bias stayed.
    assert ('external_storage<file = "m.safetensors", key = "w">' in saved)
    assert "dense<[1.000000e+00, 2.000000e+00]>" in saved
    assert (folder / "m.safetensors").stat().st_size > weights.nbytes
    # The module itself keeps its weights.
    assert "external_storage" not in str(module)
    # load() reads the bundle from the IR's folder, from any directory.
    monkeypatch.chdir(tmp_path)
    w, b = mlprog.compile(mlprog.load(folder / "m.mlir"))()
    np.testing.assert_array_equal(w, weights)
    np.testing.assert_array_equal(b, [1.0, 2.0])
    module.save(folder / "inline.mlir", weights_threshold=None)
    assert "external_storage" not in (folder / "inline.mlir").read_text()
    assert not (folder / "inline.safetensors").exists()
    with pytest.raises(ValueError):
        module.save(folder / "bad.mlir", weights_threshold=-1)


def test_compiler_runtime_helpers_resolve_in_a_fresh_process():
    """f64 -> f16 truncation is a libgcc call (__truncdfhf2) on x86 without
    AVX512-FP16. A Python extension does not put libgcc_s in the global
    scope, so the JIT could not find it unless an earlier model had loaded
    the OpenMP runtime (coremltools' fp16 resize tests failed that way).
    A fresh process, so nothing else has loaded it."""
    import subprocess
    import sys
    program = "\n".join([
        "import mlprog, numpy as np",
        "m = mlprog.parse('func.func @main(%x: tensor<3xf64>) -> "
        "tensor<3xf16> { %y = arith.truncf %x : tensor<3xf64> to "
        "tensor<3xf16> return %y : tensor<3xf16> }')",
        "y = mlprog.compile(m, opt_level=0)(np.array([1.5, -2.25, 65504.0]))",
        "print(y.dtype, y.tolist())"])
    result = subprocess.run([sys.executable, "-c", program],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "float16 [1.5, -2.25, 65504.0]"


def test_functions_results_and_scalars():
    exe = mlprog.compile(mlprog.parse(PROGRAM))
    assert exe.functions == ["main", "scaled_sum", "count"]
    x = np.array([1.0, -2.0, 0.5], np.float32)
    y, z = exe.main(x)
    np.testing.assert_array_equal(y, x * [1, 2, 3])
    np.testing.assert_array_equal(z, x * [1, 2, 3] - x)
    # A Python float binds to the f32 scalar; the f32 result is a 0-d array.
    s = exe.scaled_sum(x, 2.0)
    assert s.shape == () and s.dtype == np.float32
    assert float(s) == pytest.approx(2.0 * (1.0 - 4.0 + 1.5))
    c = exe["count"](np.arange(4, dtype=np.int64).reshape(2, 2))
    assert c.dtype == np.int64
    np.testing.assert_array_equal(c, [[1, 2], [3, 4]])
    # No @main among several functions would need a name; here @main wins.
    np.testing.assert_array_equal(exe(x)[0], y)


def test_dynamic_shapes_and_noncontiguous_inputs():
    exe = mlprog.compile(mlprog.parse(ADD))
    a = np.arange(10, dtype=np.float32)[::2]   # strided view
    b = np.ones(5, np.float32)
    np.testing.assert_array_equal(exe.add(a, b), a + 1)
    np.testing.assert_array_equal(exe(a[:0], b[:0]), np.zeros(0, np.float32))
    assert exe.add.signature["type"] == \
        "(tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>"


IN_PLACE = """
func.func @double(%a: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.add ins(%a, %a : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


def test_inputs_of_any_layout_are_never_written():
    # Contiguous arrays are bound in place, others (a view one byte into a
    # buffer, strided views) copied; whichever way, the op that writes its
    # input's tensor works on a buffer of its own, never on the caller's
    # array. (That no copy is made is checked by the C++ unit test
    # JitRunnerTest.BorrowedInputsAndResultsWithoutCopies.)
    exe = mlprog.compile(mlprog.parse(IN_PLACE))
    a = np.arange(1000, dtype=np.float32)
    read_only = a.copy()
    read_only.flags.writeable = False
    raw = np.zeros(4 * 1000 + 1, np.uint8)
    unaligned = raw[1:].view(np.float32)
    unaligned[:] = a
    for x in (a, read_only, unaligned, a[1:], a[::3]):
        before = x.copy()
        out = exe.double(x)
        np.testing.assert_array_equal(out, 2 * before)
        np.testing.assert_array_equal(x, before)
        assert not np.shares_memory(out, x)
    # Results own their buffers: they outlive the executable.
    out = exe.double(a)
    del exe
    np.testing.assert_array_equal(out, 2 * a)


def test_torch_tensors_are_accepted():
    torch = pytest.importorskip("torch")
    exe = mlprog.compile(mlprog.parse(ADD))
    a = torch.arange(4, dtype=torch.float32, requires_grad=True)
    out = exe.add(a, torch.ones(4))
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, [1, 2, 3, 4])


def test_call_errors():
    exe = mlprog.compile(mlprog.parse(ADD))
    with pytest.raises(mlprog.Error, match=r"input 0: expected tensor<\?xf32>, "
                       r"got f64 array of shape \(3,\)"):
        exe.add(np.ones(3), np.ones(3, np.float32))
    with pytest.raises(mlprog.Error, match="expects 2 input"):
        exe.add(np.ones(3, np.float32))
    with pytest.raises(mlprog.Error, match="unsupported array dtype"):
        exe.add(np.ones(3, np.complex64), np.ones(3, np.float32))
    with pytest.raises(AttributeError, match="no function @nope"):
        exe.nope
    with pytest.raises(KeyError):
        exe["nope"]


def test_parse_and_pipeline_errors_are_located():
    with pytest.raises(mlprog.Error) as info:
        mlprog.parse("func.func @f() {\n  %0 = arith.constant 1 : f32\n}",
                     "bad.mlir")
    assert str(info.value).startswith("bad.mlir:2:")
    module = mlprog.parse(ADD)
    before = str(module)
    with pytest.raises(mlprog.Error, match="invalid pass pipeline"):
        module.run_pipeline("no-such-pass")
    # A pass that fails leaves the module as it was.
    with pytest.raises(mlprog.Error, match="import contract violated"):
        module.run_pipeline("mlprog-lower-to-cpu,mlprog-verify-import-contract")
    assert str(module) == before


def test_deep_nesting_is_refused_before_parsing():
    # 8,543 nested '[' overflowed the stack of MLIR's recursive parser
    # (found by fuzz-mlir); the package refuses input nested deeper than 256.
    text = "ml_program.global private @g(" + "[" * 300 + "] : i32\n"
    with pytest.raises(mlprog.Error) as info:
        mlprog.parse(text, "deep.mlir")
    assert str(info.value).startswith("deep.mlir:1:285: error: brackets nest "
                                      "deeper than 256 levels")
    # At the limit the text reaches the parser, which reports its own error.
    text = "ml_program.global private @g(" + "[" * 255 + "] : i32\n"
    with pytest.raises(mlprog.Error) as info:
        mlprog.parse(text, "deep.mlir")
    assert "brackets nest" not in str(info.value)


def test_compile_errors():
    module = mlprog.parse(ADD)
    with pytest.raises(mlprog.Error, match="unsupported target 'gpu'"):
        mlprog.compile(module, target="gpu")
    with pytest.raises(mlprog.Error, match="opt_level"):
        mlprog.compile(module, opt_level=7)
    with pytest.raises(TypeError):
        mlprog.compile(str(module))


def test_compile_progress_and_timing(capfd):
    module = mlprog.parse(ADD)
    exe = mlprog.compile(module, opt_level=1, progress=True, timing=True)
    err = capfd.readouterr().err
    assert "mlprog.compile: lowering (--mlprog-lower-to-cpu, -O1)... " in err
    assert "mlprog.compile: JIT compilation (LLVM -O1)... " in err
    assert "mlprog.compile: total " in err
    # The timing report nests the lowering's passes under their phase.
    assert "Execution time report" in err
    assert "OneShotBufferizePass" in err
    a = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(exe(a, a), 2 * a)
    # Not a terminal, no progress unless asked for.
    mlprog.compile(module)
    mlprog.compile(module, progress=False)
    assert capfd.readouterr().err == ""


def test_target_option_errors():
    # A CPU or feature typo is an error, not LLVM's "ignoring processor"
    # warning followed by generic code or a fatal error.
    module = mlprog.parse(ADD)
    with pytest.raises(mlprog.Error, match="unknown CPU 'notacpu'"):
        module.run_pipeline("mlprog-lower-to-cpu{target-cpu=notacpu}")
    with pytest.raises(mlprog.Error, match="unknown CPU feature 'notafeature'"):
        module.run_pipeline("mlprog-lower-to-cpu{target-features=+notafeature}")
    # (MLIR prints the option parser's reason to stderr.)
    with pytest.raises(mlprog.Error, match="with options `opt-level=9`"):
        module.run_pipeline("mlprog-lower-to-cpu{opt-level=9}")
    # A lowered module whose functions name an unknown CPU is refused too.
    module.run_pipeline("mlprog-lower-to-cpu")
    text = str(module).replace("attributes {",
                               'attributes {target_cpu = "notacpu", ')
    with pytest.raises(mlprog.Error, match="unknown CPU 'notacpu'"):
        mlprog.compile(mlprog.parse(text))


def test_missing_importers_raise_clear_errors(tmp_path):
    if not mlprog.HAVE_TORCHSCRIPT:
        with pytest.raises(mlprog.Error,
                           match="built without the TorchScript importer"):
            mlprog.import_torchscript(tmp_path / "m.pt")
    if not mlprog.HAVE_MIL:
        with pytest.raises(mlprog.Error, match="built without the MIL importer"):
            mlprog.import_mil(tmp_path / "m.mlpackage")
