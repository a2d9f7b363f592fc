"""Exports 1-D/3-D grouped convolutions and 3-D pooling from PyTorch.

Usage: export_spatial_nd.py OUT_DIR
Writes OUT_DIR/{conv1d,conv3d,pool3d}.onnx with input_0.npy and PyTorch's
reference_0.npy next to each (OUT_DIR/<name>.input_0.npy, ...).
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn


class Conv1d(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv1d(6, 4, 3, stride=2, padding=1, groups=2)
        self.b = nn.Conv1d(4, 4, 2, dilation=2, groups=4, bias=False)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class Conv3d(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv3d(4, 6, (3, 2, 3), stride=(1, 2, 1), padding=1,
                           groups=2)

    def forward(self, x):
        return self.a(x)


class Pool3d(nn.Module):
    def forward(self, x):
        m = nn.functional.max_pool3d(x, 3, stride=2, padding=1,
                                     ceil_mode=True)
        a = nn.functional.avg_pool3d(x, (2, 3, 2), stride=(2, 1, 2),
                                     padding=(1, 1, 0),
                                     count_include_pad=False)
        b = nn.functional.avg_pool3d(x, 3, stride=2, padding=1,
                                     ceil_mode=True, count_include_pad=False)
        return torch.cat([m.flatten(1), a.flatten(1), b.flatten(1)], 1)


CASES = {
    "conv1d": (Conv1d, (2, 6, 9)),
    "conv3d": (Conv3d, (2, 4, 5, 6, 4)),
    "pool3d": (Pool3d, (2, 3, 5, 6, 7)),
}


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    for name, (cls, shape) in CASES.items():
        model = cls().eval()
        x = torch.randn(*shape)
        torch.onnx.export(model, (x,), os.path.join(out, name + ".onnx"),
                          opset_version=13, input_names=["x"],
                          output_names=["y"])
        with torch.no_grad():
            ref = model(x).numpy()
        np.save(os.path.join(out, name + ".input_0.npy"), x.numpy())
        np.save(os.path.join(out, name + ".reference_0.npy"), ref)


if __name__ == "__main__":
    main()
