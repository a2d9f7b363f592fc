#!/usr/bin/env bash
#===- run-example.sh - The main job, end to end ---------------------------===//
#
# Installs what is missing, builds mlprog, exports a torchvision CNN with
# random weights to ONNX (PyTorch), imports it with mlprog-translate, compiles
# and runs it on the CPU with mlprog-run, compares the output with PyTorch's,
# and times the AOT library (mlprog-compile) against onnxruntime. Usage: scripts/run-example.sh [torchvision-model] (default
# squeezenet1_1). Artifacts go to out/<model>/.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
model=${1:-squeezenet1_1}
out=$root/out/$model
py=/usr/bin/python3

bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh" >/dev/null
bin=$root/build/bin

echo "== 1. export $model (random weights) with torch.onnx.export"
$py "$root/scripts/export_torchvision.py" --model "$model" --out-dir "$out"
echo "== 2. import: mlprog-translate --import-onnx"
"$bin/mlprog-translate" --import-onnx "$out/$model.onnx" -o "$out/$model.mlir"
echo "   wrote $out/$model.mlir ($(du -h "$out/$model.mlir" | cut -f1))"
if [ -f "$out/$model.safetensors" ]; then
  echo "   and its weights $out/$model.safetensors ($(du -h "$out/$model.safetensors" | cut -f1))"
fi
echo "== 3. compile for the CPU and run: mlprog-run"
start=$(date +%s%N)
"$bin/mlprog-run" "$out/$model.mlir" --input "$out/input_0.npy" \
  --output-dir "$out"
echo "   compiled and ran in $(( ($(date +%s%N) - start) / 1000000 )) ms"
echo "== 4. compare with PyTorch"
$py "$root/scripts/compare_npy.py" "$out/output_0.npy" "$out/reference_0.npy" \
  --rtol 1e-4 --atol 1e-5
echo "== 5. latency against onnxruntime: mlprog-compile, then both alternately"
"$bin/mlprog-compile" "$out/$model.mlir" -o "$out/$model.so"
"$root/.venv/bin/python" "$root/scripts/latency_vs_ort.py" \
  "$out/$model.onnx" "$out/$model.so" "$out/input_0.npy"
