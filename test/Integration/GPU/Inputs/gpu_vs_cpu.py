#!/usr/bin/env python3
"""Runs a model on the GPU (mlprog-run --target=cuda) and on the CPU JIT
(mlprog-run) and checks that the results agree (dtype, shape, values within
--rtol/--atol: kernels use polynomial approximations of exp, tanh, erf, ...).

  gpu_vs_cpu.py --bin DIR --work DIR MODEL.mlir [--entry NAME]
                [--input X.npy]... [--rtol R] [--atol A] [--translate FLAG]

With --translate (e.g. --import-onnx), MODEL is first imported with
mlprog-translate.
"""
import argparse
import os
import subprocess
import sys

import numpy as np


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        sys.exit('%s failed (%d):\n%s%s' % (' '.join(cmd), result.returncode,
                                            result.stdout, result.stderr))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('model')
    parser.add_argument('--bin', required=True)
    parser.add_argument('--work', required=True)
    parser.add_argument('--entry')
    parser.add_argument('--input', action='append', default=[])
    parser.add_argument('--rtol', type=float, default=1e-5)
    parser.add_argument('--atol', type=float, default=1e-5)
    parser.add_argument('--translate')
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    model = args.model
    if args.translate:
        model = os.path.join(args.work, 'model.mlir')
        run([os.path.join(args.bin, 'mlprog-translate'), args.translate,
             args.model, '-o', model])
    common = sum((['--input', path] for path in args.input), [])
    if args.entry:
        common += ['--entry', args.entry]
    gpu, cpu = (os.path.join(args.work, name) for name in ('gpu', 'cpu'))
    run([os.path.join(args.bin, 'mlprog-run'), '--target=cuda', model,
         '--output-dir', gpu] + common)
    run([os.path.join(args.bin, 'mlprog-run'), model, '--output-dir', cpu] +
        common)
    names = sorted(os.listdir(cpu))
    if sorted(os.listdir(gpu)) != names or not names:
        sys.exit('different outputs: %s vs %s' % (os.listdir(gpu), names))
    for name in names:
        g = np.load(os.path.join(gpu, name))
        c = np.load(os.path.join(cpu, name))
        assert g.dtype == c.dtype and g.shape == c.shape, (name, g.dtype,
                                                           g.shape, c.dtype,
                                                           c.shape)
        if g.dtype.kind == 'f':
            np.testing.assert_allclose(g, c, rtol=args.rtol, atol=args.atol)
        else:
            np.testing.assert_array_equal(g, c)
    print('%s: %d output(s) agree' % (os.path.basename(args.model),
                                      len(names)))


if __name__ == '__main__':
    main()
