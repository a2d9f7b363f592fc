#!/usr/bin/env python3
"""Time from an ONNX file to the first result, per model of issue #26's list.

  .venv/bin/python benchmarks/compile_time.py [--models resnet18,...]
      [--build-dir build] [--work-dir DIR] [--batch 1]

Each model (torchvision's with random weights; BERT-base and GPT-2-small
from Hugging Face `transformers` configs, random weights, sequence 128) is
exported once with torch.onnx (opset 17, static shapes) into the work
directory (default /tmp/mlprog-compile-time). Then, each in a fresh
process, with the wall time of each:

- import: `mlprog-translate --import-onnx MODEL.onnx -o MODEL.mlir` (the
  weights go to the safetensors bundle beside it);
- JIT: `mlprog-run MODEL.mlir --input X.npy` (lowering, LLVM, one call: the
  time a user waits for the first result), with its `--timing` phases;
- AOT: `mlprog-compile MODEL.mlir -o MODEL.so`.

Prints a Markdown table; nothing here is a test.
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# benchmarks/transformers.py would shadow the transformers package.
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]

MODELS = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_large",
          "efficientnet_b0", "convnext_tiny", "vit_b_16", "bert_base",
          "gpt2_small"]


class FirstOutput:
    """Wraps a `transformers` model: input ids and attention mask in, its
    first output out (the last hidden state of BERT, GPT-2's logits). With
    the mask given, the exporter meets no `aten::diff` (transformers'
    padding-free detection)."""

    @staticmethod
    def wrap(model):
        import torch

        class Wrapper(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = model

            def forward(self, input_ids, attention_mask):
                return self.model(input_ids=input_ids,
                                  attention_mask=attention_mask,
                                  use_cache=False)[0]
        return Wrapper().eval()


def build(name, batch):
    """The model and its example input (a tuple)."""
    import torch
    torch.manual_seed(0)
    if name == "bert_base":
        from transformers import BertConfig, BertModel
        model = FirstOutput.wrap(BertModel(BertConfig()).eval())
        return model, (torch.randint(1, 30000, (batch, 128)),
                       torch.ones(batch, 128, dtype=torch.int64))
    if name == "gpt2_small":
        from transformers import GPT2Config, GPT2LMHeadModel
        model = FirstOutput.wrap(GPT2LMHeadModel(GPT2Config()).eval())
        return model, (torch.randint(1, 50000, (batch, 128)),
                       torch.ones(batch, 128, dtype=torch.int64))
    import torchvision
    model = getattr(torchvision.models, name)(weights=None).eval()
    return model, (torch.randn(batch, 3, 224, 224),)


def export(name, batch, work):
    """Exports `name` once; returns the ONNX path and its inputs' .npy
    paths."""
    import torch
    path = os.path.join(work, "%s_b%d.onnx" % (name, batch))
    model, args = build(name, batch)
    inputs = [path[:-5] + "_x%d.npy" % i for i in range(len(args))]
    if os.path.exists(path) and all(map(os.path.exists, inputs)):
        return path, inputs
    # nn.MultiheadAttention's fast path (vit_b_16) has no ONNX export.
    torch.backends.mha.set_fastpath_enabled(False)
    with torch.no_grad():
        torch.onnx.export(model, args, path, opset_version=17, dynamo=False)
    for arg, npy in zip(args, inputs):
        np.save(npy, arg.numpy())
    return path, inputs


def timed(cmd):
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), done.stderr))
    return elapsed, done.stderr


def phase(timing, name):
    """Wall seconds of a top-level phase in a --timing report."""
    for line in timing.splitlines():
        match = re.match(r"\s+([\d.]+) \(\s*[\d.]+%\)\s+(?:[\d.]+ \(\s*[\d.]+"
                         r"%\)\s+)?(\S.*)$", line)
        if match and match.group(2).startswith(name):
            return float(match.group(1))
    return float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--build-dir", default=os.path.join(HERE, "..",
                                                            "build"))
    parser.add_argument("--work-dir", default="/tmp/mlprog-compile-time")
    parser.add_argument("--batch", type=int, default=1)
    args = parser.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    bindir = os.path.join(os.path.abspath(args.build_dir), "bin")
    print("| model | batch | import s | JIT to first result s | lowering s "
          "| LLVM s | AOT compile s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in args.models.split(","):
        onnx_path, inputs = export(name, args.batch, args.work_dir)
        mlir = onnx_path[:-5] + ".mlir"
        import_s, _ = timed([os.path.join(bindir, "mlprog-translate"),
                             "--import-onnx", onnx_path, "-o", mlir])
        jit_s, timing = timed([os.path.join(bindir, "mlprog-run"), mlir,
                               "--timing"] +
                              [a for npy in inputs for a in ("--input", npy)])
        aot_s, _ = timed([os.path.join(bindir, "mlprog-compile"), mlir,
                          "-o", onnx_path[:-5] + ".so"])
        print("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f |" %
              (name, args.batch, import_s, jit_s, phase(timing, "lowering"),
               phase(timing, "JIT compilation"), aot_s), flush=True)


if __name__ == "__main__":
    main()
