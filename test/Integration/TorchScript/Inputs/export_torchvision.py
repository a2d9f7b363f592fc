"""Scripts a torchvision classifier with random weights (eval mode), saves it
with torch.jit.save (frozen with torch.jit.freeze, or not), and writes an
input and PyTorch's eager output as .npy files.

Usage: export_torchvision.py MODEL OUT_DIR {frozen,unfrozen} [BATCH]
"""
import os
import sys

import numpy as np
import torch
import torchvision

name, out, mode = sys.argv[1], sys.argv[2], sys.argv[3]
batch = int(sys.argv[4]) if len(sys.argv) > 4 else 1
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
model = getattr(torchvision.models, name)(weights=None).eval()
# torchvision's init (zero biases, unit running statistics) lets some
# classifiers' logits shrink to ~1e-10, where any tolerance is vacuous;
# randomize the normalization state so that outputs are O(1).
with torch.no_grad():
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.1, 0.1)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-0.1, 0.1)
        elif isinstance(m, torch.nn.Linear):
            torch.nn.init.uniform_(m.weight, -0.05, 0.05)
scripted = torch.jit.script(model)
if mode == "frozen":
    scripted = torch.jit.freeze(scripted)
torch.jit.save(scripted, os.path.join(out, "model.pt"))
x = torch.rand(batch, 3, 224, 224)
with torch.no_grad():
    y = model(x)
np.save(os.path.join(out, "input_0.npy"), x.numpy())
np.save(os.path.join(out, "reference_0.npy"), y.numpy())
print("reference max |y| %.3g" % y.abs().max().item())
