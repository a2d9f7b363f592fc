"""mlprog: import ML models into the ``ml_program`` MLIR dialect, transform
them with MLIR pass pipelines, and JIT-compile and run them on the CPU.

    import mlprog, numpy as np
    module = mlprog.import_onnx("model.onnx")   # or import_torchscript / import_mil
    exe = mlprog.compile(module)                # --mlprog-lower-to-cpu + LLVM JIT
    y = exe.main(np.ones((1, 3, 224, 224), np.float32))

Every failure is an :class:`Error` whose message holds the MLIR diagnostics
("file:line:col: error: ...", one per line; also in ``Error.diagnostics``).
See docs/python.md for the whole interface.
"""

import os
import re
import sys
import tempfile

from . import _build_info, _mlprog

__all__ = [
    "Error",
    "Executable",
    "Function",
    "Module",
    "compile",
    "import_mil",
    "import_onnx",
    "import_torchscript",
    "load",
    "parse",
]

__version__ = "0.1.0"

#: Raised for every mlprog failure; ``str(e)`` is the located diagnostics,
#: ``e.diagnostics`` the same lines as a list.
Error = _mlprog.Error

#: Which importers this build has.
HAVE_ONNX = bool(_mlprog.have_onnx)
HAVE_TORCHSCRIPT = bool(_build_info.TORCH_VERSION)
HAVE_MIL = bool(_mlprog.have_mil)


class Module:
    """An MLIR module (usually an ``ml_program`` import-contract module).

    ``str(module)`` is its IR text. Modules own their MLIR context; the
    executables compiled from a module share it.
    """

    def __init__(self, impl):
        self._impl = impl

    def __str__(self):
        return self._impl.to_string()

    def __repr__(self):
        return "<mlprog.Module functions=%r>" % (self.functions,)

    def to_string(self, debug_info=False, generic=False):
        """IR text; ``debug_info`` prints locations, ``generic`` the generic
        op form."""
        return self._impl.to_string(debug_info, generic)

    @property
    def functions(self):
        """Names of the public functions with a body, in module order."""
        return list(self._impl.functions)

    def run_pipeline(self, pipeline):
        """Runs an MLIR textual pass pipeline on the module in place, e.g.
        ``"canonicalize,cse"`` or ``"builtin.module(mlprog-lower-to-cpu)"``
        (every pass and pipeline of ``mlprog-opt``). On failure the module is
        left unchanged and :class:`Error` is raised. Returns ``self``."""
        self._impl.run_pipeline(pipeline)
        return self

    def verify(self):
        """Runs the MLIR verifier; raises :class:`Error` on failure."""
        self._impl.verify()

    def save(self, path, debug_info=False, weights_threshold=1024):
        """Writes the module to ``path``: MLIR bytecode when the name ends in
        ``.mlirbc``, text otherwise (readable by ``mlprog-opt``/``mlprog-run``).

        Text leaves weights out, as ``mlprog-translate -o`` does: initial
        values of at least ``weights_threshold`` bytes go to a safetensors
        bundle beside ``path`` (its name with the extension
        ``.safetensors``), which :func:`load`, ``mlprog-run`` and
        ``mlprog-compile`` read from there (docs/weights.md). ``None`` keeps
        every weight in the text. This module keeps its weights either way.
        """
        if weights_threshold is not None and int(weights_threshold) < 0:
            raise ValueError("weights_threshold must be >= 0 or None")
        self._impl.save(os.fspath(path), debug_info,
                        None if weights_threshold is None
                        else int(weights_threshold))

    def clone(self):
        """A deep copy (in the same context)."""
        return Module(self._impl.clone())


def parse(text, name="<string>"):
    """Parses MLIR text (``name`` is used in diagnostics) into a Module."""
    return Module(_mlprog.parse(text, name))


def load(path):
    """Reads an MLIR text or bytecode file into a Module. Weights it keeps
    in files (a bundle written by :meth:`Module.save` or ``mlprog-translate
    -o``) are read from the file's folder when the module is compiled."""
    return Module(_mlprog.load(os.fspath(path)))


def _is_bytes(value):
    return isinstance(value, (bytes, bytearray, memoryview))


def import_onnx(model, name=None, state=None, weights_dir=None,
                input_shapes=None, constant_inputs=None):
    """Imports an ONNX model: a file path, the serialized bytes, or an
    ``onnx.ModelProto``. The graph becomes the public ``ml_program.func
    @main``; initializers become globals (see docs/importers/onnx.md).
    ``name`` is the file name used in locations for bytes and protos.

    ``state`` keeps graph inputs that the caller would feed back from graph
    outputs (a decoder's KV cache) in mutable globals, so that ``@main``
    neither takes nor returns them and a ``@reset`` function restores their
    initial values (docs/state.md): the text of ``mlprog-translate
    --state`` (``"auto"``, ``"past.0.key:present.0.key,..."``), a dict
    ``{input: output}``, or a list of ``(input, output)`` or ``(input,
    output, initial_shape)`` tuples.

    ``weights_dir`` is the folder that initializers' external data is read
    from and must stay inside (``mlprog-translate --weights-dir``); by
    default the model file's folder, or the working directory for bytes and
    protos.

    ``input_shapes`` pins the shapes of the graph inputs that are not
    initializers, in order (``mlprog-translate --input-shapes``): one list of
    extents per input, ``None`` keeping an extent as the model declares it,
    e.g. ``[[1, 3, 224, 224]]`` for a model exported with a dynamic batch.
    ``constant_inputs`` binds scalar graph inputs to numbers at import time
    (``mlprog-translate --input-constants``), e.g. ``{"sr": 16000}`` for
    silero-vad: the function has no argument for them and the branches they
    decide fold away.
    """
    if not HAVE_ONNX:
        raise Error("built without the ONNX importer")
    spec, bindings = "", []
    if isinstance(state, str):
        spec = state
    elif isinstance(state, dict):
        bindings = [(i, o, None) for i, o in state.items()]
    elif state is not None:
        for item in state:
            item = tuple(item)
            if len(item) not in (2, 3):
                raise Error("error: state bindings are (input, output) or "
                            "(input, output, initial_shape), got %r" % (item,))
            shape = item[2] if len(item) == 3 else None
            bindings.append((item[0], item[1],
                             None if shape is None else [int(e) for e in shape]))
    if hasattr(model, "SerializeToString"):
        model = model.SerializeToString()
    weights_dir = "" if weights_dir is None else os.fspath(weights_dir)
    shapes = [[None if e is None else int(e) for e in s]
              for s in (input_shapes or [])]
    constants = [(str(k), _constant_text(v))
                 for k, v in (constant_inputs or {}).items()]
    if _is_bytes(model):
        return Module(_mlprog.import_onnx_bytes(
            bytes(model), name or "<bytes>", spec, bindings, weights_dir,
            shapes, constants))
    return Module(_mlprog.import_onnx_file(os.fspath(model), spec, bindings,
                                           weights_dir, shapes, constants))


def _torch():
    """The torch module if this process has imported it, else None. Never
    imports torch: a torch other than the one the TorchScript importer
    links must not be loaded by mlprog (see _torchscript_extension)."""
    return sys.modules.get("torch")


_TORCHSCRIPT_EXTENSION = None


def _torchscript_extension():
    """Loads the TorchScript importer extension (and with it libtorch) on
    first use. A process holds one libtorch build: if the torch this process
    has imported is not the one the importer was built against, raises
    Error instead of loading a second libtorch (which would crash)."""
    global _TORCHSCRIPT_EXTENSION
    if _TORCHSCRIPT_EXTENSION is not None:
        return _TORCHSCRIPT_EXTENSION
    if not HAVE_TORCHSCRIPT:
        raise Error("built without the TorchScript importer")
    torch = _torch()
    if torch is not None:
        # "2.9.1+cu128", Debian's "1.13.0a0": compare the release numbers.
        version = re.match(r"\d+(\.\d+)*",
                           str(getattr(torch, "__version__", "")))
        if not version or version.group(0) != _build_info.TORCH_VERSION:
            raise Error(
                "error: mlprog's TorchScript importer links libtorch %s but "
                "this process has imported torch %s; two libtorch builds "
                "cannot share a process. Use torch==%s (the project's "
                ".venv has it), or import the model with "
                "`mlprog-translate --import-torchscript` in another process."
                % (_build_info.TORCH_VERSION, torch.__version__,
                   _build_info.TORCH_VERSION))
    from . import _mlprog_torchscript
    _TORCHSCRIPT_EXTENSION = _mlprog_torchscript
    return _mlprog_torchscript


def import_torchscript(module, method=None, input_shapes=None,
                       input_dtypes=None, example_inputs=None,
                       constant_inputs=None):
    """Imports a TorchScript program: a live ``torch.jit.ScriptModule`` (e.g.
    ``torch.jit.script(model)``), or the path of a ``torch.jit.save`` archive
    or of TorchScript IR text. Each method becomes the public function of the
    same name, all in one module sharing the globals of the parameters and
    buffers: ``method`` is a name, a list of names, ``"*"`` (every method),
    or None for ``forward`` and the ``@torch.jit.export`` methods (e.g.
    ``reset``; see docs/state.md). Input shapes and dtypes of the first
    method come from ``example_inputs`` (tensors or arrays), else from
    ``input_shapes`` (lists of extents, ``None`` for an unknown one) and
    ``input_dtypes`` (``"float32"``, ``"int64"``, ...), else from the IR's
    annotations. ``constant_inputs`` binds number parameters at import time
    by name (e.g. ``{"sr": 16000}`` for silero-vad's ``forward(x, sr)``):
    the program is specialized for those values and its functions take no
    argument for them.
    """
    extension = _torchscript_extension()
    constants = [(str(k), _constant_text(v))
                 for k, v in (constant_inputs or {}).items()]
    if example_inputs is not None:
        arrays = [_to_numpy(x, i) for i, x in enumerate(example_inputs)]
        input_shapes = [list(a.shape) for a in arrays]
        input_dtypes = [str(a.dtype) for a in arrays]
    shapes = [list(s) for s in (input_shapes or [])]
    dtypes = [str(d).replace("torch.", "") for d in (input_dtypes or [])]
    if method is None:
        method = ""
    elif not isinstance(method, str):
        method = ",".join(method)
    torch = _torch()
    if torch is not None and isinstance(module, torch.nn.Module):
        if not isinstance(module, torch.jit.ScriptModule):
            raise Error("import_torchscript needs a TorchScript module; "
                        "pass torch.jit.script(model) or torch.jit.trace(...)")
        with tempfile.TemporaryDirectory(prefix="mlprog-") as tmp:
            path = os.path.join(tmp, type(module).__name__ + ".pt")
            torch.jit.save(module, path)
            return _module_from_bytecode(
                extension.import_file(path, method, shapes, dtypes, constants), path)
    path = os.fspath(module)
    return _module_from_bytecode(
        extension.import_file(path, method, shapes, dtypes, constants), path)


def _constant_text(value):
    """The --input-constants spelling of a Python number."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def _module_from_bytecode(bytecode, name):
    """The Module an importer extension returned as MLIR bytecode."""
    return Module(_mlprog.parse(bytecode, name))


def import_mil(path, opset="", weights_dir=None):
    """Imports a Core ML MIL program: a serialized ``Program``, an
    ``.mlmodel``, or an ``.mlpackage`` directory. ``opset`` picks the block
    specialization (e.g. ``"CoreML7"``); empty means each function's own.
    ``weights_dir`` is the folder that weight blobs
    (``@model_path/weights/weight.bin``) are read from and must stay inside;
    by default the model file's folder.
    """
    if not HAVE_MIL:
        raise Error("built without the MIL importer")
    weights_dir = "" if weights_dir is None else os.fspath(weights_dir)
    return Module(_mlprog.import_mil_file(os.fspath(path), opset,
                                          weights_dir))


def _to_numpy(value, index):
    """numpy view of a torch tensor (detached, on the CPU); other values are
    returned as they are (the C++ side converts them with numpy)."""
    torch = _torch()
    if torch is not None and isinstance(value, torch.Tensor):
        value = value.detach()
        if value.device.type != "cpu":
            value = value.cpu()
        if value.dtype == torch.bfloat16:
            # numpy has no bfloat16; ml_dtypes' has the same bits.
            try:
                import ml_dtypes
            except ImportError:
                raise Error("error: input %d: bfloat16 tensors need the "
                            "ml_dtypes package (pip install ml_dtypes)"
                            % index) from None
            return value.contiguous().view(torch.int16).numpy().view(
                ml_dtypes.bfloat16)
        return value.contiguous().numpy()
    import numpy
    return numpy.asarray(value)


class Function:
    """One public function of an :class:`Executable`. Call it with numpy
    arrays, torch tensors or Python scalars (bound positionally, checked
    against the signature); it returns a numpy array for one result, a tuple
    for several, and None for none.
    """

    def __init__(self, executable, name):
        self._exe = executable
        self.name = name

    @property
    def signature(self):
        """``{"type": "(tensor<...>) -> ...", "inputs": [...], "results":
        [...]}``; each entry has "type", "shape" (None for unknown extents)
        and "dtype" (the numpy dtype name)."""
        return self._exe._impl.describe(self.name)

    def __call__(self, *args):
        import numpy
        inputs = self.signature["inputs"]
        arrays = []
        for i, arg in enumerate(args):
            # Python numbers take the dtype the function expects.
            if isinstance(arg, (bool, int, float)) and i < len(inputs) \
                    and inputs[i]["dtype"] is not None:
                arrays.append(numpy.asarray(arg, dtype=inputs[i]["dtype"]))
            else:
                arrays.append(_to_numpy(arg, i))
        results = self._exe._impl.call(self.name, arrays)
        if not results:
            return None
        if len(results) == 1:
            return results[0]
        return tuple(results)

    def __repr__(self):
        return "<mlprog.Function @%s : %s>" % (self.name,
                                               self.signature["type"])


class Executable:
    """A module compiled for the CPU. Functions are reached as attributes
    (``exe.main``, ``exe.forward``), by name (``exe["main"]``), or, for the
    default entry (``@main``, else ``@forward``, else the only public
    function), by calling the executable itself. The module is JIT-compiled once (at compile time when
    it has a default entry, else on the first call): every function shares
    its mutable globals, so ``exe.reset()`` clears the state ``exe.forward``
    keeps; another Executable compiled from the same module has its own
    state (docs/state.md).
    """

    def __init__(self, impl):
        self._impl = impl

    @property
    def functions(self):
        """Names of the callable (public) functions."""
        return list(self._impl.functions)

    def __getitem__(self, name):
        if name not in self._impl.functions:
            raise KeyError("no public function @%s (functions: %s)"
                           % (name, ", ".join(self.functions) or "none"))
        return Function(self, name)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._impl.functions:
            raise AttributeError(
                "mlprog.Executable has no function @%s (functions: %s)"
                % (name, ", ".join(self.functions) or "none"))
        return Function(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.functions))

    def __call__(self, *args):
        names = self.functions
        for name in ("main", "forward"):
            if name in names:
                return self[name](*args)
        if len(names) == 1:
            return self[names[0]](*args)
        raise Error("error: cannot choose the function to call: no @main "
                    "or @forward and %d public functions (%s); use "
                    "exe[name](...)"
                    % (len(names), ", ".join(names)))

    def __repr__(self):
        return "<mlprog.Executable functions=%r>" % (self.functions,)


def compile(module, target="cpu", opt_level=2, progress=None, timing=False):
    """Compiles a :class:`Module` for ``target`` (only ``"cpu"``): lowers a
    copy with ``--mlprog-lower-to-cpu`` and JIT-compiles it with LLVM at
    ``opt_level`` (0-3). The module itself is not changed.

    ``progress`` prints each phase (lowering, JIT compilation) and its time
    on stderr: ``None`` when stderr is a terminal, ``True`` always,
    ``False`` never. ``timing`` prints MLIR's timing report (the phases, the
    lowering's passes under it) on stderr, as ``mlprog-run --timing``."""
    if not isinstance(module, Module):
        raise TypeError("mlprog.compile expects an mlprog.Module, got %s"
                        % type(module).__name__)
    mode = "auto" if progress is None else ("always" if progress else "never")
    return Executable(_mlprog.compile(module._impl, target, int(opt_level),
                                      mode, bool(timing)))
