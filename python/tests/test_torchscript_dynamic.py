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
