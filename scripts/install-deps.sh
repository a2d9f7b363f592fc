#!/usr/bin/env bash
#===- install-deps.sh - Install every Debian package mlprog needs ---------===//
#
# Idempotent: when every package is present it only checks, then makes sure
# the pinned Python environment .venv (scripts/setup-venv.sh) is current.
# Run as root (or with sudo available) on Debian 12.
#
#===----------------------------------------------------------------------===//
set -euo pipefail

PACKAGES=(
  # Build tools.
  cmake ninja-build g++ pkg-config ccache
  # MLIR/LLVM 22 (libMLIR.so, libLLVM.so, mlir-tblgen, FileCheck, lit, not).
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  # ONNX (C++ library, backend test data, Python package for test models).
  libonnx-dev libonnx-testdata python3-onnx
  # TorchScript and protobuf.
  libtorch-dev libprotobuf-dev protobuf-compiler
  # Python package, tests and reference computations.
  pybind11-dev python3-dev python3-numpy python3-torch python3-torchvision python3-pytest
  # C++ unit tests and benchmarks.
  libgtest-dev libgmock-dev libbenchmark-dev
  # OpenMP runtime of the multi-threaded CPU code; OpenBLAS, the sgemm peer,
  # and threadpoolctl, which reports the peers' kernels (benchmarks/peers.py).
  libomp-22-dev libopenblas-dev python3-threadpoolctl
  # The pinned PyPI environment (.venv) of scripts/setup-venv.sh.
  python3-venv
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "install-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Today's peers from PyPI, pinned, in the project's own virtual environment.
bash "$(dirname "$0")/setup-venv.sh" --with torch --with transformers --with coreml


# Test data from PyPI: silero-vad's ONNX models (the reference of the
# Core ML silero-vad packages in ../shared/models; python/tests/
# test_silero_vad.py). Pinned and checked; skipped when already there.
bash "$(dirname "$0")/fetch-silero-vad.sh"
