"""Exports a torchvision detector to ONNX as users do, with PyTorch's
detections for one image:

  .venv/bin/python detection_export.py MODEL OUT_DIR [SIZE]

MODEL: a torchvision detection model (ssdlite320_mobilenet_v3_large,
fasterrcnn_mobilenet_v3_large_320_fpn, retinanet_resnet50_fpn,
maskrcnn_resnet50_fpn, ...), built with random weights (seed 0, nothing
downloaded). Random heads score every anchor almost alike, which makes the
selection a tie-break; their weights are drawn wider (N(0, 0.1), biases
N(0, 0.5)) so that scores differ, and the score thresholds are 0 so that
the two-stage detectors keep detections. torch.onnx.export(dynamo=False,
opset 17) of the model on a list of one SIZExSIZE image (default 320).

Writes OUT_DIR/model.onnx, OUT_DIR/image.npy and OUT_DIR/reference.npz
(PyTorch's outputs by name: boxes, labels, scores[, masks]).
"""
import logging
import os
import sys
import warnings

import numpy as np
import torch
import torchvision


def main():
    name, out = sys.argv[1], sys.argv[2]
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 320
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    extra = {}
    if name.startswith(("fasterrcnn", "maskrcnn", "keypointrcnn")):
        extra["box_score_thresh"] = 0.0
    if name.startswith(("retinanet", "fcos", "ssd")):
        extra["score_thresh"] = 0.0
    model = torchvision.models.get_model(name, weights=None,
                                         weights_backbone=None,
                                         **extra).eval()
    with torch.no_grad():
        for pname, p in model.named_parameters():
            if "head" in pname or "predictor" in pname:
                p.normal_(0, 0.1 if p.dim() > 1 else 0.5)
    # Coloured rectangles on a dark background: features that differ from
    # place to place (uniform noise gives every region the same response).
    gen = torch.Generator().manual_seed(1)
    image = torch.full((3, size, size), 0.1)
    for _ in range(6):
        x0, y0 = torch.randint(0, size * 3 // 4, (2,), generator=gen)
        w, h = torch.randint(size // 8, size // 3, (2,), generator=gen)
        image[:, y0:y0 + h, x0:x0 + w] = torch.rand(3, 1, 1, generator=gen)
    with torch.no_grad():
        reference = model([image])[0]
        torch.onnx.export(model, ([image],), os.path.join(out, "model.onnx"),
                          opset_version=17, dynamo=False,
                          input_names=["image"],
                          output_names=list(reference.keys()))
    np.save(os.path.join(out, "image.npy"), image.numpy())
    np.savez(os.path.join(out, "reference.npz"),
             **{k: v.numpy() for k, v in reference.items()})


if __name__ == "__main__":
    main()
