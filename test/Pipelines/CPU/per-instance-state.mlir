// RUN: mlprog-opt --mlprog-per-instance-state %s | FileCheck %s
// RUN: mlprog-opt --mlprog-per-instance-state --mlprog-per-instance-state %s | FileCheck %s --check-prefix=TWICE

// The state of a lowered program is its non-constant globals with an
// initializer; each is read through a slot that holds its address.

// CHECK-LABEL: module attributes {
// CHECK-SAME: mlprog.instance_state = [{global = @box, slot = @box__slot}, {global = @cache, slot = @cache__slot}, {global = @counter, initial = @counter__initial, slot = @counter__slot}, {global = @stored, slot = @stored__slot}]
// CHECK-SAME: mlprog.shared_state = [@mapped]

// Constants are not state.
// CHECK: llvm.mlir.global private constant @weights(dense<1.000000e+00> : tensor<4xf32>)
// CHECK-NOT: @weights__slot
llvm.mlir.global private constant @weights(dense<1.0> : tensor<4xf32>) {alignment = 64 : i64} : !llvm.array<4 x f32>

// All zeros: a new instance starts from zeros, no copy.
// CHECK: llvm.mlir.global private @cache(dense<0.000000e+00> : tensor<8xf32>) {{.*}}alignment = 128
// CHECK-NEXT: llvm.mlir.global private @cache__slot() {{.*}}alignment = 8 : i64{{.*}} : !llvm.ptr {
// CHECK-NEXT:   %[[A:.*]] = llvm.mlir.addressof @cache : !llvm.ptr
// CHECK-NEXT:   llvm.return %[[A]] : !llvm.ptr
// CHECK-NOT: @cache__initial
llvm.mlir.global private @cache(dense<0.0> : tensor<8xf32>) {alignment = 128 : i64} : !llvm.array<8 x f32>

// A non-zero initial value is kept as a constant copy.
// CHECK: llvm.mlir.global private @counter(dense<[1, 2]> : tensor<2xi32>)
// CHECK: llvm.mlir.global private @counter__slot()
// CHECK: llvm.mlir.global private constant @counter__initial(dense<[1, 2]> : tensor<2xi32>) {{.*}}alignment = 128
llvm.mlir.global private @counter(dense<[1, 2]> : tensor<2xi32>) {alignment = 128 : i64} : !llvm.array<2 x i32>

// The descriptor box and flag of a state of dynamic shape: undefined and
// false initial values count as zeros.
llvm.mlir.global private @box() : !llvm.struct<(ptr, ptr, i64)> {
  %u = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64)>
  llvm.return %u : !llvm.struct<(ptr, ptr, i64)>
}
llvm.mlir.global private @stored(false) : i1

// External data cannot be copied: shared, read directly.
llvm.mlir.global external @mapped() : !llvm.array<4 x f32>

// CHECK-LABEL: llvm.func @step
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @cache__slot : !llvm.ptr
// CHECK-NEXT: %[[CACHE:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[CACHE]]
// CHECK: %[[FSLOT:.*]] = llvm.mlir.addressof @stored__slot : !llvm.ptr
// CHECK-NEXT: %[[FLAG:.*]] = llvm.load %[[FSLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.load %[[FLAG]] : !llvm.ptr -> i1
// CHECK: llvm.mlir.addressof @mapped : !llvm.ptr
// CHECK: llvm.mlir.addressof @weights : !llvm.ptr
llvm.func @step(%x: f32) -> f32 {
  %c = llvm.mlir.addressof @cache : !llvm.ptr
  llvm.store %x, %c : f32, !llvm.ptr
  %s = llvm.mlir.addressof @stored : !llvm.ptr
  %f = llvm.load %s : !llvm.ptr -> i1
  %m = llvm.mlir.addressof @mapped : !llvm.ptr
  %v = llvm.load %m : !llvm.ptr -> f32
  %w = llvm.mlir.addressof @weights : !llvm.ptr
  %y = llvm.load %w : !llvm.ptr -> f32
  %r = llvm.fadd %v, %y : f32
  llvm.return %r : f32
}

// A second run changes nothing (the slots are not state).
// TWICE-NOT: __slot__slot

// A module that is not lowered yet has no LLVM globals: nothing changes
// but the (empty) record.
// RUN: mlprog-opt --mlprog-per-instance-state %mlprog_src_root/test/Integration/repeat-counter.mlir | FileCheck %s --check-prefix=UNLOWERED
// UNLOWERED: module attributes {mlprog.instance_state = []}
// UNLOWERED: ml_program.global private mutable @c
