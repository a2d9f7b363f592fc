"""Dynamic extents through the Python API: `input_shapes` with None keeps an
extent unknown at import time (`?` in the signature); the compiled program
then runs on inputs of several sizes, with sizes read at run time feeding
arange, view and indexing, and matches PyTorch."""

import numpy as np
import pytest

import mlprog

torch = pytest.importorskip("torch")
if not mlprog.HAVE_TORCHSCRIPT:
    pytest.skip("built without the TorchScript importer",
                allow_module_level=True)


class Heads(torch.nn.Module):
    """Position ids from the sequence length and a multi-head view whose
    batch and sequence extents are run-time sizes."""

    def forward(self, x, i):
        b, s = x.size(0), x.size(1)
        pos = torch.arange(s).to(x.dtype)
        h = (x + pos.unsqueeze(-1)).view(b, s, 2, 4).transpose(1, 2)
        return h.reshape(b * 2, -1), x[:, i], x[x > 0]


def test_none_extents_stay_dynamic_and_run_on_two_sizes():
    ref = torch.jit.script(Heads())
    module = mlprog.import_torchscript(
        ref, input_shapes=[[None, None, 8], [3]],
        input_dtypes=["float32", "int64"])
    assert "@forward(%arg0: tensor<?x?x8xf32>, %arg1: tensor<3xi64>)" in \
        str(module)
    exe = mlprog.compile(module)
    rng = np.random.default_rng(0)
    for b, s in ((1, 5), (3, 9)):
        x = rng.standard_normal((b, s, 8)).astype(np.float32)
        i = rng.integers(-s, s, size=3).astype(np.int64)
        got = exe.forward(x, i)
        want = ref(torch.from_numpy(x), torch.from_numpy(i))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w.numpy(), rtol=1e-6)


class ShiftedWindows(torch.nn.Module):
    """swin_t's shifted windows: pad the run-time extents up to a multiple
    of the window (size arithmetic through zero-dim tensors), then roll back
    by half a window along both."""

    def forward(self, x):
        h, w = x.size(1), x.size(2)
        pad_h = (7 - h % 7) % 7
        pad_w = (7 - w % 7) % 7
        y = torch.nn.functional.pad(x, (0, 0, 0, pad_w, 0, pad_h))
        return torch.roll(y, shifts=(-3, 5), dims=(1, 2))


def test_roll_along_run_time_extents():
    ref = torch.jit.script(ShiftedWindows())
    module = mlprog.import_torchscript(ref, input_shapes=[[1, None, None, 2]])
    exe = mlprog.compile(module)
    rng = np.random.default_rng(1)
    for h, w in ((10, 10), (7, 3), (1, 15)):
        x = rng.standard_normal((1, h, w, 2)).astype(np.float32)
        got = exe.forward(x)
        want = ref(torch.from_numpy(x))
        np.testing.assert_array_equal(np.asarray(got), want.numpy())
