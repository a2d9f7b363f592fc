#!/usr/bin/env bash
#===- setup-venv.sh - The project's pinned Python environment (.venv) ----===//
#
# Creates <root>/.venv with Debian's python3 (the interpreter the `mlprog`
# module is built for) and installs the pinned PyPI packages of
# scripts/requirements/base.txt: onnx 1.23, onnxruntime, numpy. Scripts,
# tests and benchmarks that compare with today's peers run under
# .venv/bin/python; Debian's own Python packages stay as they are.
#
#   bash scripts/setup-venv.sh              # base group (install-deps runs this)
#   bash scripts/setup-venv.sh --with torch # also torch 2.x + torchvision
#   bash scripts/setup-venv.sh --with transformers  # transformers (+ its deps)
#   bash scripts/setup-venv.sh --with coreml
#       <root>/.venv-coreml, a second environment over Debian's python3
#       packages (--system-site-packages: torch 1.13, numpy 1.24) plus the
#       pinned scripts/requirements/coreml.txt, for coremltools' op tests
#       (scripts/mil_conformance.py)
#
# Idempotent: a group is reinstalled only when its requirements file changed
# (a stamp in .venv records what was installed).
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="${MLPROG_VENV:-$root/.venv}"
groups=(base)
while [ $# -gt 0 ]; do
  case "$1" in
    --with) groups+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "setup-venv: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

if [ ! -x "$venv/bin/python" ]; then
  echo "setup-venv: creating $venv" >&2
  /usr/bin/python3 -m venv "$venv"
fi
for group in "${groups[@]}"; do
  venv="${MLPROG_VENV:-$root/.venv}"
  if [ "$group" = coreml ]; then
    venv="$root/.venv-coreml"
    if [ ! -x "$venv/bin/python" ]; then
      echo "setup-venv: creating $venv (with Debian's site packages)" >&2
      /usr/bin/python3 -m venv --system-site-packages "$venv"
    fi
  fi
  req="$root/scripts/requirements/$group.txt"
  if [ ! -f "$req" ]; then
    echo "setup-venv: no requirements group '$group' ($req)" >&2
    exit 2
  fi
  stamp="$venv/.installed-$group"
  want=$(sha256sum "$req" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    continue
  fi
  echo "setup-venv: installing $group ($req)" >&2
  # torch's group (CUDA wheels from PyPI: no CPU-only torch is reachable)
  # installs 7.3 GB and downloads 3.9 GB first; say so before pip fails.
  if [ "$group" = torch ]; then
    free_mb=$(df -B1M --output=avail "$venv" | tail -1 | tr -d ' ')
    if [ "$free_mb" -lt 11500 ]; then
      echo "setup-venv: warning: $free_mb MB free under $venv; the torch" \
        "group needs about 11500 MB while it installs (7.3 GB installed)" >&2
    fi
  fi
  # No wheel cache: torch's group alone is 3.9 GB of wheels, which a cache
  # would keep beside the 7 GB they install to (a CI machine ran out of disk).
  if ! "$venv/bin/python" -m pip install --disable-pip-version-check -q \
      --no-cache-dir -r "$req"; then
    echo "setup-venv: installing group '$group' failed; free space under" \
      "$venv: $(df -h --output=avail "$venv" | tail -1 | tr -d ' ')" >&2
    exit 1
  fi
  echo "$want" > "$stamp"
done
