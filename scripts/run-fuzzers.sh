#!/usr/bin/env bash
#===- run-fuzzers.sh - Build and run one libFuzzer target -----------------===//
#
# Usage: scripts/run-fuzzers.sh TARGET|all MINUTES [BUILD_DIR]
#   TARGET: fuzz-onnx fuzz-torchscript fuzz-mil fuzz-weight-bin
#           fuzz-safetensors fuzz-npy fuzz-mlir (or "all", one after another)
#   BUILD_DIR: default build-fuzz (clang-22, ASan + UBSan + libFuzzer)
#
# Runs TARGET for MINUTES on one core, starting from the seeds in
# fuzz/corpus/TARGET (read-only) plus a working corpus in
# BUILD_DIR/corpus/TARGET that persists between runs. Crashes, leaks,
# timeouts (> 10 s per input) and out-of-memory inputs (> 2 GiB RSS) are
# saved under BUILD_DIR/artifacts/TARGET/; turn each into a regression test
# (test/BadInput/) and fix it. The last lines give executions and coverage.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${1:?usage: run-fuzzers.sh TARGET|all MINUTES [BUILD_DIR]}
minutes=${2:?usage: run-fuzzers.sh TARGET|all MINUTES [BUILD_DIR]}
build=${3:-$root/build-fuzz}
all=(fuzz-onnx fuzz-torchscript fuzz-mil fuzz-weight-bin fuzz-safetensors
     fuzz-npy fuzz-mlir)
if [ "$target" = all ]; then
  for t in "${all[@]}"; do "$0" "$t" "$minutes" "$build"; done
  exit 0
fi

bash "$root/scripts/install-fuzz-deps.sh"
if [ ! -f "$build/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release -DMLPROG_BUILD_FUZZERS=ON \
    -DMLPROG_SANITIZE=address,undefined -DMLPROG_ENABLE_PYTHON=OFF
fi
ninja -C "$build" -j "${MLPROG_FUZZ_JOBS:-2}" "$target"

work="$build/corpus/$target"
artifacts="$build/artifacts/$target"
mkdir -p "$work" "$artifacts"
seeds="$root/fuzz/corpus/$target"
# Uninstrumented libMLIR/libtorch/libprotobuf: no ODR checks; leaks of
# global registries at exit are not findings.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_odr_violation=0:detect_leaks=0:allocator_may_return_null=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
log="$build/$target.log"
echo "run-fuzzers: $target for $minutes min (log: $log)"
"$build/bin/$target" "$work" "$seeds" \
  -max_total_time=$((minutes * 60)) -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/" \
  >"$log" 2>&1 || {
    status=$?
    tail -40 "$log"
    echo "run-fuzzers: $target FAILED (status $status); artifacts in $artifacts"
    exit $status
  }
# "#N DONE cov: C ft: F corp: ..." and the final stats.
grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)" "$log" | tail -2
grep -E "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)" "$log"
echo "run-fuzzers: $target: no crash in $minutes min"
