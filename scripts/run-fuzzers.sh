#!/usr/bin/env bash
#===- run-fuzzers.sh - Build and run the libFuzzer targets ----------------===//
#
# Usage: scripts/run-fuzzers.sh [options] TARGET...|all [MINUTES [BUILD_DIR]]
#   TARGET: fuzz-onnx fuzz-torchscript fuzz-mil fuzz-weight-bin
#           fuzz-safetensors fuzz-npy fuzz-mlir fuzz-model-path, or "all"
#   -m MINUTES   minutes per target (default 30; also the 2nd positional)
#   -j JOBS      targets run at the same time, one process each (default 1)
#   -n NICE      nice level of the fuzzers (default 0; 19 = idle CPU only)
#   -b DIR       build directory (default build-fuzz: clang-22, ASan + UBSan +
#                libFuzzer; configured here when missing)
#   -o DIR       output directory (default BUILD_DIR/fuzz-runs): per target
#                DIR/TARGET/corpus (the working corpus, kept between runs),
#                DIR/TARGET/artifacts (crash-, timeout-, oom-, leak- inputs),
#                DIR/TARGET.log (libFuzzer's output), DIR/TARGET.status
#   -t SECONDS   per-input timeout (default 25)
#   --no-build   do not run ninja; a target whose binary is missing is
#                waited for (it is being built elsewhere) for up to an hour
#   --summary    only print the summary table of DIR's logs (runs still in
#                progress show their latest status line)
#
# Each target starts from its seeds in fuzz/corpus/TARGET (read-only) plus
# its working corpus. Every crash, leak, timeout or out-of-memory input is
# saved under its artifacts directory: turn each into a regression test
# (test/BadInput/) and fix it. The run ends with a table: target, seconds,
# executions, exec/s, coverage (cov: edges, ft: features), corpus size and
# findings, parsed from the libFuzzer logs. Exit status 1 when any target
# found something.
#
# Examples:
#   scripts/run-fuzzers.sh fuzz-npy 5                 # one target, 5 min
#   scripts/run-fuzzers.sh -m 30 -j 2 -n 19 -o /work/fuzz-runs all
#   scripts/run-fuzzers.sh --summary -o /work/fuzz-runs all
#
#===----------------------------------------------------------------------===//
set -uo pipefail
# MLPROG_SRC_ROOT: the checkout, when running a copy of this script (bash
# reads a script as it runs, so editing it under a long campaign breaks it).
root=${MLPROG_SRC_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
all=(fuzz-onnx fuzz-torchscript fuzz-mil fuzz-weight-bin fuzz-safetensors
     fuzz-npy fuzz-mlir fuzz-model-path)
minutes=30 jobs=1 nicelevel=0 build="" out="" timeout=25 nobuild=0 summary=0
targets=() positional=()
usage() { sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -m) minutes=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -n) nicelevel=$2; shift 2 ;;
    -b) build=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -t) timeout=$2; shift 2 ;;
    --no-build) nobuild=1; shift ;;
    --summary) summary=1; shift ;;
    -h|--help) usage ;;
    -*) echo "run-fuzzers: unknown option $1" >&2; usage ;;
    *) positional+=("$1"); shift ;;
  esac
done
# Positional form: TARGET...|all [MINUTES [BUILD_DIR]].
for p in "${positional[@]}"; do
  if [ "$p" = all ]; then targets+=("${all[@]}")
  elif [[ "$p" == fuzz-* ]]; then targets+=("$p")
  elif [[ "$p" =~ ^[0-9]+$ ]]; then minutes=$p
  else build=$p
  fi
done
[ ${#targets[@]} -gt 0 ] || usage
build=${build:-$root/build-fuzz}
out=${out:-$build/fuzz-runs}
mkdir -p "$out"

# summary: one row per target from DIR/TARGET.log and DIR/TARGET.status.
summary() {
  printf '%-17s %-8s %7s %12s %8s %6s %7s %7s %8s\n' target state seconds \
    execs exec/s cov ft corpus findings
  for t in "${targets[@]}"; do
    local log="$out/$t.log" status="$out/$t.status"
    local state=pending secs=- execs=- rate=- cov=- ft=- corp=- finds=-
    if [ -f "$status" ]; then
      # shellcheck disable=SC1090
      local start="" end="" rc=""
      . "$status"
      if [ -n "$end" ]; then
        secs=$((end - start))
        if [ "$rc" = 0 ]; then state=done; else state="rc=$rc"; fi
      else
        secs=$(($(date +%s) - start)); state=running
      fi
    fi
    if [ -f "$log" ]; then
      # Latest status line: "#N <kind> cov: C ft: F corp: U/S lim: L exec/s: R ..."
      local line
      line=$(grep -aE '^#[0-9]+[[:space:]]' "$log" | grep -a 'cov:' | tail -1)
      if [ -n "$line" ]; then
        execs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$line")
        cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$line")
        ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$line")
        rate=$(sed -nE 's/.* exec\/s: ([0-9]+).*/\1/p' <<<"$line")
      fi
      # The final stats are exact where the run ended normally.
      local n
      n=$(sed -nE 's/^stat::number_of_executed_units: ([0-9]+)/\1/p' "$log" | tail -1)
      [ -n "$n" ] && execs=$n
      n=$(sed -nE 's/^stat::average_exec_per_sec: ([0-9]+)/\1/p' "$log" | tail -1)
      [ -n "$n" ] && rate=$n
    fi
    [ -d "$out/$t/corpus" ] && corp=$(find "$out/$t/corpus" -type f | wc -l)
    [ -d "$out/$t/artifacts" ] &&
      finds=$(find "$out/$t/artifacts" -type f \( -name 'crash-*' -o \
        -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    printf '%-17s %-8s %7s %12s %8s %6s %7s %7s %8s\n' "$t" "$state" "$secs" \
      "$execs" "$rate" "$cov" "$ft" "$corp" "$finds"
  done
}
if [ $summary = 1 ]; then summary; exit 0; fi

if [ $nobuild = 0 ]; then
  bash "$root/scripts/install-fuzz-deps.sh"
  if [ ! -f "$build/build.ninja" ]; then
    CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$root" -B "$build" \
      -DCMAKE_BUILD_TYPE=Release -DMLPROG_BUILD_FUZZERS=ON \
      -DMLPROG_SANITIZE=address,undefined -DMLPROG_ENABLE_PYTHON=OFF || exit 1
  fi
  ninja -C "$build" -j "${MLPROG_FUZZ_JOBS:-2}" "${targets[@]}" || exit 1
fi

# Uninstrumented libMLIR/libtorch/libprotobuf: no ODR checks; leaks of
# global registries at exit are not findings; LLVM's allocator poisoning
# from instrumented header code is a false positive (docs/reliability.md).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_odr_violation=0:detect_leaks=0:allocator_may_return_null=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# One core per fuzzer: no intra-op thread pools in libtorch.
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

# ready TARGET: the binary exists and has not changed for 30 s (a link in
# progress elsewhere is not picked up).
ready() {
  local bin="$build/bin/$1"
  [ -x "$bin" ] && [ $(($(date +%s) - $(stat -c %Y "$bin"))) -ge 30 ]
}

run_one() {
  local t=$1 work="$out/$1/corpus" artifacts="$out/$1/artifacts"
  mkdir -p "$work" "$artifacts"
  echo "start=$(date +%s)" >"$out/$t.status"
  echo "run-fuzzers: $(date +%T) $t for $minutes min (log: $out/$t.log)"
  nice -n "$nicelevel" "$build/bin/$t" "$work" "$root/fuzz/corpus/$t" \
    -max_total_time=$((minutes * 60)) -timeout="$timeout" \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" >"$out/$t.log" 2>&1
  local rc=$?
  { echo "end=$(date +%s)"; echo "rc=$rc"; } >>"$out/$t.status"
  echo "run-fuzzers: $(date +%T) $t ended with status $rc"
  if [ $rc != 0 ]; then tail -30 "$out/$t.log"; fi
  return $rc
}

# Run the targets, at most $jobs at a time, each as soon as it is ready.
queue=("${targets[@]}") running=0 failed=0 waited=0
while [ ${#queue[@]} -gt 0 ] || [ $running -gt 0 ]; do
  started=0
  if [ $running -lt "$jobs" ]; then
    for i in "${!queue[@]}"; do
      t=${queue[$i]}
      if ready "$t"; then
        run_one "$t" &
        unset 'queue[i]'; queue=("${queue[@]}")
        running=$((running + 1)) started=1
        break
      fi
    done
  fi
  [ $started = 1 ] && continue
  if [ $running -gt 0 ] && { [ $running -ge "$jobs" ] || [ ${#queue[@]} = 0 ]; }; then
    wait -n || failed=1
    running=$((running - 1))
  else
    # Nothing ready: binaries still being built elsewhere.
    if [ $waited -ge 3600 ]; then
      echo "run-fuzzers: gave up waiting for ${queue[*]}" >&2
      failed=1; break
    fi
    sleep 20; waited=$((waited + 20))
  fi
done
summary
exit $failed
