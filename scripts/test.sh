#!/usr/bin/env bash
#===- test.sh - Install, build and run every mlprog test suite -----------===//
#
# 1. lit + FileCheck (dialect, conversions, pipelines, importers, execution)
# 2. GoogleTest unit tests
# 3. Python package tests (pytest)
# 4. the downstream example: install, build a project against the install
# 5. ONNX backend conformance, under the pinned .venv (scripts/setup-venv.sh):
#    the fast subset (one or two expected-to-pass cases per op) of Debian's
#    libonnx-testdata (onnx 1.12) and of onnx 1.23's node tests, each
#    checked against its expected-failures list
#    test/Import/ONNX/conformance-xfail[-1.23].txt. The full suites:
#    .venv/bin/python scripts/onnx_conformance.py --onnx-version V -j2
#    (see docs/importers/onnx.md).
# 6. Core ML conformance: the fast subset (two passing cases per test
#    class) of coremltools' own op tests, run on mlprog under .venv-coreml
#    and checked against test/Import/MIL/conformance-xfail.txt. The full
#    suite: .venv-coreml/bin/python scripts/mil_conformance.py -j2
#    (see docs/importers/mil.md).
# 7. TorchScript conformance: the fast subset (one or two passing samples
#    per op) of PyTorch's OpInfo database, run on mlprog and checked against
#    test/Import/TorchScript/opinfo-xfail.txt, under .venv (torch 2.9.1,
#    the libtorch the TorchScript importer links). The full suite:
#    .venv/bin/python scripts/torch_opinfo_conformance.py -j2
#    (see docs/importers/torchscript.md).
# 8. the ASan + UBSan build (build-asan) and its test subset
#    (scripts/test-sanitizers.sh --subset; docs/reliability.md)
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
ninja -C "$root/build" check-mlprog
bash "$root/scripts/test-downstream.sh" "$root/build"
for version in 1.12 1.23; do
  "$root/.venv/bin/python" "$root/scripts/onnx_conformance.py" \
    --build-dir "$root/build" --onnx-version "$version" -j "$(nproc)" \
    --ci-subset
done
"$root/.venv-coreml/bin/python" "$root/scripts/mil_conformance.py" \
  --build-dir "$root/build" -j "$(nproc)" --ci-subset
"$root/.venv/bin/python" "$root/scripts/torch_opinfo_conformance.py" --build-dir "$root/build" \
  -j "$(nproc)" --ci-subset
bash "$root/scripts/test-sanitizers.sh" --subset
