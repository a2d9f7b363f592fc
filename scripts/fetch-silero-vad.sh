#!/usr/bin/env bash
#===- fetch-silero-vad.sh - silero-vad's ONNX models, pinned -------------===//
#
# Downloads the silero-vad 6.0.0 wheel from PyPI (pip download, no
# dependencies), checks its sha256 and extracts its ONNX files into
# <root>/.cache/silero-vad (or $1). python/tests/test_silero_vad.py compares
# the Core ML silero-vad packages of ../shared/models/coreml with
# silero_vad.onnx run by onnxruntime.
#
# 6.0.0, not the newest 6.x: the Core ML packages (FluidInference/mobius
# "silero-vad-*-v6.0.0") were converted from 6.0.0's weights; 6.2 ships
# retrained ones (its first encoder conv differs by up to 31, 6.0.0's by the
# fp16 rounding of the package, 0.007).
#
#   bash scripts/fetch-silero-vad.sh [DIR]
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="${1:-$root/.cache/silero-vad}"
version=6.0.0
sha256=37d29be8944d2a2e6f1cc38a066076f13e78e6fc1b567a1beddcca72096f077f
wheel="silero_vad-$version-py3-none-any.whl"
python="${MLPROG_PYTHON:-}"
if [ -z "$python" ]; then
  if [ -x "$root/.venv/bin/python" ]; then python="$root/.venv/bin/python"
  else python=python3; fi
fi

if [ -f "$dest/silero_vad.onnx" ] && [ -f "$dest/silero_vad.jit" ] &&
   [ -f "$dest/VERSION" ] &&
   [ "$(cat "$dest/VERSION")" = "$version" ]; then
  echo "fetch-silero-vad: $dest already holds silero-vad $version" >&2
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$python" -m pip download --quiet --no-deps "silero-vad==$version" -d "$tmp"
echo "$sha256  $tmp/$wheel" | sha256sum --check --quiet
mkdir -p "$dest"
"$python" - "$tmp/$wheel" "$dest" <<'PY'
import os, sys, zipfile
wheel, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith("silero_vad/data/") and name.endswith((".onnx", ".jit")):
            with open(os.path.join(dest, os.path.basename(name)), "wb") as f:
                f.write(z.read(name))
PY
echo "$version" > "$dest/VERSION"
echo "fetch-silero-vad: silero-vad $version ONNX files in $dest" >&2
