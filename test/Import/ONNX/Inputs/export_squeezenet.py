"""Exports torchvision's squeezenet1_1 (random weights) at opset 13.

usage: export_squeezenet.py OUT.onnx
"""
import sys

import torch
import torchvision

torch.manual_seed(0)
model = torchvision.models.squeezenet1_1(weights=None).eval()
torch.onnx.export(model, torch.randn(1, 3, 224, 224), sys.argv[1],
                  opset_version=13, input_names=["input"],
                  output_names=["output"])
