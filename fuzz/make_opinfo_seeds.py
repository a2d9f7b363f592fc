#!/usr/bin/env python3
"""Seeds fuzz-torchscript with one traced graph per OpInfo op of the CI subset.

usage: .venv/bin/python fuzz/make_opinfo_seeds.py

fuzz/make_corpus.py seeds the TorchScript fuzzer from the importer's own
tests (Debian's torch 1.13). This adds the op breadth of PyTorch's OpInfo
suite as torch 2.x records it: for each op in
test/Import/TorchScript/opinfo-ci-subset.txt, its first listed float32
sample is traced (scripts/torch_opinfo_conformance.py's one-op module,
traced as a function so the graph has no `self`) and its IR text, with the
inputs' dtypes and shapes and without source comments, is written to
fuzz/corpus/fuzz-torchscript/opinfo-<op>. Graphs over 2 KiB, and graphs
with tensor constants (IR text cannot hold them), are skipped.
"""
import os
import re
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import torch  # noqa: E402
import torch_opinfo_conformance as oc  # noqa: E402

CORPUS = os.path.join(ROOT, "fuzz", "corpus", "fuzz-torchscript")
SUBSET = os.path.join(ROOT, "test", "Import", "TorchScript",
                      "opinfo-ci-subset.txt")


def main():
    wanted = {}
    for line in open(SUBSET):
        op, dtype, index = line.strip().rsplit("/", 2)
        if dtype == "float32":
            wanted.setdefault(op, int(index))
    written = 0
    for op in oc.load_op_db():
        key = oc.op_key(op)
        if key not in wanted:
            continue
        torch.manual_seed(0)
        samples = list(op.sample_inputs("cpu", torch.float32))
        if wanted[key] >= len(samples):
            continue
        sample = samples[wanted[key]]
        tensors = []
        structure = oc._flatten((sample.input, list(sample.args),
                                 dict(sample.kwargs)), tensors)
        module = oc.make_module(op.op, structure)
        try:
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                traced = torch.jit.trace(lambda *t: module(*t), tuple(tensors),
                                         check_trace=False, strict=False)
        except Exception:
            continue
        text = re.sub(r" # [^\n]*", "", str(traced.graph))
        if len(text) > 2048 or "<Tensor>" in text:
            continue
        name = "opinfo-" + re.sub(r"[^A-Za-z0-9_.]", "_", key)
        with open(os.path.join(CORPUS, name), "w") as f:
            f.write(text)
        written += 1
    print(f"{written} seeds written to {CORPUS}")


if __name__ == "__main__":
    main()
