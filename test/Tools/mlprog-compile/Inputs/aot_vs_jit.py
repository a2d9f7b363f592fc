#!/usr/bin/env python3
"""Compiles a model with mlprog-compile, runs the library with
mlprog-run --library and the module with the JIT (mlprog-run), and checks
that both give the same results (dtype, shape, values).

  aot_vs_jit.py --bin DIR --work DIR MODEL.mlir [--entry NAME] [--input X.npy]...
"""
import argparse
import os
import subprocess
import sys

import numpy as np


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
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
    parser.add_argument('--repeat', default='1')
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    library = os.path.join(args.work, 'model.so')
    run([os.path.join(args.bin, 'mlprog-compile'), args.model, '-o', library])
    common = sum((['--input', path] for path in args.input), [])
    common += ['--repeat', args.repeat]
    if args.entry:
        common += ['--entry', args.entry]
    aot, jit = (os.path.join(args.work, name) for name in ('aot', 'jit'))
    run([os.path.join(args.bin, 'mlprog-run'), '--library', library,
         '--output-dir', aot] + common)
    run([os.path.join(args.bin, 'mlprog-run'), args.model, '--output-dir',
         jit] + common)
    names = sorted(os.listdir(jit))
    if sorted(os.listdir(aot)) != names or not names:
        sys.exit('different outputs: %s vs %s' % (os.listdir(aot), names))
    for name in names:
        a = np.load(os.path.join(aot, name))
        j = np.load(os.path.join(jit, name))
        assert a.dtype == j.dtype, (name, a.dtype, j.dtype)
        assert a.shape == j.shape, (name, a.shape, j.shape)
        if a.dtype.kind == 'f':
            np.testing.assert_allclose(a, j, rtol=1e-6, atol=0)
        else:
            np.testing.assert_array_equal(a, j)
    print('%s: %d output(s) agree' % (os.path.basename(args.model), len(names)))


if __name__ == '__main__':
    main()
