"""Exports a torch.nn.LSTM (2 layers, bidirectional, batch_first) to ONNX,
runs it with mlprog and compares with PyTorch.

usage: torch_lstm.py BIN_DIR OUT_DIR

The model is exported at opset 14 with a dynamic batch and sequence
length, then run on an input of another batch size and length than the
export example (so the loop bounds come from tensor.dim at run time).
Prints "output I: MATCH ..." per output when it agrees with PyTorch to
rtol 1e-4 (atol 1e-5), "MISMATCH" otherwise (exit status 1).
"""
import os
import subprocess
import sys

import numpy as np
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(input_size=6, hidden_size=8, num_layers=2,
                                  bidirectional=True, batch_first=True)

    def forward(self, x, h0, c0):
        y, (h, c) = self.lstm(x, (h0, c0))
        return y, h, c


def main():
    bin_dir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model = Model().eval()
    example = (torch.randn(2, 5, 6), torch.randn(4, 2, 8),
               torch.randn(4, 2, 8))
    path = os.path.join(out, "model.onnx")
    torch.onnx.export(model, example, path, opset_version=14,
                      input_names=["x", "h0", "c0"],
                      output_names=["y", "h", "c"],
                      dynamic_axes={"x": {0: "batch", 1: "seq"},
                                    "h0": {1: "batch"}, "c0": {1: "batch"}})
    inputs = (torch.randn(3, 7, 6), torch.randn(4, 3, 8),
              torch.randn(4, 3, 8))
    with torch.no_grad():
        want = [t.numpy() for t in model(*inputs)]
    mlir = os.path.join(out, "model.mlir")
    subprocess.run([os.path.join(bin_dir, "mlprog-translate"), "--import-onnx",
                    path, "-o", mlir], check=True)
    cmd = [os.path.join(bin_dir, "mlprog-run"), mlir, "--output-dir",
           os.path.join(out, "out")]
    for i, t in enumerate(inputs):
        p = os.path.join(out, f"input_{i}.npy")
        np.save(p, t.numpy())
        cmd += ["--input", p]
    subprocess.run(cmd, check=True)
    status = 0
    for i, w in enumerate(want):
        got = np.load(os.path.join(out, "out", f"output_{i}.npy"))
        ok = got.shape == w.shape and np.allclose(got, w, rtol=1e-4,
                                                  atol=1e-5)
        err = np.abs(got - w).max() if got.shape == w.shape else float("nan")
        print(f"output {i}: {'MATCH' if ok else 'MISMATCH'} shape "
              f"{got.shape} want {w.shape} max abs error {err:.1e}")
        status |= not ok
    return status


if __name__ == "__main__":
    sys.exit(main())
