"""Exports a small CNN touching every op of the ONNX import slice.

Usage: export_small_cnn.py OUT_DIR [--dynamic-batch]
Writes OUT_DIR/model.onnx, input_0.npy and PyTorch's reference_0.npy.
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, groups=2, dilation=1)
        self.depthwise = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=8,
                                   bias=False)
        self.pool = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.avg = nn.AvgPool2d(2, stride=1, padding=1,
                                count_include_pad=False)
        self.fc = nn.Linear(16 * 5 * 5, 10)

    def forward(self, x):
        x = self.bn1(torch.relu(self.conv1(x)))
        x = self.pool(x)
        a = torch.sigmoid(self.conv2(x))
        b = torch.tanh(self.depthwise(x))
        x = torch.cat([a * b - a / (b * b + 1.0), a + b], dim=1)
        x = self.avg(x)
        x = x.transpose(2, 3).reshape(x.shape[0], -1)
        x = self.fc(x)
        x = x + torch.nn.functional.adaptive_avg_pool2d(
            x.reshape(-1, 1, 2, 5), 1).reshape(-1, 1)
        return torch.softmax(x, dim=1)


def main():
    out = sys.argv[1]
    dynamic = "--dynamic-batch" in sys.argv
    torch.manual_seed(0)
    model = SmallCNN().eval()
    # Non-trivial running statistics so BatchNormalization matters.
    model.bn1.running_mean.uniform_(-0.5, 0.5)
    model.bn1.running_var.uniform_(0.5, 2.0)
    x = torch.randn(2, 3, 18, 18)
    with torch.no_grad():
        ref = model(x)
    os.makedirs(out, exist_ok=True)
    torch.onnx.export(model, x, os.path.join(out, "model.onnx"),
                      opset_version=13, input_names=["input"],
                      output_names=["probabilities"],
                      dynamic_axes={"input": {0: "N"}} if dynamic else None)
    np.save(os.path.join(out, "input_0.npy"), x.numpy())
    np.save(os.path.join(out, "reference_0.npy"), ref.numpy())


if __name__ == "__main__":
    main()
