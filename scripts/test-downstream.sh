#!/usr/bin/env bash
#===- test-downstream.sh - Install mlprog and build a project against it -===//
#
# Usage: scripts/test-downstream.sh [BUILD_DIR]   (default: build, built)
#
# 1. `cmake --install BUILD_DIR` into a temporary prefix;
# 2. configures and builds examples/downstream against that prefix
#    (find_package(MLProg)) and runs its lit tests;
# 3. imports the installed Python package and runs a model with it.
# The temporary directory is removed afterwards.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mlprog-downstream.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== installing $build into $work/prefix"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"

echo "== building examples/downstream against the installed package"
cmake -G Ninja -S "$root/examples/downstream" -B "$work/build" \
  -DCMAKE_BUILD_TYPE=Release -DMLProg_DIR="$work/prefix/lib/cmake/mlprog" \
  >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
ninja -C "$work/build" check-downstream

pydir=$(echo "$work"/prefix/lib/python3*/dist-packages)
if [ -d "$pydir/mlprog" ]; then
  echo "== running the installed Python package"
  (cd "$work" && PYTHONPATH="$pydir" /usr/bin/python3 - "$pydir" <<'PY'
import sys
import numpy as np
import mlprog
assert mlprog.__file__.startswith(sys.argv[1]), mlprog.__file__
exe = mlprog.compile(mlprog.parse("""
func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = arith.mulf %a, %a : tensor<3xf32>
  return %0 : tensor<3xf32>
}"""))
y = exe.main(np.array([1, 2, 3], np.float32))
assert y.tolist() == [1, 4, 9], y
print("installed mlprog package OK:", mlprog.__file__)
PY
  )
fi
echo "downstream: OK"
