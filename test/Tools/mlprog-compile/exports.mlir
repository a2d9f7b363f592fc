// A model library exports its C ABI (mlprog_*) and nothing else, so its
// functions never bind to the process's symbols of the same name: at -O0
// the packed wrapper calls @step, which is also libc's legacy regexp
// `step`, and @exp (libm) and @index (libc) likewise. They ran libc's
// functions (a crash in regexec) before the library's exports were limited.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlprog-compile -O0 %s -o %t/model.so
// RUN: mlprog-run --library %t/model.so --entry step --repeat 3 --print | FileCheck %s --check-prefix=STEP
// RUN: mlprog-run --library %t/model.so --entry exp --print | FileCheck %s --check-prefix=EXP
// RUN: mlprog-run --library %t/model.so --entry index --print | FileCheck %s --check-prefix=INDEX
// RUN: nm -D --defined-only %t/model.so | FileCheck %s --check-prefix=SYMS
// RUN: nm -D --defined-only %t/model.so | awk '$3 !~ /^mlprog_/' | count 0

// STEP: output 0: shape () dtype int64
// STEP-NEXT: 3
// EXP: output 0: shape () dtype int64
// EXP-NEXT: 7
// INDEX: output 0: shape () dtype int64
// INDEX-NEXT: 11
// SYMS-DAG: T mlprog_model_run
// SYMS-DAG: T mlprog_instance_run

ml_program.global private mutable @pos(dense<0> : tensor<i64>) : tensor<i64>
ml_program.func @step() -> tensor<i64> {
  %n = ml_program.global_load @pos : tensor<i64>
  %one = arith.constant dense<1> : tensor<i64>
  %r = arith.addi %n, %one : tensor<i64>
  ml_program.global_store @pos = %r : tensor<i64>
  ml_program.return %r : tensor<i64>
}
ml_program.func @exp() -> tensor<i64> {
  %r = arith.constant dense<7> : tensor<i64>
  ml_program.return %r : tensor<i64>
}
ml_program.func @index() -> tensor<i64> {
  %r = arith.constant dense<11> : tensor<i64>
  ml_program.return %r : tensor<i64>
}
