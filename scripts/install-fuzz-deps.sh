#!/usr/bin/env bash
#===- install-fuzz-deps.sh - Debian packages for the libFuzzer targets ----===//
#
# clang-22 (the compiler) and libclang-rt-22-dev (libFuzzer and the sanitizer
# runtimes). Not part of scripts/install-deps.sh: CI does not build the
# fuzzers. Idempotent.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
PACKAGES=(clang-22 libclang-rt-22-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
