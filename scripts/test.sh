#!/usr/bin/env bash
#===- test.sh - Install, build and run every mlprog test suite -----------===//
#
# 1. lit + FileCheck (dialect, conversions, pipelines, importers, execution)
# 2. GoogleTest unit tests
# 3. Python package tests (pytest)
# 4. the downstream example: install, build a project against the install
# 5. ONNX backend conformance (libonnx-testdata): the fast subset (one or
#    two expected-to-pass cases per op), checked against the
#    expected-failures list test/Import/ONNX/conformance-xfail.txt. The full
#    suite: scripts/onnx_conformance.py -j1 (see docs/importers/onnx.md).
# 6. the ASan + UBSan build (build-asan) and its test subset
#    (scripts/test-sanitizers.sh --subset; docs/reliability.md)
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
ninja -C "$root/build" check-mlprog
bash "$root/scripts/test-downstream.sh" "$root/build"
/usr/bin/python3 "$root/scripts/onnx_conformance.py" --build-dir "$root/build" \
  -j "$(nproc)" --ci-subset
bash "$root/scripts/test-sanitizers.sh" --subset
