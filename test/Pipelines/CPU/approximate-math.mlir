// RUN: mlprog-opt %s --mlprog-approximate-math | FileCheck %s

// Transcendentals on f32 vectors become polynomials whose fmas and floors
// work on whole vectors (no math op is left for the libm lowering, which
// would call a scalar function per lane; absf lowers to an LLVM intrinsic);
// scalars and other element types keep the math op for libm.
// CHECK-LABEL: func.func @vectors
// CHECK-NOT: math.{{(erf|exp|tanh|log|fma|floor)}}
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: math.{{(erf|exp|tanh|log|fma|floor)}}
// CHECK: llvm.intr.floor({{.*}}) : (vector<16xf32>) -> vector<16xf32>
// CHECK-NOT: math.{{(erf|exp|tanh|log|fma|floor)}}
// CHECK: return
func.func @vectors(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.erf %x : vector<16xf32>
  %1 = math.exp %0 : vector<16xf32>
  %2 = math.tanh %1 : vector<16xf32>
  %3 = math.log %2 : vector<16xf32>
  return %3 : vector<16xf32>
}

// CHECK-LABEL: func.func @kept
// CHECK: math.erf %{{.*}} : f32
// CHECK: math.exp %{{.*}} : vector<8xf64>
// CHECK: math.sqrt %{{.*}} : vector<16xf32>
func.func @kept(%x: f32, %y: vector<8xf64>, %z: vector<16xf32>) -> (f32, vector<8xf64>, vector<16xf32>) {
  %0 = math.erf %x : f32
  %1 = math.exp %y : vector<8xf64>
  %2 = math.sqrt %z : vector<16xf32>
  return %0, %1, %2 : f32, vector<8xf64>, vector<16xf32>
}

// Small integer powers of a vector (a layer norm's variance squares, GPT-2's
// GELU cubes) are products: the square is the correctly rounded value, the
// cube what onnxruntime computes for Pow(x, 3), without a powf call per
// lane. Other exponents and scalars keep powf.
// CHECK-LABEL: func.func @powers
// CHECK: %[[SQ:.*]] = arith.mulf %[[X:.*]], %[[X]] : vector<16xf32>
// CHECK: %[[SQ3:.*]] = arith.mulf %[[X]], %[[X]] : vector<16xf32>
// CHECK: %[[CUBE:.*]] = arith.mulf %[[SQ3]], %[[X]] : vector<16xf32>
// CHECK: %[[SQ4:.*]] = arith.mulf %[[X]], %[[X]] : vector<16xf32>
// CHECK: %[[FOURTH:.*]] = arith.mulf %[[SQ4]], %[[SQ4]] : vector<16xf32>
// CHECK: math.powf %[[X]], %{{.*}} : vector<16xf32>
// CHECK: math.powf %{{.*}}, %{{.*}} : f32
// CHECK: return %[[SQ]], %[[CUBE]], %[[FOURTH]]
func.func @powers(%x: vector<16xf32>, %s: f32) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, f32) {
  %two = arith.constant dense<2.0> : vector<16xf32>
  %three = arith.constant dense<3.0> : vector<16xf32>
  %four = arith.constant dense<4.0> : vector<16xf32>
  %five = arith.constant dense<5.0> : vector<16xf32>
  %c2 = arith.constant 2.0 : f32
  %0 = math.powf %x, %two : vector<16xf32>
  %1 = math.powf %x, %three : vector<16xf32>
  %2 = math.powf %x, %four : vector<16xf32>
  %3 = math.powf %x, %five : vector<16xf32>
  %4 = math.powf %s, %c2 : f32
  return %0, %1, %2, %3, %4 : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, f32
}
