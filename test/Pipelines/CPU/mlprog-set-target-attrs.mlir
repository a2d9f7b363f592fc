// RUN: mlprog-opt %s --mlprog-set-target-attrs="target-cpu=skylake-avx512 target-features=+avx2,+fma target-triple=x86_64-unknown-linux-gnu" | FileCheck %s
// RUN: mlprog-opt %s --mlprog-set-target-attrs="target-features=+avx2" | FileCheck %s --check-prefix=FEATURES
// RUN: mlprog-opt %s --mlprog-set-target-attrs | FileCheck %s --check-prefix=NONE

// The triple goes on the module, the CPU and features on each function
// with a body; empty options record nothing.
// CHECK: module attributes {llvm.target_triple = "x86_64-unknown-linux-gnu"}
// CHECK-LABEL: llvm.func @entry
// CHECK-SAME: target_cpu = "skylake-avx512"
// CHECK-SAME: target_features = #llvm.target_features<["+avx2", "+fma"]>
// CHECK-LABEL: llvm.func @external
// CHECK-NOT: target_
// FEATURES: module {
// FEATURES-LABEL: llvm.func @entry
// FEATURES-NOT: target_cpu
// FEATURES-SAME: target_features = #llvm.target_features<["+avx2"]>
// NONE-NOT: target
llvm.func @entry(%x: f32) -> f32 {
  llvm.return %x : f32
}
llvm.func @external(f32) -> f32
