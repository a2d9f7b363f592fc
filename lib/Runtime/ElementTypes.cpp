//===- ElementTypes.cpp - Element types at the runner's boundary ----------===//
//
// Which host dtypes (Formats/Npy.h) an MLIR element type accepts as an input
// and returns as a result (JitRunner.h: isCompatible, getResultDType).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Runtime/JitRunner.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlprog;

bool mlprog::isCompatible(Type elementType, DType dtype) {
  if (auto intType = dyn_cast<IntegerType>(elementType)) {
    if (intType.getWidth() == 1)
      return dtype == DType::Bool;
    bool isSigned = llvm::is_contained(
        {DType::I2, DType::I4, DType::I8, DType::I16, DType::I32, DType::I64},
        dtype);
    bool isUnsigned = llvm::is_contained(
        {DType::U2, DType::U4, DType::U8, DType::U16, DType::U32, DType::U64},
        dtype);
    if (getDTypeBits(dtype) != intType.getWidth())
      return false;
    if (intType.isSigned())
      return isSigned;
    if (intType.isUnsigned())
      return isUnsigned;
    return isSigned || isUnsigned;
  }
  if (isa<IndexType>(elementType))
    return dtype == DType::I64 || dtype == DType::U64;
  if (isa<StringType>(elementType))
    return dtype == DType::Str;
  std::optional<DType> floatType = getResultDType(elementType);
  return isa<FloatType>(elementType) && floatType == dtype;
}

std::optional<DType> mlprog::getResultDType(Type elementType) {
  if (isa<IndexType>(elementType))
    return DType::I64;
  if (isa<StringType>(elementType))
    return DType::Str;
  if (auto intType = dyn_cast<IntegerType>(elementType)) {
    bool isUnsigned = intType.isUnsigned();
    switch (intType.getWidth()) {
    case 1:
      return DType::Bool;
    case 2:
      return isUnsigned ? DType::U2 : DType::I2;
    case 4:
      return isUnsigned ? DType::U4 : DType::I4;
    case 8:
      return isUnsigned ? DType::U8 : DType::I8;
    case 16:
      return isUnsigned ? DType::U16 : DType::I16;
    case 32:
      return isUnsigned ? DType::U32 : DType::I32;
    case 64:
      return isUnsigned ? DType::U64 : DType::I64;
    default:
      return std::nullopt;
    }
  }
  return llvm::TypeSwitch<Type, std::optional<DType>>(elementType)
      .Case([](Float16Type) { return DType::F16; })
      .Case([](BFloat16Type) { return DType::BF16; })
      .Case([](Float32Type) { return DType::F32; })
      .Case([](Float64Type) { return DType::F64; })
      .Case([](Float8E4M3FNType) { return DType::F8E4M3FN; })
      .Case([](Float8E4M3FNUZType) { return DType::F8E4M3FNUZ; })
      .Case([](Float8E5M2Type) { return DType::F8E5M2; })
      .Case([](Float8E5M2FNUZType) { return DType::F8E5M2FNUZ; })
      .Case([](Float8E8M0FNUType) { return DType::F8E8M0FNU; })
      .Case([](Float4E2M1FNType) { return DType::F4E2M1FN; })
      .Default([](Type) { return std::nullopt; });
}
