"""Writes the weight-decompressed copy of a compressed Core ML package with
coremltools' own `coremltools.optimize.coreml.decompress_weights` (every
constexpr_* op replaced by the constant it computes).

  coreml_decompress.py IN.mlpackage OUT.mlpackage

Run with a Python that has coremltools (test_silero_vad.py picks one)."""

import sys

import coremltools as ct
from coremltools.optimize.coreml import decompress_weights


def main():
    source, target = sys.argv[1:3]
    model = ct.models.MLModel(source, skip_model_load=True)
    decompress_weights(model).save(target)


if __name__ == "__main__":
    main()
