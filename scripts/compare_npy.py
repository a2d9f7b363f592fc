#!/usr/bin/env python3
"""Compares .npy results with references and prints them side by side.

Usage: compare_npy.py RESULT.npy REFERENCE.npy [--rtol R] [--atol A]
Exit status 0 when numpy.allclose(result, reference, rtol, atol) holds
(strings, numpy '<U': when they are equal element by element).
"""
import argparse
import sys

import numpy as np


def compare_strings(got, want, show):
    """Strings (numpy '<U') match when equal element by element."""
    g, w = got.astype(str).ravel(), want.astype(str).ravel()
    print(f"{'index':>6} {'mlprog':>14} {'reference':>14}")
    for i in range(min(show, g.size)):
        print(f"{i:>6} {g[i]!r:>14} {w[i]!r:>14}")
    ok = got.dtype.kind == want.dtype.kind and bool(np.all(g == w))
    print(f"shape {got.shape} {got.dtype}; "
          f"{int(np.sum(g != w))} element(s) differ")
    print("MATCH" if ok else "MISMATCH")
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("result")
    parser.add_argument("reference")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-5)
    parser.add_argument("--show", type=int, default=8,
                        help="how many leading elements to print")
    args = parser.parse_args()

    got = np.load(args.result)
    want = np.load(args.reference)
    if got.shape != want.shape:
        sys.exit(f"compare: shape {got.shape} differs from reference "
                 f"{want.shape}")
    if got.dtype.kind in "US" or want.dtype.kind in "US":
        return compare_strings(got, want, args.show)
    g = got.astype(np.float64).ravel()
    w = want.astype(np.float64).ravel()
    n = min(args.show, g.size)
    print(f"{'index':>6} {'mlprog':>14} {'reference':>14}")
    for i in range(n):
        print(f"{i:>6} {g[i]:>14.6g} {w[i]:>14.6g}")
    abs_err = np.abs(g - w)
    rel_err = abs_err / np.maximum(np.abs(w), np.finfo(np.float32).tiny)
    top_g, top_w = np.argsort(-g)[:5], np.argsort(-w)[:5]
    print(f"shape {got.shape} {got.dtype}; top-5 classes mlprog {top_g.tolist()}"
          f" reference {top_w.tolist()}")
    print(f"max abs error {abs_err.max():.3e}, max rel error "
          f"{rel_err.max():.3e} (rtol {args.rtol:g}, atol {args.atol:g})")
    ok = np.allclose(got, want, rtol=args.rtol, atol=args.atol)
    print("MATCH" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
