// RUN: mlprog-opt %s --split-input-file --allow-unregistered-dialect --mlprog-gpu-expand-math | FileCheck %s

// In kernels, functions with a PTX instruction become inline assembly
// (f16 through f32); trunc and fma become LLVM intrinsics.
// CHECK-LABEL: gpu.func @instructions
// CHECK-SAME: (%[[X:.*]]: f32, %[[H:.*]]: f16, %[[D:.*]]: f64)
// CHECK: %[[FLOOR:.*]] = llvm.inline_asm "cvt.rmi.f32.f32 $0, $1;", "=f,f" %[[X]] : (f32) -> f32
// CHECK: %[[SQRT:.*]] = llvm.inline_asm "sqrt.rn.f64 $0, $1;", "=d,d" %[[D]] : (f64) -> f64
// CHECK: %[[WIDE:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: %[[CEIL32:.*]] = llvm.inline_asm "cvt.rpi.f32.f32 $0, $1;", "=f,f" %[[WIDE]] : (f32) -> f32
// CHECK: %[[CEIL:.*]] = arith.truncf %[[CEIL32]] : f32 to f16
// CHECK: %[[EVEN:.*]] = llvm.inline_asm "cvt.rni.f32.f32 $0, $1;", "=f,f" %[[X]] : (f32) -> f32
// CHECK: %[[TRUNC:.*]] = llvm.intr.trunc(%[[X]]) : (f32) -> f32
// CHECK: %[[FMA:.*]] = llvm.intr.fma(%[[X]], %[[X]], %[[X]]) : (f32, f32, f32) -> f32
// CHECK: "test.use"(%[[FLOOR]], %[[SQRT]], %[[CEIL]], %[[EVEN]], %[[TRUNC]], %[[FMA]])
// CHECK-NOT: math.
gpu.module @kernels {
  gpu.func @instructions(%x: f32, %h: f16, %d: f64) kernel {
    %0 = math.floor %x : f32
    %1 = math.sqrt %d : f64
    %2 = math.ceil %h : f16
    %3 = math.roundeven %x : f32
    %4 = math.trunc %x : f32
    %5 = math.fma %x, %x, %x : f32
    "test.use"(%0, %1, %2, %3, %4, %5) : (f32, f64, f16, f32, f32, f32) -> ()
    gpu.return
  }
}

// -----

// absf and copysign are sign-bit arithmetic, rsqrt 1 / sqrt, round a trunc
// plus a step of 1 away from zero when the fraction is at least 0.5.
// CHECK-LABEL: gpu.func @formulas
// CHECK-SAME: (%[[X:.*]]: f32, %[[H:.*]]: f16)
// CHECK-DAG: %[[MAGNITUDE16:.*]] = arith.constant 32767 : i16
// CHECK-DAG: %[[MAGNITUDE:.*]] = arith.constant 2147483647 : i32
// CHECK-DAG: %[[SIGN:.*]] = arith.constant -2147483648 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[HBITS:.*]] = arith.bitcast %[[H]] : f16 to i16
// CHECK: %[[HABS:.*]] = arith.andi %[[HBITS]], %[[MAGNITUDE16]] : i16
// CHECK: %[[ABS:.*]] = arith.bitcast %[[HABS]] : i16 to f16
// CHECK: %[[XBITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: arith.andi %[[XBITS]], %[[MAGNITUDE]] : i32
// CHECK: arith.andi %{{.*}}, %[[SIGN]] : i32
// CHECK: %[[MERGED:.*]] = arith.ori
// CHECK: %[[COPYSIGN:.*]] = arith.bitcast %[[MERGED]] : i32 to f32
// CHECK: %[[ROOT:.*]] = llvm.inline_asm "sqrt.rn.f32 $0, $1;", "=f,f" %[[X]] : (f32) -> f32
// CHECK: %[[RSQRT:.*]] = arith.divf %[[ONE]], %[[ROOT]] : f32
// CHECK: %[[T:.*]] = llvm.intr.trunc(%[[X]]) : (f32) -> f32
// CHECK: arith.subf %[[X]], %[[T]] : f32
// CHECK: %[[UP:.*]] = arith.cmpf oge, %{{.*}}, %[[HALF]] : f32
// CHECK: arith.select %[[UP]], %[[ONE]], %{{.*}} : f32
// CHECK: %[[ROUND:.*]] = arith.addf %[[T]], %{{.*}} : f32
// CHECK: "test.use"(%[[ABS]], %[[COPYSIGN]], %[[RSQRT]], %[[ROUND]])
// CHECK-NOT: math.
gpu.module @kernels {
  gpu.func @formulas(%x: f32, %h: f16) kernel {
    %0 = math.absf %h : f16
    %1 = math.copysign %x, %x : f32
    %2 = math.rsqrt %x : f32
    %3 = math.round %x : f32
    "test.use"(%0, %1, %2, %3) : (f16, f32, f32, f32) -> ()
    gpu.return
  }
}

// -----

// Transcendental functions become polynomials, in kernels and on the host;
// the host keeps the math ops that have LLVM intrinsics (floor).
// CHECK-LABEL: gpu.func @exp
// CHECK-NOT: math.exp
// CHECK: llvm.inline_asm "cvt.rmi.f32.f32
// CHECK: llvm.intr.fma
// CHECK: gpu.return
// CHECK-LABEL: func.func @host_exp
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[FLOOR:.*]] = math.floor %[[X]] : f32
// CHECK-NOT: math.exp
// CHECK: return %[[FLOOR]], %{{.*}} : f32, f32
gpu.module @kernels {
  gpu.func @exp(%x: f32) kernel {
    %0 = math.exp %x : f32
    "test.use"(%0) : (f32) -> ()
    gpu.return
  }
}
func.func @host_exp(%x: f32) -> (f32, f32) {
  %0 = math.floor %x : f32
  %1 = math.exp %x : f32
  return %0, %1 : f32, f32
}

// -----

// f64 exp has no approximation: it is left for NVVM (and
// mlprog-gpu-check-ptx).
// CHECK-LABEL: gpu.func @exp_f64
// CHECK: math.exp %{{.*}} : f64
gpu.module @kernels {
  gpu.func @exp_f64(%x: f64) kernel {
    %0 = math.exp %x : f64
    "test.use"(%0) : (f64) -> ()
    gpu.return
  }
}

// -----

// Vector operands: erf and exp become polynomials on vectors (the
// approximations build vector.broadcast; this crashed when the pass did not
// load the vector dialect); sqrt stays (NVPTX has an instruction for it) and
// rsqrt becomes 1 / sqrt, not upstream's rsqrt approximation, an x86 AVX2
// intrinsic (the pass's filter once missed it: upstream passes operation
// names, "math.rsqrt").
// CHECK-LABEL: func.func @vectors
// CHECK-SAME: (%[[V:.*]]: vector<8xf32>)
// CHECK-NOT: math.erf
// CHECK-NOT: math.exp
// CHECK-NOT: x86vector
// CHECK: %[[S:.*]] = math.sqrt %[[V]] : vector<8xf32>
// CHECK-NEXT: %[[R:.*]] = math.sqrt %[[V]] : vector<8xf32>
// CHECK-NEXT: %[[INV:.*]] = arith.divf %{{.*}}, %[[R]] : vector<8xf32>
// CHECK-NOT: x86vector
// CHECK: return %{{.*}}, %{{.*}}, %[[S]], %[[INV]]
func.func @vectors(%v: vector<8xf32>) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
  %0 = math.erf %v : vector<8xf32>
  %1 = math.exp %v : vector<8xf32>
  %2 = math.sqrt %v : vector<8xf32>
  %3 = math.rsqrt %v : vector<8xf32>
  return %0, %1, %2, %3 : vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>
}
