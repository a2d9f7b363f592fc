"""Writes OUT/q.mlpackage (iOS17 quantize to uint8 per axis, its cast to
int32 at the output as ct.convert inserts it, and dequantize back), its
input x.npy and numpy references ref_0.npy (quantized) and ref_1.npy."""
import sys

import numpy as np
import coremltools as ct
from coremltools.converters.mil import Builder as mb

out = sys.argv[1]
sc = np.array([0.5, 0.25, 0.1], np.float32)
zp = np.array([3, 200, 128], np.uint8)


@mb.program(input_specs=[mb.TensorSpec(shape=(2, 3))],
            opset_version=ct.target.iOS17)
def prog(x):
    q = mb.quantize(input=x, scale=sc, zero_point=zp, axis=1,
                    output_dtype="uint8")
    return q, mb.dequantize(input=q, scale=sc, zero_point=zp, axis=1)


ct.convert(prog, convert_to="mlprogram",
           minimum_deployment_target=ct.target.iOS17,
           compute_precision=ct.precision.FLOAT32,
           skip_model_load=True).save(f"{out}/q.mlpackage")
x = np.array([[1.3, -10.0, 5.05], [100.0, 2.5, -3.0]], np.float32)
np.save(f"{out}/x.npy", x)
q = np.clip(np.round(x / sc) + zp, 0, 255).astype(np.uint8)
np.save(f"{out}/ref_0.npy", q.astype(np.int32))
np.save(f"{out}/ref_1.npy", (q.astype(np.float32) - zp) * sc)
