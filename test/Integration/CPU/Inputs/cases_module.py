"""Shared by the execution-test generators in this directory: writes the
one-function module of all cases and the mlprog-run --input list."""
import os
import sys

import numpy as np


def write_module(root, args, prelude, body, results, num_inputs,
                 globals_=()):
    """Writes root/module.mlir, the `globals_` lines, then
    `ml_program.func @main(args) -> results` with the `prelude` and `body`
    lines, returning the (value, type) pairs of `results`, and
    root/inputs.txt, the --input options of root/in_<i>.npy for
    i < num_inputs."""
    text = list(globals_)
    text += ["ml_program.func @main(%s) -> (%s) {"
             % (", ".join(args), ", ".join(t for _, t in results))]
    text += prelude + body
    text += ["  ml_program.return %s : %s"
             % (", ".join(v for v, _ in results),
                ", ".join(t for _, t in results)),
             "}"]
    with open(os.path.join(root, "module.mlir"), "w") as f:
        f.write("\n".join(text) + "\n")
    with open(os.path.join(root, "inputs.txt"), "w") as f:
        f.write(" ".join("--input %s" % os.path.join(root, "in_%d.npy" % j)
                         for j in range(num_inputs)))


def load_inputs(root, counts):
    """The saved inputs of each case, `counts` being each case's number of
    inputs: one list of arrays per case, in order."""
    index = 0
    for count in counts:
        yield [np.load(os.path.join(root, "in_%d.npy" % (index + j)))
               for j in range(count)]
        index += count


def check_runs(root, runs, refs, compare):
    """For each run directory in `runs`, calls compare(got, want, message)
    on root/<run>/output_<i>.npy and refs[i] = (label, want), then prints
    the summary line the lit tests check."""
    for run in runs:
        for i, (label, want) in enumerate(refs):
            got = np.load(os.path.join(root, run, "output_%d.npy" % i))
            compare(got, want, "%s: %s" % (run, label))
    print("ok", len(refs), "cases:", *runs)


def main(gen, check):
    """`X.py gen DIR` or `X.py check DIR RUN...`."""
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3:])
