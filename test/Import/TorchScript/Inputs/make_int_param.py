"""Writes int_param.pt: forward(x, n: int, scale: float, flag: bool) whose
branches depend on the number parameters (input-constants.test)."""
import os
import sys

import torch


class IntParam(torch.nn.Module):
    def forward(self, x, n: int, scale: float, flag: bool):
        if n == 16000:
            y = x[:, ::2] * scale
        else:
            y = x * 0.0
        if flag:
            y = y + 1.0
        return y


torch.jit.script(IntParam()).save(os.path.join(sys.argv[1], "int_param.pt"))
