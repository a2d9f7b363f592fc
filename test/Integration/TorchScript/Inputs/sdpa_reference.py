"""aten::scaled_dot_product_attention from TorchScript IR text (torch 1.13
has no such op), imported, run with mlprog-run and compared with a numpy
reference of softmax(Q K^T * scale + mask) V.

Usage: sdpa_reference.py OUT_DIR
Prints one `PASS name` / `FAIL name: why` line per case and a final
`N passed, M failed` line; exits 1 if any case failed.
"""
import os
import subprocess
import sys

import numpy as np

RNG = np.random.default_rng(7)


def r(*shape):
    return RNG.uniform(-2.0, 2.0, size=shape).astype(np.float32)


def reference(q, k, v, mask=None, causal=False, scale=None, gqa=False):
    """PyTorch's documented math, in float64."""
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    if gqa and q.ndim == 4 and k.shape[1] != q.shape[1]:
        rep = q.shape[1] // k.shape[1]
        k = np.repeat(k, rep, axis=1)
        v = np.repeat(v, rep, axis=1)
    L, S = q.shape[-2], k.shape[-2]
    scale = 1.0 / np.sqrt(q.shape[-1]) if scale is None else scale
    bias = np.zeros((L, S))
    if causal:
        bias = np.where(np.tril(np.ones((L, S), dtype=bool)), 0.0, -np.inf)
    if mask is not None:
        bias = (np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_
                else bias + mask.astype(np.float64))
    s = q @ np.swapaxes(k, -1, -2) * scale + bias
    s = np.exp(s - s.max(axis=-1, keepdims=True))
    return (s / s.sum(axis=-1, keepdims=True)) @ v


def graph(mask, causal, scale, gqa):
    """IR text of one scaled_dot_product_attention node (torch 2.5 schema)."""
    args = "%q : Tensor,\n      %k : Tensor,\n      %v : Tensor"
    if mask:
        args += ",\n      %m : Tensor"
    return """graph({args}):
  %none : NoneType = prim::Constant()
  %p : float = prim::Constant[value=0.]()
  %causal : bool = prim::Constant[value={causal}]()
  %gqa : bool = prim::Constant[value={gqa}]()
  {scale_def}
  %out : Tensor = aten::scaled_dot_product_attention(%q, %k, %v, {mask}, %p, %causal, {scale}, %gqa)
  return (%out)
""".format(args=args, causal=int(causal), gqa=int(gqa),
           mask="%m" if mask else "%none",
           scale_def=("%s : float = prim::Constant[value=%r]()" % ("%scale", scale))
           if scale is not None else "",
           scale="%scale" if scale is not None else "%none")


CASES = [
    # name, q, k, v, mask, is_causal, scale, enable_gqa
    ("bool_mask_4d", r(2, 3, 4, 8), r(2, 3, 6, 8), r(2, 3, 6, 5),
     RNG.uniform(size=(4, 6)) > 0.3, False, None, False),
    ("causal_scale", r(1, 2, 5, 4), r(1, 2, 5, 4), r(1, 2, 5, 3), None, True,
     0.25, False),
    ("float_mask_3d", r(2, 4, 8), r(2, 7, 8), r(2, 7, 6), r(2, 4, 7), False,
     None, False),
    ("gqa", r(1, 4, 3, 8), r(1, 2, 5, 8), r(1, 2, 5, 8), None, False, 0.5,
     True),
]


def run(name, q, k, v, mask, causal, scale, gqa, out_dir):
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    inputs = [q, k, v] + ([mask] if mask is not None else [])
    ir = os.path.join(d, "sdpa.ir")
    with open(ir, "w") as f:
        f.write(graph(mask is not None, causal, scale, gqa))
    files = []
    for i, a in enumerate(inputs):
        files.append(os.path.join(d, "input_%d.npy" % i))
        np.save(files[-1], a)
    mlir = os.path.join(d, "sdpa.mlir")
    shapes = ",".join("x".join(map(str, a.shape)) for a in inputs)
    dtypes = ",".join("bool" if a.dtype == np.bool_ else "float32"
                      for a in inputs)
    p = subprocess.run(["mlprog-translate", "--import-torchscript", ir,
                        "--input-shapes=" + shapes, "--input-dtypes=" + dtypes,
                        "-o", mlir], capture_output=True, text=True)
    if p.returncode:
        return False, "import failed: " + p.stderr.strip()
    cmd = ["mlprog-run", mlir, "--entry", "forward", "--output-dir", d]
    for f in files:
        cmd += ["--input", f]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if p.returncode:
        return False, "run failed: " + p.stderr.strip()
    got = np.load(os.path.join(d, "output_0.npy"))
    want = reference(q, k, v, mask, causal, scale, gqa)
    if got.shape != want.shape or got.dtype != np.float32:
        return False, "got %s %s, expected %s float32" % (got.shape, got.dtype,
                                                          want.shape)
    if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
        return False, "max abs err %g" % np.max(np.abs(got - want))
    return True, "shape %s" % (got.shape,)


def main():
    passed = 0
    for c in CASES:
        ok, why = run(*c, out_dir=sys.argv[1])
        print("%s %s: %s" % ("PASS" if ok else "FAIL", c[0], why))
        passed += ok
    print("%d passed, %d failed" % (passed, len(CASES) - passed))
    return 0 if passed == len(CASES) else 1


if __name__ == "__main__":
    sys.exit(main())
