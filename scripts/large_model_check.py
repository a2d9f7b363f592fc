#!/usr/bin/env python3
"""Imports, compiles and runs a LLaMA-style model of about 1.1B parameters
(TinyLlama-1.1B's shape, random weights) exported to ONNX with its weights
as external data, and reports the peak memory of each phase against the
weights' size and the logits against PyTorch's.

  .venv/bin/python scripts/large_model_check.py [--build-dir build]
      [--work-dir DIR] [--layers N] [--hidden H] [--ffn F] [--keep]

The export and PyTorch's reference run in this process (torch 2.9 from the
project's .venv, transformers' LlamaForCausalLM built from its config,
seed 0, nothing downloaded; `torch.onnx.export(dynamo=False, opset 17,
external_data=True)`), then the model is freed. mlprog's phases run as
child processes, each measured on its own (peak RSS from wait4):
  import   mlprog-translate --import-onnx model.onnx -o model.mlir
  run      mlprog-run model.mlir --input input_ids.npy --input
           attention_mask.npy (JIT compile + one forward pass)
The weights stay in the exporter's external data file: the import records
where each tensor lies and mlprog-run memory-maps them (above
--prepack-weights-limit they are not copied into the compiler).
Defaults: 22 layers, hidden 2048, ffn 5632, 32 heads (4 key/value heads),
vocabulary 32000, sequence 8: 1.10 B parameters, 4.4 GB of fp32 weights.
Needs about 15 GB of memory for the export and 9 GB of disk in --work-dir.
"""
import argparse
import os
import resource  # noqa: F401  (wait4's rusage)
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np


def export(args, out):
    import torch
    import transformers as tf
    torch.manual_seed(0)
    config = tf.LlamaConfig(
        vocab_size=args.vocab, hidden_size=args.hidden,
        intermediate_size=args.ffn, num_hidden_layers=args.layers,
        num_attention_heads=args.heads, num_key_value_heads=args.kv_heads,
        max_position_embeddings=2048, tie_word_embeddings=False)
    config._attn_implementation = "eager"
    model = tf.LlamaForCausalLM(config).eval()
    params = sum(p.numel() for p in model.parameters())

    class Logits(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask):
            return self.m(input_ids=input_ids, attention_mask=attention_mask,
                          use_cache=False).logits

    wrapper = Logits(model).eval()
    rng = np.random.default_rng(0)
    ids = rng.integers(0, args.vocab, (1, args.seq), dtype=np.int64)
    mask = np.ones_like(ids)
    np.save(os.path.join(out, "input_ids.npy"), ids)
    np.save(os.path.join(out, "attention_mask.npy"), mask)
    inputs = (torch.from_numpy(ids), torch.from_numpy(mask))
    with torch.no_grad():
        ref = wrapper(*inputs).numpy()
        np.save(os.path.join(out, "reference.npy"), ref)
        start = time.time()
        torch.onnx.export(wrapper, inputs,
                          os.path.join(out, "model.onnx"), opset_version=17,
                          dynamo=False, external_data=True,
                          input_names=["input_ids", "attention_mask"],
                          output_names=["logits"])
    np.save(os.path.join(out, "parameters.npy"), np.int64(params))
    print(f"export: {params / 1e9:.3f} B parameters, "
          f"{time.time() - start:.0f} s", flush=True)


def measure(cmd):
    """Runs `cmd`; returns (status, seconds, peak RSS bytes, stderr)."""
    start = time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, time.time() - start, usage.ru_maxrss * 1024, err


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p.add_argument("--build-dir", default=os.path.join(root, "build"))
    p.add_argument("--work-dir")
    p.add_argument("--layers", type=int, default=22)
    p.add_argument("--hidden", type=int, default=2048)
    p.add_argument("--ffn", type=int, default=5632)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=4)
    p.add_argument("--vocab", type=int, default=32000)
    p.add_argument("--seq", type=int, default=8)
    p.add_argument("--keep", action="store_true",
                   help="keep the work directory")
    p.add_argument("--reuse", action="store_true",
                   help="reuse the export a kept --work-dir holds")
    p.add_argument("--export-only", action="store_true",
                   help=argparse.SUPPRESS)
    args = p.parse_args()
    work = args.work_dir or tempfile.mkdtemp(prefix="mlprog-large-")
    os.makedirs(work, exist_ok=True)
    if args.export_only:
        export(args, work)
        return 0
    try:
        # The export runs in its own process: a child forked from a process
        # holding the PyTorch model would start with its resident pages and
        # report them as its own peak.
        if not (args.reuse and
                os.path.exists(os.path.join(work, "reference.npy"))):
            subprocess.run([sys.executable, os.path.abspath(__file__),
                            "--export-only", "--work-dir", work,
                            "--layers", str(args.layers),
                            "--hidden", str(args.hidden),
                            "--ffn", str(args.ffn), "--heads", str(args.heads),
                            "--kv-heads", str(args.kv_heads),
                            "--vocab", str(args.vocab),
                            "--seq", str(args.seq)], check=True)
        params = int(np.load(os.path.join(work, "parameters.npy")))
        weights = sum(os.path.getsize(os.path.join(work, f))
                      for f in os.listdir(work)
                      if os.path.isfile(os.path.join(work, f)) and
                      not f.startswith("model.") and not f.endswith(".npy"))
        bin_dir = os.path.join(args.build_dir, "bin")
        mlir = os.path.join(work, "model.mlir")
        out = os.path.join(work, "out")
        phases = [
            ("import", [os.path.join(bin_dir, "mlprog-translate"),
                        "--import-onnx", os.path.join(work, "model.onnx"),
                        "-o", mlir]),
            ("compile + run", [os.path.join(bin_dir, "mlprog-run"), mlir,
                               "--input",
                               os.path.join(work, "input_ids.npy"),
                               "--input",
                               os.path.join(work, "attention_mask.npy"),
                               "--output-dir", out]),
        ]
        print(f"weights: {weights / 1e9:.2f} GB in external data "
              f"({params / 1e9:.3f} B parameters)")
        worst = 0.0
        for name, cmd in phases:
            rc, secs, rss, err = measure(cmd)
            if rc != 0:
                sys.exit(f"{name} failed ({rc}): {err.strip()}")
            worst = max(worst, rss / weights)
            extra = (f", IR {os.path.getsize(mlir) / 1e3:.0f} kB"
                     if name == "import" else "")
            print(f"{name}: {secs:.1f} s, peak RSS {rss / 1e9:.2f} GB "
                  f"({rss / weights:.2f}x the weights){extra}", flush=True)
        got = np.load(os.path.join(out, "output_0.npy"))
        ref = np.load(os.path.join(work, "reference.npy"))
        err = float(np.max(np.abs(got.astype(np.float64) - ref)))
        scale = float(np.max(np.abs(ref)))
        ok = got.shape == ref.shape and np.allclose(got, ref, rtol=1e-4,
                                                    atol=1e-4 * scale)
        same_argmax = bool(np.all(got.argmax(-1) == ref.argmax(-1)))
        print(f"logits {got.shape}: max abs error {err:.2e} (max |ref| "
              f"{scale:.2f}), next tokens identical: {same_argmax}")
        print(f"peak RSS at most {worst:.2f}x the weights; "
              f"{'MATCH' if ok else 'MISMATCH'}")
        return 0 if ok and worst <= 1.5 else 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
