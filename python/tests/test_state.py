"""State through mutable globals (docs/state.md): a scripted decoder whose
KV cache and position live in registered buffers runs step by step through
mlprog and through PyTorch, with a `reset` method, and two executables of
one module keep separate state."""

import math

import numpy as np
import pytest

import mlprog

torch = pytest.importorskip("torch")
if not mlprog.HAVE_TORCHSCRIPT:
    pytest.skip("built without the TorchScript importer",
                allow_module_level=True)

T, D, VOCAB = 12, 8, 16


class Decoder(torch.nn.Module):
    """One attention layer over a KV cache [1, T, D]: keys are written by
    slice assignment at the position, values by index_copy_; the position
    counter is a 0-d int64 buffer advanced with add_."""

    def __init__(self):
        super().__init__()
        self.q = torch.nn.Linear(D, D)
        self.k = torch.nn.Linear(D, D)
        self.v = torch.nn.Linear(D, D)
        self.out = torch.nn.Linear(D, VOCAB)
        self.register_buffer("k_cache", torch.zeros(1, T, D))
        self.register_buffer("v_cache", torch.zeros(1, T, D))
        self.register_buffer("pos", torch.zeros((), dtype=torch.int64))
        self.scale = 1.0 / math.sqrt(D)

    def forward(self, x):
        q = self.q(x)
        p = int(self.pos)
        self.k_cache[:, p] = self.k(x)
        self.v_cache.index_copy_(1, self.pos.view(1), self.v(x).unsqueeze(1))
        self.pos.add_(1)
        scores = torch.matmul(self.k_cache, q.unsqueeze(2)).squeeze(2)
        scores = scores * self.scale
        valid = torch.arange(self.k_cache.size(1)) < self.pos
        scores = scores.masked_fill(~valid, -1e9)
        weights = torch.softmax(scores, -1)
        context = torch.matmul(weights.unsqueeze(1), self.v_cache).squeeze(1)
        return self.out(context), self.pos * 1

    @torch.jit.export
    def reset(self):
        self.k_cache.zero_()
        self.v_cache.zero_()
        self.pos.zero_()


class Buffers(torch.nn.Module):
    """copy_ with broadcasting, masked_fill_, fill_, and a read of the buffer
    taken before the writes (it names the same storage)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(2, 3))
        self.register_buffer("total", torch.zeros(3))

    def forward(self, x):
        before = self.state
        self.total.add_(x.sum(0))
        self.state.copy_(x[0])
        self.state.masked_fill_(self.state < 0.0, 0.0)
        return before * 2.0, self.total * 1.0

    @torch.jit.export
    def clear(self):
        self.state.fill_(0.25)
        self.total.zero_()


def _scripted(cls):
    torch.manual_seed(0)
    return torch.jit.script(cls().eval())


def _compare(ref, fn, x, step):
    with torch.no_grad():
        expected = ref(x)
    got = fn(x)
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-5, atol=1e-5,
                                   err_msg="step %d" % step)


def test_decoder_steps_and_reset():
    ref = _scripted(Decoder)
    module = mlprog.import_torchscript(ref, example_inputs=[torch.zeros(1, D)])
    assert module.functions == ["forward", "reset"]
    text = str(module)
    for name in ("k_cache", "v_cache", "pos"):
        assert "ml_program.global private mutable @%s" % name in text
    exe = mlprog.compile(module)
    assert exe.functions == ["forward", "reset"]
    rng = np.random.default_rng(0)
    inputs = [torch.from_numpy(rng.standard_normal((1, D), np.float32))
              for _ in range(10)]
    for step, x in enumerate(inputs):
        _compare(ref, exe.forward, x, step)
    assert exe.reset() is None
    ref.reset()
    for step, x in enumerate(inputs[:9]):
        _compare(ref, exe.forward, x, 100 + step)


def test_executables_keep_separate_state():
    ref = _scripted(Decoder)
    module = mlprog.import_torchscript(ref, example_inputs=[torch.zeros(1, D)])
    first, second = mlprog.compile(module), mlprog.compile(module)
    x = torch.ones(1, D)
    for _ in range(3):
        first.forward(x)
    # `second` starts from the initial buffers, whatever `first` did.
    _compare(ref, second.forward, x, 0)
    _, pos = first.forward(x)
    assert int(pos) == 4
    # Calling the executable runs @forward when there is no @main.
    _, pos = second(x)
    assert int(pos) == 2


def test_fill_copy_masked_fill_and_aliasing():
    ref = _scripted(Buffers)
    module = mlprog.import_torchscript(ref,
                                       example_inputs=[torch.zeros(2, 3)])
    assert module.functions == ["forward", "clear"]
    exe = mlprog.compile(module)
    rng = np.random.default_rng(1)
    for step in range(4):
        x = torch.from_numpy(rng.standard_normal((2, 3), np.float32))
        _compare(ref, exe.forward, x, step)
        if step == 1:
            ref.clear()
            exe.clear()


def test_method_selection():
    ref = _scripted(Decoder)
    only_reset = mlprog.import_torchscript(ref, method="reset")
    assert only_reset.functions == ["reset"]
    both = mlprog.import_torchscript(ref, method=["forward", "reset"],
                                     input_shapes=[[1, D]])
    assert both.functions == ["forward", "reset"]
    with pytest.raises(mlprog.Error, match="no method 'predict'"):
        mlprog.import_torchscript(ref, method="predict")


class GrowingCache(torch.nn.Module):
    """Attributes replaced by prim::SetAttr with values of other shapes: a
    cache that grows by one row per call (torch.cat, the KV cache of models
    without a preallocated buffer) and a context that starts as the empty
    `torch.zeros(0)` and then holds [1, 4] values (silero-vad's pattern).
    mlprog imports both as mutable globals with dynamic bounding types."""

    def __init__(self):
        super().__init__()
        self.cache = torch.zeros(0, 4)
        self.context = torch.zeros(0)

    def forward(self, x):
        self.cache = torch.cat([self.cache, x], 0)
        out = self.cache.sum(0, keepdim=True) * self.cache.size(0)
        self.context = x * 2.0
        return out + self.context

    @torch.jit.export
    def reset(self):
        self.cache = torch.zeros(0, 4)
        self.context = torch.zeros(0)


def test_state_that_changes_shape():
    ref = _scripted(GrowingCache)
    module = mlprog.import_torchscript(ref, input_shapes=[[1, 4]])
    text = str(module)
    assert "mutable @cache(dense<> : tensor<0x4xf32>) : tensor<?x4xf32>" in text
    assert "mutable @context(dense<> : tensor<0x4xf32>) : tensor<?x4xf32>" in text
    exe = mlprog.compile(module)
    rng = np.random.default_rng(3)
    for step in range(8):
        if step == 5:
            ref.reset()
            assert exe.reset() is None
        x = torch.from_numpy(rng.standard_normal((1, 4)).astype(np.float32))
        with torch.no_grad():
            expected = ref(x).numpy()
        np.testing.assert_allclose(exe.forward(x), expected, rtol=1e-5,
                                   atol=1e-5, err_msg="step %d" % step)
