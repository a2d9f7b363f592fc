"""Writes TorchScript archives whose methods write registered buffers (the
state of docs/state.md), for state.test.

Usage: make_state_modules.py OUT_DIR
"""
import os
import sys

import torch
import torch.nn as nn

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


class IndexCopyCache(nn.Module):
    """A KV cache written with index_copy_, a position counter, a reset."""

    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(1, 4, 2))
        self.register_buffer("pos", torch.zeros((), dtype=torch.int64))

    def forward(self, k):
        self.cache.index_copy_(1, self.pos.view(1), k.unsqueeze(1))
        self.pos.add_(1)
        return self.cache.sum(1)

    @torch.jit.export
    def reset(self):
        self.cache.zero_()
        self.pos.zero_()


class SliceAssign(nn.Module):
    """Slice assignment at a run-time position and a static slice."""

    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(1, 4, 2))
        self.register_buffer("pos", torch.zeros((), dtype=torch.int64))

    def forward(self, k):
        p = int(self.pos)
        self.cache[:, p] = k
        self.pos.add_(1)
        return self.cache * 1.0

    @torch.jit.export
    def prime(self, x):
        self.cache[:, 1:3] = x
        return self.cache * 1.0


class FillCopy(nn.Module):
    """fill_, copy_ (broadcast and dtype conversion), masked_fill_, and a
    read of the buffer taken before the write."""

    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(2, 3))
        self.register_buffer("count", torch.zeros((), dtype=torch.int64))

    def forward(self, x):
        before = self.state
        self.state.copy_(x)
        self.state.masked_fill_(self.state < 0.0, 0.0)
        self.count.fill_(7)
        return before * 1.0

    @torch.jit.export
    def clear(self):
        self.state.fill_(0.5)
        self.count.copy_(torch.zeros((), dtype=torch.int64))

    def helper(self, x):
        return x + self.state

    @torch.jit.export
    def apply(self, x):
        return self.helper(x)


class ViewWrite(nn.Module):
    """An in-place write through a reshaping view: not expressible as a
    slice of the buffer."""

    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(2, 3))

    def forward(self, x):
        flat = self.state.view(-1)
        flat.add_(x)
        return x * 1.0


for module in (IndexCopyCache, SliceAssign, FillCopy, ViewWrite):
    torch.jit.save(torch.jit.script(module()),
                   os.path.join(out, module.__name__ + ".pt"))
