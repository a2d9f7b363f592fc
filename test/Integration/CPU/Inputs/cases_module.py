"""Shared by the execution-test generators in this directory: writes the
one-function module of all cases and the mlprog-run --input list."""
import os


def write_module(root, args, prelude, body, results, num_inputs):
    """Writes root/module.mlir, `ml_program.func @main(args) -> results`
    with the `prelude` and `body` lines, returning the (value, type) pairs
    of `results`, and root/inputs.txt, the --input options of
    root/in_<i>.npy for i < num_inputs."""
    text = ["ml_program.func @main(%s) -> (%s) {"
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
