// RUN: mlprog-opt %s --split-input-file --mlprog-expand-narrow-float-casts | FileCheck %s

// f32 -> f8E4M3FN: the f32 bits are rounded to 3 mantissa bits, ties to even
// (add 2^19 - 1 and the lowest kept bit, shift by 20) and rebiased (127 - 7
// = 120, << 3 = 960); subnormal results come from the magnitude scaled by
// 2^9 and rounded by adding and subtracting 2^23; codes past 0x7E (448)
// become the NaN 0x7F, with the sign put back.
// CHECK-LABEL: func.func @trunc_e4m3fn
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: %[[ABS:.*]] = arith.andi %[[BITS]], %{{.*}} : i32
// CHECK: arith.addi %[[ABS]], %c524287_i32
// CHECK: arith.subi %{{.*}}, %c960_i32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %[[MAGIC:.*]] : f32
// CHECK: arith.subf %{{.*}}, %[[MAGIC]] : f32
// CHECK: arith.cmpi ugt, %{{.*}}, %c126_i32
// CHECK: %[[NARROW:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK: %[[R:.*]] = arith.bitcast %[[NARROW]] : i8 to f8E4M3FN
// CHECK-NOT: arith.truncf
// CHECK: return %[[R]]
func.func @trunc_e4m3fn(%x: f32) -> f8E4M3FN {
  %t = arith.truncf %x : f32 to f8E4M3FN
  return %t : f8E4M3FN
}

// -----

// Vectors keep their shape; the f32 result is then truncated to f16 as
// usual. 0x80 is the one NaN of f8E5M2FNUZ.
// CHECK-LABEL: func.func @ext_e5m2fnuz_vector
// CHECK: %[[B:.*]] = arith.bitcast %{{.*}} : vector<8xf8E5M2FNUZ> to vector<8xi8>
// CHECK: %[[W:.*]] = arith.extui %[[B]] : vector<8xi8> to vector<8xi32>
// CHECK: arith.cmpi eq, %[[W]], %{{.*}} : vector<8xi32>
// CHECK: %[[F:.*]] = arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: arith.truncf %[[F]] : vector<8xf32> to vector<8xf16>
func.func @ext_e5m2fnuz_vector(%x: vector<8xf8E5M2FNUZ>) -> vector<8xf16> {
  %t = arith.extf %x : vector<8xf8E5M2FNUZ> to vector<8xf16>
  return %t : vector<8xf16>
}

// -----

// f8E8M0FNU rounding `downward` keeps the f32 exponent field (NaN and
// infinity become 0xFF); `upward` adds one when a mantissa bit is set.
// CHECK-LABEL: func.func @e8m0_down
// CHECK: arith.shrui %{{.*}}, %c23_i32
// CHECK-NOT: arith.extui
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: arith.bitcast %{{.*}} : i8 to f8E8M0FNU
func.func @e8m0_down(%x: f32) -> f8E8M0FNU {
  %t = arith.truncf %x downward : f32 to f8E8M0FNU
  return %t : f8E8M0FNU
}
// CHECK-LABEL: func.func @e8m0_up
// CHECK: arith.andi %{{.*}}, %c8388607_i32
// CHECK: arith.extui %{{.*}} : i1 to i32
// CHECK: arith.bitcast %{{.*}} : i8 to f8E8M0FNU
func.func @e8m0_up(%x: f32) -> f8E8M0FNU {
  %t = arith.truncf %x upward : f32 to f8E8M0FNU
  return %t : f8E8M0FNU
}

// -----

// Narrow to narrow goes through f32: f4E2M1FN (an i4 of bits) -> f8E4M3FN.
// CHECK-LABEL: func.func @f4_to_f8
// CHECK: arith.bitcast %{{.*}} : f4E2M1FN to i4
// CHECK: arith.extui %{{.*}} : i4 to i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.bitcast %{{.*}} : i8 to f8E4M3FN
func.func @f4_to_f8(%x: f4E2M1FN) -> f8E4M3FN {
  %t = arith.extf %x : f4E2M1FN to f8E4M3FN
  return %t : f8E4M3FN
}

// -----

// Casts LLVM handles itself are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: arith.extf %{{.*}} : f16 to f32
func.func @untouched(%x: f32, %y: f16) -> (bf16, f32) {
  %t = arith.truncf %x : f32 to bf16
  %e = arith.extf %y : f16 to f32
  return %t, %e : bf16, f32
}
