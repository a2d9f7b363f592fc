"""Exports a torchvision detector to ONNX as users do, with PyTorch's
detections for one image:

  .venv/bin/python detection_export.py MODEL OUT_DIR [SIZE [OPSET]]

MODEL: a torchvision detection model (ssdlite320_mobilenet_v3_large,
fasterrcnn_mobilenet_v3_large_320_fpn, retinanet_resnet50_fpn,
maskrcnn_resnet50_fpn, ...), built with random weights (seed 0, nothing
downloaded). A ResNet backbone's BatchNorm statistics are calibrated on
the image (one pass in training mode: untrained statistics let ResNet-50
features grow until every head saturates). Random heads score every anchor
almost alike, which makes the selection a tie-break; their weights are
drawn as N(0, 1 / fan_in) and their biases as N(0, 0.5^2) so that scores
differ (RetinaNet's classification logits are further scaled by 0.2, the
R-CNNs' box regressions, proposal and final, by 0.1), and
the score thresholds are 0 so that the two-stage detectors keep detections.
The image is coloured rectangles on a dark background plus faint noise, so
that no two anchors see exactly the same pixels. torch.onnx.export(dynamo=False,
opset OPSET, default 17) of the model on a list of one SIZExSIZE image
(default 320).

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
    opset = int(sys.argv[4]) if len(sys.argv) > 4 else 17
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
    # Coloured rectangles on a dark background: features that differ from
    # place to place (uniform noise gives every region the same response).
    gen = torch.Generator().manual_seed(1)
    image = torch.full((3, size, size), 0.1)
    for _ in range(6):
        x0, y0 = torch.randint(0, size * 3 // 4, (2,), generator=gen)
        w, h = torch.randint(size // 8, size // 3, (2,), generator=gen)
        image[:, y0:y0 + h, x0:x0 + w] = torch.rand(3, 1, 1, generator=gen)
    # Faint noise: no two places look exactly alike, so no two anchors tie.
    image += 0.02 * torch.rand(image.shape, generator=gen)
    with torch.no_grad():
        if "resnet" in name or name.startswith("ssd"):
            # Untrained BatchNorm (mean 0, variance 1) lets a ResNet-50's
            # features grow to a standard deviation of 40, which saturates
            # every head, and clamps SSDlite's MobileNet features so that
            # its 300 best scores took 9 distinct values: calibrate the
            # running statistics on the image. A layer that sees one value
            # per channel (SSDlite's 1x1 extra layers) keeps its own.
            def calibrate_if_spatial(m, inputs):
                m.training = inputs[0].numel() > inputs[0].shape[1]
            hooks = []
            for m in model.backbone.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.reset_running_stats()
                    m.momentum = None  # a plain average
                    hooks.append(
                        m.register_forward_pre_hook(calibrate_if_spatial))
            model.backbone.train()
            model.backbone(model.transform([image])[0].tensors)
            model.backbone.eval()
            for hook in hooks:
                hook.remove()
        # Heads: weights N(0, 1 / fan_in), biases N(0, 0.5^2), so that scores
        # spread out instead of tying at the initial prior.
        for pname, p in model.named_parameters():
            if "head" in pname or "predictor" in pname:
                if p.dim() > 1:
                    p.normal_(0, p[0].numel() ** -0.5)
                else:
                    p.normal_(0, 0.5)
        for pname, p in model.named_parameters():
            if "bbox_pred" in pname:
                # R-CNN box deltas feed exp() and are scaled by the 800-pixel
                # image: at full width they turn float noise into different
                # proposals, so that no two runtimes agree.
                p.mul_(0.1)
        if name.startswith("retinanet"):
            # Its top detections are the far tail of 91 scores for each of
            # ~90000 anchors: narrower logits keep them off sigmoid's
            # saturation, where float32 scores tie.
            model.head.classification_head.cls_logits.weight.mul_(0.2)
        reference = model([image])[0]
        torch.onnx.export(model, ([image],), os.path.join(out, "model.onnx"),
                          opset_version=opset, dynamo=False,
                          input_names=["image"],
                          output_names=list(reference.keys()))
    np.save(os.path.join(out, "image.npy"), image.numpy())
    np.savez(os.path.join(out, "reference.npz"),
             **{k: v.numpy() for k, v in reference.items()})


if __name__ == "__main__":
    main()
