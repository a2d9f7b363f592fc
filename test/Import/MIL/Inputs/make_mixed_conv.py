"""Writes OUT/conv.mlpackage and OUT/conv_transpose.mlpackage: iOS17 programs
whose fp32 activations meet fp16 weights and bias (conv-mixed-dtype.test)."""
import sys

import numpy as np
import coremltools as ct
from coremltools.converters.mil import Builder as mb

rng = np.random.default_rng(3)
w = rng.random((4, 3, 3, 3)).astype(np.float16)
b = rng.random(4).astype(np.float16)


@mb.program(input_specs=[mb.TensorSpec(shape=(1, 3, 8, 8))],
            opset_version=ct.target.iOS17)
def conv(x):
    return mb.conv(x=x, weight=w, bias=b)


@mb.program(input_specs=[mb.TensorSpec(shape=(1, 3, 8, 8))],
            opset_version=ct.target.iOS17)
def conv_transpose(x):
    return mb.conv_transpose(x=x, weight=w.transpose(1, 0, 2, 3).copy(), bias=b)


for name, prog in (("conv", conv), ("conv_transpose", conv_transpose)):
    ct.convert(prog, convert_to="mlprogram",
               minimum_deployment_target=ct.target.iOS17,
               compute_precision=ct.precision.FLOAT32,
               skip_model_load=True).save(f"{sys.argv[1]}/{name}.mlpackage")
