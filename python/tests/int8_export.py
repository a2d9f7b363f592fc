"""Writes models quantized by onnxruntime's own tools, as users make them:

  .venv/bin/python int8_export.py OUT_DIR

  resnet18-qdq.onnx, resnet18-qop.onnx  torchvision resnet18 (random weights,
      seed 0, opset 17) after `quant_pre_process`, quantized by
      `quantize_static` (uint8 activations, int8 weights, per-tensor, 4
      seeded calibration images) in the QDQ and QOperator formats; the
      QOperator one uses com.microsoft QLinearAdd, QLinearGlobalAveragePool
      and QGemm.
  bert-dynamic.onnx  a small BERT encoder (transformers_export.py's
      `bert` config, opset 17) quantized by `quantize_dynamic` (int8
      weights: DynamicQuantizeLinear + MatMulInteger).
  image.npy, input_ids.npy, attention_mask.npy  inputs.

Runs under the project's .venv (torch 2.9, onnxruntime, transformers).
"""
import logging
import os
import sys
import warnings

import numpy as np
import torch
import torchvision
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                      QuantType, quantize_dynamic,
                                      quantize_static)
from onnxruntime.quantization.shape_inference import quant_pre_process

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import transformers_export  # noqa: E402


class Images(CalibrationDataReader):
    def __init__(self, count=4):
        rng = np.random.default_rng(0)
        self.data = iter([{"input": rng.standard_normal(
            (1, 3, 224, 224)).astype(np.float32)} for _ in range(count)])

    def get_next(self):
        return next(self.data, None)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval()
    fp32 = os.path.join(out, "resnet18.onnx")
    with torch.no_grad():
        torch.onnx.export(model, (torch.randn(1, 3, 224, 224),), fp32,
                          opset_version=17, dynamo=False,
                          input_names=["input"], output_names=["output"])
    pre = os.path.join(out, "resnet18-pre.onnx")
    quant_pre_process(fp32, pre)
    for name, fmt in [("qdq", QuantFormat.QDQ), ("qop", QuantFormat.QOperator)]:
        quantize_static(pre, os.path.join(out, f"resnet18-{name}.onnx"),
                        Images(), quant_format=fmt,
                        activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8)
    np.save(os.path.join(out, "image.npy"), np.random.default_rng(1)
            .standard_normal((1, 3, 224, 224)).astype(np.float32))

    bert, _, _ = transformers_export.build("bert")
    bert.config._attn_implementation = "eager"
    wrapper = transformers_export.TextModel(bert.eval()).eval()
    rng = np.random.default_rng(0)
    ids, mask = transformers_export.make_inputs("text", 3, 7, rng)
    path = os.path.join(out, "bert.onnx")
    with torch.no_grad():
        torch.onnx.export(wrapper, (torch.from_numpy(ids),
                                    torch.from_numpy(mask)), path,
                          opset_version=17, dynamo=False,
                          input_names=["input_ids", "attention_mask"],
                          output_names=["last_hidden_state"])
    quantize_dynamic(path, os.path.join(out, "bert-dynamic.onnx"),
                     weight_type=QuantType.QInt8)
    np.save(os.path.join(out, "input_ids.npy"), ids)
    np.save(os.path.join(out, "attention_mask.npy"), mask)


if __name__ == "__main__":
    main()
