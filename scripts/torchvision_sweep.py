#!/usr/bin/env python3
"""Exports torchvision's models to ONNX with a dynamic batch axis, imports
each with mlprog (nothing pinned), runs batch 1 and 3 through one compiled
program and compares with PyTorch (issue "Real ONNX models").

  .venv/bin/python scripts/torchvision_sweep.py [--kinds classification,
      segmentation,video] [--exporters legacy17,dynamo18] [--models RE]
      [--max-params 100] [--results FILE.jsonl] [--timeout 900]
      [--build-dir build]

Every model is built with random weights (seed 0, torchvision's own
initialisation, nothing downloaded; Linear layers it initialises to zero,
the ViT heads, get N(0, 0.02)) in eval mode, with nn.MultiheadAttention's
fused fast path off (the legacy exporter cannot write it); classification
models get 224x224 images (299 for inception_v3, the size each ViT/Swin
variant declares), segmentation models 224x224 (their `out` output), video
models 16 frames of 112x112 (mvit, swin3d and s3d: 224x224; s3d's pooling
kernel is larger than 112x112 makes it). Exporters: `legacy17`
(torch.onnx.export(dynamo=False), opset 17, dynamic_axes) and `dynamo18`
(torch 2.x's default exporter, opset 18, Dim.AUTO on the batch). mlprog:
`mlprog.import_onnx` with nothing pinned, `mlprog.compile`, then batch 1
and batch 3 on the same executable, each compared with PyTorch at rtol
1e-4 (atol 1e-4 times the largest |output|: random-weight networks have
outputs near zero).

Each model runs in its own process (a crash or an error is that model's
result). One JSON line per model and exporter goes to --results (resumed:
models already there are skipped) and one line per model is printed:
  pass     both batches match ("degenerate reference" when PyTorch's
           output does not depend on the image)
  mismatch a batch differs (the largest error is shown)
  error    export, import, compile or run failed (the first line is shown)
  skipped  over --max-params (not written to --results)
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

SIZES = {"inception_v3": 299, "vit_h_14": 518}


def discover(kinds):
    import torchvision
    modules = {"classification": torchvision.models,
               "segmentation": torchvision.models.segmentation,
               "video": torchvision.models.video}
    names = []
    for kind in kinds:
        for name in torchvision.models.list_models(module=modules[kind]):
            names.append((kind, name))
    return names


def worker(kind, name, exporter, out, max_params):
    """Exports, runs and compares one model; prints one JSON line."""
    import logging
    import warnings
    import numpy as np
    import torch
    import torchvision
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    torch.manual_seed(0)
    # nn.MultiheadAttention's fused inference path (vit_*) is one
    # aten::_native_multi_head_attention that the TorchScript exporter
    # cannot write; the unfused path computes the same function.
    torch.backends.mha.set_fastpath_enabled(False)
    # Segmentation models would download ImageNet weights for their
    # backbone by default.
    extra = {"weights_backbone": None} if kind == "segmentation" else {}
    model = torchvision.models.get_model(name, weights=None, **extra).eval()
    if kind == "segmentation" and hasattr(model, "aux_classifier"):
        model.aux_classifier = None
    # Layers initialised to zero (the ViT heads) would make every output 0
    # and every comparison pass: they get small random weights instead.
    with torch.no_grad():
        for layer in model.modules():
            if isinstance(layer, torch.nn.Linear) and not layer.weight.any():
                torch.nn.init.normal_(layer.weight, std=0.02)
                if layer.bias is not None:
                    torch.nn.init.normal_(layer.bias, std=0.02)
    params = sum(p.numel() for p in model.parameters())
    result = {"kind": kind, "model": name, "exporter": exporter,
              "params_m": round(params / 1e6, 2)}
    if params / 1e6 > max_params:
        result["status"] = "skipped"
        result["detail"] = f"over --max-params {max_params:g} M"
        print("RESULT " + json.dumps(result), flush=True)
        return

    class Out(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            y = self.m(x)
            return y["out"] if isinstance(y, dict) else y

    wrapper = Out(model).eval()
    if kind == "video":
        size = 224 if name.startswith(("mvit", "swin3d", "s3d")) else 112
        shape = (3, 16, size, size)
    else:
        size = SIZES.get(name, 224)
        if hasattr(model, "image_size"):
            size = int(model.image_size)
        shape = (3, size, size)
    gen = torch.Generator().manual_seed(1)
    inputs = {b: torch.randn((b,) + shape, generator=gen) for b in (1, 3)}
    path = os.path.join(out, f"{name}-{exporter}.onnx")
    stage = "export"
    try:
        with torch.no_grad():
            refs = {b: wrapper(x).numpy() for b, x in inputs.items()}
            # A reference that does not depend on the image (googlenet's
            # random weights drive every feature to 0, leaving the
            # classifier's bias) checks little: the result says so.
            if np.array_equal(refs[3][0], refs[3][1]):
                result["degenerate"] = True
            example = (inputs[3],)
            if exporter == "legacy17":
                torch.onnx.export(wrapper, example, path, opset_version=17,
                                  dynamo=False, input_names=["input"],
                                  output_names=["output"],
                                  dynamic_axes={"input": {0: "batch"},
                                                "output": {0: "batch"}})
            else:
                program = torch.onnx.export(
                    wrapper, example, dynamo=True, opset_version=18,
                    input_names=["input"], output_names=["output"],
                    dynamic_shapes=({0: torch.export.Dim.AUTO},),
                    verbose=False)
                program.save(path)
        del model, wrapper
        stage = "import"
        import mlprog
        start = time.time()
        module = mlprog.import_onnx(path)
        stage = "compile"
        exe = mlprog.compile(module, progress=False)
        result["compile_s"] = round(time.time() - start, 1)
        stage = "run"
        worst = 0.0
        status = "pass"
        for b, x in inputs.items():
            got = exe(x.numpy())
            want = refs[b]
            if got.shape != want.shape:
                status = "mismatch"
                result["detail"] = f"batch {b}: shape {got.shape} != {want.shape}"
                break
            scale = float(np.abs(want).max()) or 1.0
            err = float(np.abs(got - want).max())
            worst = max(worst, err / scale)
            if not np.allclose(got, want, rtol=1e-4, atol=1e-4 * scale):
                status = "mismatch"
        result["status"] = status
        result["max_err_rel_to_max"] = float(f"{worst:.3g}")
    except Exception as e:  # noqa: BLE001 (the model's result)
        text = str(e).strip().splitlines()
        result["status"] = "error"
        result["detail"] = f"{stage}: " + (next((l for l in text if "error" in l),
                                                text[0] if text else type(e).__name__))[:300]
    finally:
        for f in os.listdir(out):
            if f.startswith(f"{name}-{exporter}"):
                os.remove(os.path.join(out, f))
    print("RESULT " + json.dumps(result), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--kinds", default="classification,segmentation,video")
    p.add_argument("--exporters", default="legacy17,dynamo18")
    p.add_argument("--models", default="", help="regular expression")
    p.add_argument("--max-params", type=float, default=1e9,
                   help="skip models with more million parameters")
    p.add_argument("--results", default="torchvision-sweep.jsonl")
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("--work-dir", default="/tmp/mlprog-tv-sweep")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p.add_argument("--build-dir", default=os.path.join(root, "build"),
                   help="the build whose Python package (BUILD/python) runs")
    p.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    sys.path.insert(0, os.path.join(os.path.abspath(args.build_dir), "python"))
    if args.worker:
        worker(*args.worker, args.work_dir, args.max_params)
        return 0
    done = set()
    if os.path.exists(args.results):
        for line in open(args.results):
            r = json.loads(line)
            done.add((r["model"], r["exporter"]))
    sizes = {}
    for kind, name in discover(args.kinds.split(",")):
        if args.models and not re.search(args.models, name):
            continue
        for exporter in args.exporters.split(","):
            if (name, exporter) in done:
                continue
            start = time.time()
            try:
                proc = subprocess.run(
                    [sys.executable, os.path.abspath(__file__), "--worker",
                     kind, name, exporter, "--work-dir", args.work_dir,
                     "--max-params", str(args.max_params),
                     "--build-dir", args.build_dir],
                    capture_output=True, text=True, timeout=args.timeout)
                lines = [l for l in proc.stdout.splitlines()
                         if l.startswith("RESULT ")]
                if lines:
                    r = json.loads(lines[-1][7:])
                else:
                    tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
                    r = {"kind": kind, "model": name, "exporter": exporter,
                         "status": "error",
                         "detail": f"exit {proc.returncode}: {tail[:300]}"}
            except subprocess.TimeoutExpired:
                r = {"kind": kind, "model": name, "exporter": exporter,
                     "status": "error", "detail": f"timeout {args.timeout} s"}
            r["seconds"] = round(time.time() - start)
            if r["status"] != "skipped":
                with open(args.results, "a") as f:
                    f.write(json.dumps(r) + "\n")
            print(f"{r['kind']:14} {r['model']:28} {r['exporter']:9} "
                  f"{r['status']:8} {r.get('max_err_rel_to_max', '')} "
                  f"{'(degenerate reference) ' if r.get('degenerate') else ''}"
                  f"{r.get('detail', '')}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
