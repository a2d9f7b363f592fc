#!/usr/bin/env python3
"""Real architectures as users save them with torch 2.x, imported by mlprog's
TorchScript importer, run and compared with eager PyTorch.

  .venv/bin/python scripts/torchscript_models.py [--models a,b] [--out DIR]
      [--build-dir build] [--torch13-python /usr/bin/python3]

For each model (random weights, seeded; batch-norm statistics drawn at
random so that activations keep their scale): make its TorchScript with
torch.jit.trace or torch.jit.script (the column `how`), save it with
torch.jit.save, import the saved archive with `mlprog.import_torchscript`,
JIT-compile it (-O1), run it on the example input and compare with the
eager model's output. The error is max|y - ref| / max|ref| (it does not
blow up where outputs cross zero); a model passes at 1e-4.

With --torch13-python, each saved archive is also loaded by that
interpreter's torch (Debian's torch 1.13, the libtorch mlprog linked until
session 13): the `1.13 loads` column is the measurement behind "Which
libtorch" in docs/importers/torchscript.md.

Run with .venv's Python (torch 2.9.1, the libtorch the importer links) and
the build's Python module on PYTHONPATH (default: build/python next to this
script). Exit status 1 when a model fails or is out of tolerance.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCE = 1e-4


def randomize_batch_norms(model, torch):
    """Batch-norm statistics and affine parameters drawn at random, as a
    trained network has them (fresh ones are 0/1 and make many torchvision
    networks' outputs vanish)."""
    gen = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            if m.weight is not None:
                m.weight.data.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                m.bias.data.copy_(torch.randn(n, generator=gen) * 0.1)


def define_modules(torch):
    """The hand-written architectures: a BERT-style encoder, a GPT-style
    decoder (both with position ids from x.shape[1] and
    scaled_dot_product_attention) and an LSTM tagger."""
    nn = torch.nn
    F = torch.nn.functional

    class Block(nn.Module):
        def __init__(self, d, heads, causal):
            super().__init__()
            self.heads = heads
            self.causal = causal
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.ln1 = nn.LayerNorm(d)
            self.ln2 = nn.LayerNorm(d)
            self.fc1 = nn.Linear(d, 4 * d)
            self.fc2 = nn.Linear(4 * d, d)

        def forward(self, x):
            b, s, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
            q = q.view(b, s, self.heads, d // self.heads).transpose(1, 2)
            k = k.view(b, s, self.heads, d // self.heads).transpose(1, 2)
            v = v.view(b, s, self.heads, d // self.heads).transpose(1, 2)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
            x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    class Transformer(nn.Module):
        """BERT-style (causal=False, token-type embedding, pooled tanh
        head) or GPT-style (causal=True, tied LM head)."""

        def __init__(self, causal, vocab=1000, d=128, heads=4, layers=2):
            super().__init__()
            self.causal = causal
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(512, d)
            self.blocks = nn.ModuleList(
                [Block(d, heads, causal) for _ in range(layers)])
            self.ln = nn.LayerNorm(d)
            self.pool = nn.Linear(d, d)

        def forward(self, ids):
            positions = torch.arange(ids.shape[1], device=ids.device)
            x = self.tok(ids) + self.pos(positions)[None]
            for block in self.blocks:
                x = block(x)
            x = self.ln(x)
            if self.causal:
                return x @ self.tok.weight.t()
            return torch.tanh(self.pool(x[:, 0]))

    class LSTMTagger(nn.Module):
        def __init__(self, vocab=500, d=64, hidden=64, tags=12):
            super().__init__()
            self.emb = nn.Embedding(vocab, d)
            self.lstm = nn.LSTM(d, hidden, num_layers=2, batch_first=True,
                                bidirectional=True)
            self.out = nn.Linear(2 * hidden, tags)

        def forward(self, ids):
            h, _ = self.lstm(self.emb(ids))
            return F.log_softmax(self.out(h), dim=-1)

    return Transformer, LSTMTagger


def make_model(name, torch):
    """(model, example input, how) for `name`; `how` is "trace" or
    "script"."""
    torch.manual_seed(0)
    import torchvision
    tv = torchvision.models
    image = torch.randn(1, 3, 224, 224)
    if name in ("resnet18", "mobilenet_v3_small", "efficientnet_b0",
                "vit_b_16", "swin_t"):
        model = getattr(tv, name)(weights=None)
        how = "trace"
    elif name in ("fcn_resnet50", "deeplabv3_mobilenet_v3_large",
                  "lraspp_mobilenet_v3_large"):
        model = getattr(tv.segmentation, name)(weights=None,
                                               weights_backbone=None)
        image = torch.randn(1, 3, 224, 224)
        how = "trace"
    else:
        Transformer, LSTMTagger = define_modules(torch)
        ids = torch.randint(0, 500, (2, 16))
        if name == "bert_encoder":
            return Transformer(causal=False).eval(), ids, "script"
        if name == "gpt_decoder":
            return Transformer(causal=True).eval(), ids, "script"
        if name == "lstm_tagger":
            return LSTMTagger().eval(), ids, "script"
        raise SystemExit("unknown model '%s'" % name)
    randomize_batch_norms(model, torch)
    return model.eval(), image, how


MODELS = ["resnet18", "mobilenet_v3_small", "efficientnet_b0",
          "fcn_resnet50", "deeplabv3_mobilenet_v3_large",
          "lraspp_mobilenet_v3_large", "vit_b_16", "swin_t", "bert_encoder",
          "gpt_decoder", "lstm_tagger"]


def first_tensor(value, torch):
    """The first tensor of a model output (segmentation models return
    {"out": ..., "aux": ...})."""
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, dict):
        return first_tensor(next(iter(value.values())), torch)
    if isinstance(value, (list, tuple)):
        return first_tensor(value[0], torch)
    raise TypeError(type(value))


def torch13_loads(python, path):
    """Whether `python`'s torch (Debian's 1.13) loads the archive at
    `path`; the first line of its error otherwise."""
    code = "import sys, torch; torch.jit.load(sys.argv[1])"
    result = subprocess.run([python, "-c", code, path], capture_output=True,
                            text=True, timeout=600)
    if result.returncode == 0:
        return "yes"
    lines = [l.strip() for l in result.stderr.splitlines() if l.strip()]
    for i, line in enumerate(lines):
        if "Error" in line:
            if line.endswith(":") and i + 1 < len(lines):
                line += " " + lines[i + 1]
            return "no: " + line[:100]
    return "no: " + (lines[-1][:100] if lines else "failed")


def run_model(name, out_dir, args, torch, mlprog, np):
    model, example, how = make_model(name, torch)
    with torch.no_grad():
        reference = first_tensor(model(example), torch).numpy()
        if how == "trace":
            scripted = torch.jit.trace(model, example, strict=False)
        else:
            scripted = torch.jit.script(model)
    path = os.path.join(out_dir, name + ".pt")
    torch.jit.save(scripted, path)
    row = dict(model=name, how=how)
    if args.torch13_python:
        row["torch13"] = torch13_loads(args.torch13_python, path)
    start = time.time()
    try:
        module = mlprog.import_torchscript(
            path, input_shapes=[list(example.shape)],
            input_dtypes=[str(example.dtype).replace("torch.", "")])
        row["import_s"] = time.time() - start
        exe = mlprog.compile(module, opt_level=1)
        outputs = exe.forward(example.numpy())
    except mlprog.Error as err:
        row["status"] = "error: " + str(err).splitlines()[0][:160]
        return row
    got = outputs[0] if isinstance(outputs, (list, tuple)) else outputs
    if got.shape != reference.shape:
        row["status"] = "shape %s, expected %s" % (got.shape, reference.shape)
        return row
    scale = float(np.abs(reference).max()) or 1.0
    error = float(np.abs(got.astype(np.float64) - reference).max()) / scale
    row["error"] = error
    row["status"] = "pass" if error <= TOLERANCE else "out of tolerance"
    return row


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated subset of: " + ", ".join(MODELS))
    parser.add_argument("--out", default=None,
                        help="keep the saved archives in DIR")
    parser.add_argument("--build-dir", default=os.path.join(HERE, "..",
                                                            "build"))
    parser.add_argument("--torch13-python", default=None,
                        help="also try loading each archive with this "
                        "interpreter's torch (e.g. /usr/bin/python3)")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(os.path.abspath(args.build_dir),
                                    "python"))
    import numpy as np
    import torch
    import mlprog

    out_dir = args.out or tempfile.mkdtemp(prefix="mlprog-ts-models-")
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for name in args.models.split(","):
        row = run_model(name, out_dir, args, torch, mlprog, np)
        rows.append(row)
        print("%-30s %-6s %-18s %s%s" % (
            name, row["how"], row["status"][:18] if row["status"] == "pass"
            or row["status"] == "out of tolerance" else "error",
            "error %.2e" % row["error"] if "error" in row else
            row["status"],
            ("  [1.13 loads: %s]" % row["torch13"]) if "torch13" in row
            else ""), flush=True)
    passed = sum(r["status"] == "pass" for r in rows)
    print("%d/%d models match eager PyTorch (torch %s) within %g"
          % (passed, len(rows), torch.__version__, TOLERANCE))
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
