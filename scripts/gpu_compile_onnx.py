#!/usr/bin/env python3
"""Compiles ONNX's backend test models for an NVIDIA GPU (no GPU needed).

For every case directory (model.onnx) of the chosen libonnx-testdata suites,
imports the model with `mlprog-translate --import-onnx`, lowers it with
`mlprog-opt --mlprog-lower-to-cpu` (does the CPU path support it?) and with
`--mlprog-lower-to-gpu="chip=CHIP features=FEATURES"`, and reports the cases
the CPU path compiles but the GPU path does not, with their first error
line. With --ptxas, also assembles every kernel's PTX with NVIDIA's ptxas.
This checks code generation only; it does not execute anything.

  gpu_compile_onnx.py --bin build/bin [--suite node] [-j 2] [--ptxas PATH]
"""
import argparse
import concurrent.futures
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def first_error(text):
    for line in text.splitlines():
        if 'error:' in line:
            return line.split('error:', 1)[1].strip()[:160]
    return text.strip().splitlines()[-1][:160] if text.strip() else '?'


def run(cmd, timeout):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout)
        return r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        return 1, 'error: timeout'


def check(case, args):
    name = os.path.basename(case)
    with tempfile.TemporaryDirectory() as tmp:
        mlir = os.path.join(tmp, 'model.mlir')
        rc, err = run([os.path.join(args.bin, 'mlprog-translate'),
                       '--import-onnx', os.path.join(case, 'model.onnx'),
                       '-o', mlir], args.timeout)
        if rc:
            return name, 'import', first_error(err)
        rc, err = run([os.path.join(args.bin, 'mlprog-opt'),
                       '--mlprog-lower-to-cpu', mlir, '-o', os.devnull],
                      args.timeout)
        if rc:
            return name, 'cpu', first_error(err)
        gpu = os.path.join(tmp, 'gpu.mlir')
        rc, err = run([os.path.join(args.bin, 'mlprog-opt'),
                       '--mlprog-lower-to-gpu=chip=%s features=%s' %
                       (args.chip, args.features), mlir, '-o', gpu],
                      args.timeout)
        if rc:
            return name, 'gpu', first_error(err)
        if args.ptxas:
            ptx_dir = os.path.join(tmp, 'ptx')
            rc, err = run([sys.executable,
                           os.path.join(HERE, 'extract_ptx.py'), gpu,
                           '--split', ptx_dir], args.timeout)
            for ptx in sorted(glob.glob(os.path.join(ptx_dir, '*.ptx'))):
                rc, err = run([args.ptxas, '-arch=' + args.chip, ptx, '-o',
                               os.devnull], args.timeout)
                if rc:
                    return name, 'ptxas', first_error(err)
        return name, 'ok', ''


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--bin', required=True)
    parser.add_argument('--data', default='/usr/share/libonnx-testdata/data')
    parser.add_argument('--suite', action='append')
    parser.add_argument('--chip', default='sm_90')
    parser.add_argument('--features', default='+ptx80')
    parser.add_argument('--ptxas')
    parser.add_argument('--timeout', type=int, default=120)
    parser.add_argument('-j', '--jobs', type=int, default=2)
    args = parser.parse_args()
    cases = []
    for suite in args.suite or ['node']:
        cases += sorted(glob.glob(os.path.join(args.data, suite, '*')))
    counts = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, stage, error in pool.map(lambda c: check(c, args), cases):
            counts[stage] = counts.get(stage, 0) + 1
            if stage in ('gpu', 'ptxas'):
                print('%s: %s: %s' % (name, stage, error))
    print('%d cases: %d compile for %s on both paths, %d fail only on the '
          'GPU path, %d fail ptxas, %d fail the CPU path, %d not imported' %
          (len(cases), counts.get('ok', 0), args.chip, counts.get('gpu', 0),
           counts.get('ptxas', 0), counts.get('cpu', 0),
           counts.get('import', 0)))
    return 1 if counts.get('gpu') or counts.get('ptxas') else 0


if __name__ == '__main__':
    sys.exit(main())
