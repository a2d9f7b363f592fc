"""Writes small TorchScript archives for the importer's lit tests.

Usage: make_modules.py OUT_DIR
"""
import os
import sys

import torch
import torch.nn as nn

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


class State(nn.Module):
    """A parameter, a buffer, a constant attribute and a counter."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(4))
        self.register_buffer("offset", torch.zeros(4))
        self.scale = 2.0
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x * self.weight * self.scale + self.offset


class Unsupported(nn.Module):
    def forward(self, x):
        y = x + 1
        return torch.histogram(y, 4)[0]


class NoForward(nn.Module):
    @torch.jit.export
    def helper(self, x):
        return x * 2


class Aliasing(nn.Module):
    def forward(self, x):
        y = x * 1
        v = y.view(-1)
        y.add_(1)
        return v


torch.jit.save(torch.jit.script(State()), os.path.join(out, "state.pt"))
torch.jit.save(torch.jit.script(Unsupported()),
               os.path.join(out, "unsupported.pt"))
torch.jit.save(torch.jit.script(NoForward()), os.path.join(out, "noforward.pt"))
torch.jit.save(torch.jit.script(Aliasing()), os.path.join(out, "aliasing.pt"))
