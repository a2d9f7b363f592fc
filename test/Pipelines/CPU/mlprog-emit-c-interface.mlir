// RUN: mlprog-opt %s --mlprog-emit-c-interface | FileCheck %s

// Only public functions get C wrappers; private functions and declarations
// are left alone.
// CHECK-LABEL: func.func @entry
// CHECK-SAME: attributes {llvm.emit_c_interface} {
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: -> memref<4xf32> {
// CHECK-LABEL: func.func private @external
// CHECK-SAME: (memref<4xf32>){{$}}
// CHECK-NOT: llvm.emit_c_interface
func.func @entry(%a: memref<4xf32>) -> memref<4xf32> {
  %b = call @helper(%a) : (memref<4xf32>) -> memref<4xf32>
  return %b : memref<4xf32>
}
func.func private @helper(%a: memref<4xf32>) -> memref<4xf32> {
  return %a : memref<4xf32>
}
func.func private @external(memref<4xf32>)
