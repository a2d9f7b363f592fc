#!/usr/bin/env python3
"""Models converted by coremltools from PyTorch, run on mlprog and compared
with PyTorch.

  .venv-coreml/bin/python scripts/coreml_models.py [--models a,b] [--out DIR]

For each model (torchvision resnet18 and mobilenet_v2 at 224x224, and a
2-layer transformer encoder, all with random weights and batch-norm
statistics drawn at random so that activations keep their scale): trace it
with torch.jit.trace, convert it with `ct.convert(..., convert_to=
"mlprogram")` twice (compute precision fp32 and fp16), save the
`.mlpackage`, import it with `mlprog.import_mil`, JIT-compile it, run it on
a random input and compare with PyTorch's output in fp32.

The error is reported relative to the largest reference magnitude,
max|y - ref| / max|ref|, which does not blow up where outputs cross zero.
Tolerances: 1e-4 for fp32 programs, 3e-3 for fp16 programs. An fp16
program rounds every intermediate tensor to 11 significant bits (relative
step 4.9e-4); mlprog accumulates 16-bit products in f32 and rounds once, and
what remains compounds over the 18-53 layers of these networks to about
1e-3 (coremltools' own converter tests allow fp16 programs rtol 5e-2).

Run with .venv-coreml's Python (Debian's torch 1.13 and torchvision, plus
coremltools 9.0; scripts/setup-venv.sh --with coreml) and the build's
Python module on PYTHONPATH (default: build/python next to this script).
Exit status 1 when a model fails to import or run, or is out of tolerance.
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCE = {"fp32": 1e-4, "fp16": 3e-3}


def randomize_batch_norms(model, torch):
    """Batch-norm statistics and affine parameters drawn at random, as a
    trained network has them (fresh ones are 0/1 and make many torchvision
    networks' outputs vanish)."""
    gen = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(n, generator=gen) * 0.1)


def make_model(name, torch):
    torch.manual_seed(0)
    if name in ("resnet18", "mobilenet_v2"):
        import torchvision
        model = getattr(torchvision.models, name)(weights=None)
        randomize_batch_norms(model, torch)
        return model.eval(), torch.randn(1, 3, 224, 224)
    if name == "transformer_encoder":
        layer = torch.nn.TransformerEncoderLayer(
            d_model=64, nhead=4, dim_feedforward=128, dropout=0.0,
            batch_first=True)
        model = torch.nn.TransformerEncoder(layer, num_layers=2,
                                            enable_nested_tensor=False)
        return model.eval(), torch.randn(1, 16, 64)
    raise ValueError(f"unknown model {name}")


def run_model(name, precision, out_dir, torch, ct, mlprog, np):
    model, x = make_model(name, torch)
    with torch.no_grad():
        reference = model(x).numpy()
    # Traced with gradients on: under no_grad, torch's transformer layers
    # take a fused fast path (aten::_transformer_encoder_layer_fwd) that
    # coremltools does not convert.
    traced = torch.jit.trace(model, x, check_trace=False)
    start = time.time()
    mlmodel = ct.convert(
        traced, inputs=[ct.TensorType(name="x", shape=tuple(x.shape))],
        convert_to="mlprogram", minimum_deployment_target=ct.target.iOS16,
        compute_precision=(ct.precision.FLOAT32 if precision == "fp32"
                           else ct.precision.FLOAT16),
        skip_model_load=True)
    path = os.path.join(out_dir, f"{name}-{precision}.mlpackage")
    mlmodel.save(path)
    convert_s = time.time() - start
    start = time.time()
    exe = mlprog.compile(mlprog.import_mil(path), progress=False)
    compile_s = time.time() - start
    fn = exe.main
    arg = x.numpy().astype(fn.signature["inputs"][0]["dtype"])
    y = fn(arg)
    if isinstance(y, tuple):
        y = y[0]
    y = np.asarray(y, np.float32)
    if y.shape != reference.shape:
        raise RuntimeError(f"shape {y.shape}, expected {reference.shape}")
    error = float(np.abs(y - reference).max() / np.abs(reference).max())
    return error, convert_s, compile_s


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--models",
                        default="resnet18,mobilenet_v2,transformer_encoder")
    parser.add_argument("--precisions", default="fp32,fp16")
    parser.add_argument("--out", default=None,
                        help="keep the .mlpackage files here")
    parser.add_argument("--build-dir", default=os.path.join(HERE, "..",
                                                            "build"))
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(os.path.abspath(args.build_dir),
                                    "python"))
    import numpy as np
    import torch
    import coremltools as ct
    import mlprog

    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or tmp
        os.makedirs(out, exist_ok=True)
        print("| model | precision | max abs error / max abs reference | "
              "tolerance | convert s | import+compile s |")
        print("| --- | --- | --- | --- | --- | --- |")
        for name in args.models.split(","):
            for precision in args.precisions.split(","):
                try:
                    error, convert_s, compile_s = run_model(
                        name, precision, out, torch, ct, mlprog, np)
                except Exception as e:  # an import or run error is a result
                    failures += 1
                    first = str(e).strip().splitlines()[0][:200]
                    print(f"| {name} | {precision} | FAILED: {first} | | | |")
                    continue
                ok = error <= TOLERANCE[precision]
                failures += not ok
                print(f"| {name} | {precision} | {error:.2e}"
                      f"{'' if ok else ' (OUT OF TOLERANCE)'} | "
                      f"{TOLERANCE[precision]:g} | {convert_s:.1f} | "
                      f"{compile_s:.1f} |", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
