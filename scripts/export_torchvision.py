#!/usr/bin/env python3
"""Exports a torchvision model with random weights to ONNX, with a reference.

Writes MODEL.onnx, an input (input_0.npy, N(0,1) of shape 1x3xHxW, float32)
and PyTorch's output on it (reference_0.npy) into --out-dir. Weights come from
torchvision's own initialisation under a fixed seed (no downloads).

With --dynamic-batch the model's batch dimension is symbolic ("batch",
through torch.onnx.export's dynamic_axes), and one more input/reference pair
is written per --batch size: input_b<N>.npy and reference_b<N>.npy.
"""
import argparse
import os
import sys

import numpy as np
import torch
import torchvision


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="squeezenet1_1",
                        help="torchvision.models constructor name")
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--image-size", type=int, default=224)
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--export-batch", type=int, default=1,
                        help="batch size of the traced (static) input and of "
                        "input_0.npy/reference_0.npy")
    parser.add_argument("--dynamic-batch", action="store_true",
                        help="export with a symbolic batch dimension")
    parser.add_argument("--batch", type=int, action="append", default=[],
                        help="also write input/reference for this batch "
                        "size (repeatable)")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    constructor = getattr(torchvision.models, args.model, None)
    if constructor is None:
        sys.exit(f"export_torchvision: unknown torchvision model '{args.model}'")
    model = constructor(weights=None).eval()
    x = torch.randn(args.export_batch, 3, args.image_size, args.image_size)
    with torch.no_grad():
        reference = model(x)

    os.makedirs(args.out_dir, exist_ok=True)
    onnx_path = os.path.join(args.out_dir, f"{args.model}.onnx")
    dynamic_axes = ({"input": {0: "batch"}, "output": {0: "batch"}}
                    if args.dynamic_batch else None)
    torch.onnx.export(model, x, onnx_path, opset_version=args.opset,
                      input_names=["input"], output_names=["output"],
                      do_constant_folding=True, dynamic_axes=dynamic_axes)
    np.save(os.path.join(args.out_dir, "input_0.npy"), x.numpy())
    np.save(os.path.join(args.out_dir, "reference_0.npy"), reference.numpy())
    for batch in args.batch:
        xb = torch.randn(batch, 3, args.image_size, args.image_size)
        with torch.no_grad():
            rb = model(xb)
        np.save(os.path.join(args.out_dir, f"input_b{batch}.npy"), xb.numpy())
        np.save(os.path.join(args.out_dir, f"reference_b{batch}.npy"),
                rb.numpy())
    params = sum(p.numel() for p in model.parameters())
    print(f"exported {args.model} ({params / 1e6:.2f} M parameters, opset "
          f"{args.opset}) to {onnx_path}")


if __name__ == "__main__":
    main()
