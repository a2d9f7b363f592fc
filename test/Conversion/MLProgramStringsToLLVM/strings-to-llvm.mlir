// RUN: mlprog-opt %s -split-input-file --convert-ml-program-strings-to-llvm -verify-diagnostics | FileCheck %s

// String tensors become i64 words; the ops become runtime calls. One global
// per distinct literal.

// CHECK-DAG: llvm.func @mlprog_string_from_float(f64, i32) -> !llvm.ptr
// CHECK-DAG: llvm.func @mlprog_string_equal(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @mlprog_string_upper(!llvm.ptr) -> !llvm.ptr
// CHECK-DAG: llvm.mlir.global private constant @[[LIT:.*]]("monday\00")
// CHECK-LABEL: func.func @format
// CHECK-SAME: (%{{.*}}: tensor<4xf16>) -> tensor<4xi64>
func.func @format(%x: tensor<4xf16>) -> tensor<4x!ml_program.string> {
  // CHECK: tensor.empty() : tensor<4xi64>
  %e = tensor.empty() : tensor<4x!ml_program.string>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf16>) outs(%e : tensor<4x!ml_program.string>) {
  // CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: i64):
  ^bb0(%a: f16, %o: !ml_program.string):
    // CHECK: %[[WIDE:.*]] = arith.extf %[[IN]] : f16 to f64
    // CHECK: %[[BITS:.*]] = llvm.mlir.constant(11 : i32) : i32
    // CHECK: %[[P:.*]] = llvm.call @mlprog_string_from_float(%[[WIDE]], %[[BITS]])
    // CHECK: %[[S:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr to i64
    %s = ml_program.string_from_number %a : f16
    // CHECK: llvm.mlir.addressof @[[LIT]]
    %c = ml_program.string_constant "monday"
    %c2 = ml_program.string_constant "monday"
    %eq = ml_program.string_equal %c, %c2
    // CHECK: llvm.call @mlprog_string_upper
    %u = ml_program.string_upper %s
    %sel = arith.select %eq, %u, %c : !ml_program.string
    // CHECK: linalg.yield %{{.*}} : i64
    linalg.yield %sel : !ml_program.string
  } -> tensor<4x!ml_program.string>
  return %r : tensor<4x!ml_program.string>
}

// -----

// Parsing: f32 reads with strtof, narrower integers through i64.

// CHECK-LABEL: func.func @parse
func.func @parse(%s: !ml_program.string) -> (f32, i8, i1) {
  // CHECK: %[[P:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
  // CHECK: llvm.call @mlprog_string_to_f32(%[[P]]) : (!llvm.ptr) -> f32
  %f = ml_program.string_to_number %s : f32
  // CHECK: %[[U:.*]] = llvm.call @mlprog_string_to_u64
  // CHECK: arith.trunci %[[U]] : i64 to i8
  %u = ml_program.string_to_number %s unsigned : i8
  // CHECK: %[[B:.*]] = llvm.call @mlprog_string_to_bool
  // CHECK: arith.trunci %[[B]] : i32 to i1
  %b = ml_program.string_to_number %s : i1
  return %f, %u, %b : f32, i8, i1
}

// -----

// Split: the delimiter is a literal, maxsplit a constant.

// CHECK-DAG: llvm.mlir.global private constant @[[DOT:.*]](".\00")
// CHECK-LABEL: func.func @split
func.func @split(%s: !ml_program.string, %k: i64) -> (i64, !ml_program.string) {
  // CHECK-DAG: %[[D:.*]] = llvm.mlir.addressof @[[DOT]]
  // CHECK-DAG: %[[M:.*]] = llvm.mlir.constant(-1 : i64) : i64
  // CHECK: llvm.call @mlprog_string_split_count(%{{.*}}, %[[D]], %[[M]])
  %n = ml_program.string_split_count %s {delimiter = ".", maxsplit = -1 : i64}
  // CHECK: llvm.call @mlprog_string_split_part(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64) -> !llvm.ptr
  %p = ml_program.string_split_part %s[%k] {delimiter = ".", maxsplit = -1 : i64}
  return %n, %p : i64, !ml_program.string
}

// -----

// A dense string attribute cannot become words.
func.func @dense() -> tensor<1x!ml_program.string> {
  // expected-error @+1 {{has a string constant attribute 'value'}}
  %c = arith.constant dense<"a"> : tensor<1x!ml_program.string>
  return %c : tensor<1x!ml_program.string>
}
