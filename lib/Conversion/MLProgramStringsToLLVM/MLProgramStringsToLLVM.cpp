//===- MLProgramStringsToLLVM.cpp - String tensors to runtime calls -------===//
//
// Lowers `!ml_program.string` to pointer-sized integers and the ml_program
// string ops to calls into the C runtime of include/mlprog-c/Strings.h, so
// that bufferization and the rest of the CPU pipeline see tensors of i64
// (docs/strings.md).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Conversion/MLProgramStringsToLLVM/MLProgramStringsToLLVM.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlprog {
#define GEN_PASS_DEF_CONVERTMLPROGRAMSTRINGSTOLLVM
#include "mlprog/Conversion/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;

namespace {

/// Builds the LLVM side of the string ops of one module: runtime function
/// declarations and string literal globals, each created once.
class StringLowering {
public:
  explicit StringLowering(ModuleOp module)
      : module(module), ctx(module.getContext()),
        ptrType(LLVM::LLVMPointerType::get(ctx)),
        i64(IntegerType::get(ctx, 64)) {}

  /// Replaces `op` (a string op) by its lowering.
  LogicalResult lower(Operation *op);

private:
  /// The declaration of runtime function `name` of type `type`.
  LLVM::LLVMFuncOp getFunction(StringRef name, Type result,
                               ArrayRef<Type> params);

  /// Calls runtime function `name` with `args` and returns its result.
  Value call(OpBuilder &b, Location loc, StringRef name, Type result,
             ValueRange args);

  /// The `!llvm.ptr` a string operand (a value of type
  /// `!ml_program.string`, to become i64) stands for.
  Value toPointer(OpBuilder &b, Location loc, Value string);

  /// The `!ml_program.string` value standing for the pointer `ptr`.
  Value fromPointer(OpBuilder &b, Location loc, Value ptr);

  /// The address of a NUL-terminated constant copy of `text`.
  Value getLiteral(OpBuilder &b, Location loc, StringRef text);

  Value lowerConstant(OpBuilder &b, StringConstantOp op);
  Value lowerFromNumber(OpBuilder &b, StringFromNumberOp op);
  Value lowerToNumber(OpBuilder &b, StringToNumberOp op);

  ModuleOp module;
  MLIRContext *ctx;
  Type ptrType, i64;
  llvm::StringMap<LLVM::GlobalOp> literals;
};

LLVM::LLVMFuncOp StringLowering::getFunction(StringRef name, Type result,
                                             ArrayRef<Type> params) {
  if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return func;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name,
                                  LLVM::LLVMFunctionType::get(result, params));
}

Value StringLowering::call(OpBuilder &b, Location loc, StringRef name,
                           Type result, ValueRange args) {
  LLVM::LLVMFuncOp func =
      getFunction(name, result, llvm::to_vector(args.getTypes()));
  return LLVM::CallOp::create(b, loc, func, args).getResult();
}

Value StringLowering::toPointer(OpBuilder &b, Location loc, Value string) {
  Value word =
      UnrealizedConversionCastOp::create(b, loc, i64, string).getResult(0);
  return LLVM::IntToPtrOp::create(b, loc, ptrType, word);
}

Value StringLowering::fromPointer(OpBuilder &b, Location loc, Value ptr) {
  Value word = LLVM::PtrToIntOp::create(b, loc, i64, ptr);
  return UnrealizedConversionCastOp::create(b, loc, StringType::get(ctx), word)
      .getResult(0);
}

Value StringLowering::getLiteral(OpBuilder &b, Location loc, StringRef text) {
  LLVM::GlobalOp &global = literals[text];
  if (!global) {
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    std::string bytes = text.str();
    bytes.push_back('\0');
    auto type =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), bytes.size());
    std::string name = "__mlprog_string_" + std::to_string(literals.size() - 1);
    while (module.lookupSymbol(name))
      name += "_";
    global = LLVM::GlobalOp::create(top, module.getLoc(), type,
                                    /*isConstant=*/true, LLVM::Linkage::Private,
                                    name, top.getStringAttr(bytes));
  }
  return LLVM::AddressOfOp::create(b, loc, global);
}

Value StringLowering::lowerConstant(OpBuilder &b, StringConstantOp op) {
  return fromPointer(b, op.getLoc(), getLiteral(b, op.getLoc(), op.getValue()));
}

/// Significand bits (with the implicit one) of the floats the runtime formats.
static int32_t getMantissaBits(FloatType type) {
  return int32_t(type.getFPMantissaWidth());
}

Value StringLowering::lowerFromNumber(OpBuilder &b, StringFromNumberOp op) {
  Location loc = op.getLoc();
  Value x = op.getInput();
  Type type = x.getType();
  Value ptr;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    Type f64 = b.getF64Type();
    Value wide =
        floatType.getWidth() < 64 ? arith::ExtFOp::create(b, loc, f64, x) : x;
    Value bits = LLVM::ConstantOp::create(
        b, loc, b.getI32Type(),
        b.getI32IntegerAttr(getMantissaBits(floatType)));
    ptr = call(b, loc, "mlprog_string_from_float", ptrType, {wide, bits});
  } else if (type.isInteger(1)) {
    Value wide = arith::ExtUIOp::create(b, loc, b.getI32Type(), x);
    ptr = call(b, loc, "mlprog_string_from_bool", ptrType, {wide});
  } else {
    bool isUnsigned = op.getIsUnsigned();
    Value wide = x;
    if (type.getIntOrFloatBitWidth() < 64)
      wide = isUnsigned ? Value(arith::ExtUIOp::create(b, loc, i64, x))
                        : Value(arith::ExtSIOp::create(b, loc, i64, x));
    ptr = call(b, loc,
               isUnsigned ? "mlprog_string_from_u64" : "mlprog_string_from_i64",
               ptrType, {wide});
  }
  return fromPointer(b, loc, ptr);
}

Value StringLowering::lowerToNumber(OpBuilder &b, StringToNumberOp op) {
  Location loc = op.getLoc();
  Value ptr = toPointer(b, loc, op.getInput());
  Type type = op.getType();
  if (type.isF32())
    return call(b, loc, "mlprog_string_to_f32", type, {ptr});
  if (auto floatType = dyn_cast<FloatType>(type)) {
    Value wide = call(b, loc, "mlprog_string_to_f64", b.getF64Type(), {ptr});
    return floatType.getWidth() < 64
               ? Value(arith::TruncFOp::create(b, loc, type, wide))
               : wide;
  }
  if (type.isInteger(1)) {
    Value word = call(b, loc, "mlprog_string_to_bool", b.getI32Type(), {ptr});
    return arith::TruncIOp::create(b, loc, type, word);
  }
  Value word =
      call(b, loc,
           op.getIsUnsigned() ? "mlprog_string_to_u64" : "mlprog_string_to_i64",
           i64, {ptr});
  return type.getIntOrFloatBitWidth() < 64
             ? Value(arith::TruncIOp::create(b, loc, type, word))
             : word;
}

LogicalResult StringLowering::lower(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value result =
      llvm::TypeSwitch<Operation *, Value>(op)
          .Case([&](StringConstantOp c) { return lowerConstant(b, c); })
          .Case([&](StringFromNumberOp c) { return lowerFromNumber(b, c); })
          .Case([&](StringToNumberOp c) { return lowerToNumber(b, c); })
          .Case<StringLowerOp, StringUpperOp>([&](auto c) {
            StringRef name = isa<StringLowerOp>(op) ? "mlprog_string_lower"
                                                    : "mlprog_string_upper";
            return fromPointer(
                b, loc,
                call(b, loc, name, ptrType, {toPointer(b, loc, c.getInput())}));
          })
          .Case([&](StringConcatOp c) {
            return fromPointer(b, loc,
                               call(b, loc, "mlprog_string_concat", ptrType,
                                    {toPointer(b, loc, c.getLhs()),
                                     toPointer(b, loc, c.getRhs())}));
          })
          .Case([&](StringSplitCountOp c) {
            Value maxsplit = LLVM::ConstantOp::create(
                b, loc, i64, b.getI64IntegerAttr(c.getMaxsplit()));
            return call(b, loc, "mlprog_string_split_count", i64,
                        {toPointer(b, loc, c.getInput()),
                         getLiteral(b, loc, c.getDelimiter()), maxsplit});
          })
          .Case([&](StringSplitPartOp c) {
            Value maxsplit = LLVM::ConstantOp::create(
                b, loc, i64, b.getI64IntegerAttr(c.getMaxsplit()));
            return fromPointer(b, loc,
                               call(b, loc, "mlprog_string_split_part", ptrType,
                                    {toPointer(b, loc, c.getInput()),
                                     getLiteral(b, loc, c.getDelimiter()),
                                     maxsplit, c.getIndex()}));
          })
          .Case([&](StringEqualOp c) {
            Value word = call(
                b, loc, "mlprog_string_equal", b.getI32Type(),
                {toPointer(b, loc, c.getLhs()), toPointer(b, loc, c.getRhs())});
            return arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ne, word,
                arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
          })
          .Default([](Operation *) { return Value(); });
  if (!result)
    return op->emitOpError("has no lowering to the string runtime");
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return success();
}

/// Whether `type` is, or holds, `!ml_program.string`.
static bool holdsString(Type type) {
  bool found = false;
  type.walk([&](StringType) { found = true; });
  return found;
}

struct ConvertMLProgramStringsToLLVMPass
    : mlprog::impl::ConvertMLProgramStringsToLLVMBase<
          ConvertMLProgramStringsToLLVMPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Dense string constants cannot be turned into words.
    WalkResult refused = module.walk([](Operation *op) {
      for (NamedAttribute attr : op->getAttrs()) {
        auto typed = dyn_cast<TypedAttr>(attr.getValue());
        if (typed && holdsString(typed.getType())) {
          op->emitOpError("has a string constant attribute '")
              << attr.getName().getValue()
              << "'; string tensors are built from ml_program.string_constant";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (refused.wasInterrupted())
      return signalPassFailure();

    SmallVector<Operation *> stringOps;
    module.walk([&](Operation *op) {
      if (isa<StringConstantOp, StringFromNumberOp, StringToNumberOp,
              StringLowerOp, StringUpperOp, StringConcatOp, StringEqualOp,
              StringSplitCountOp, StringSplitPartOp>(op))
        stringOps.push_back(op);
    });
    StringLowering lowering(module);
    for (Operation *op : stringOps)
      if (failed(lowering.lower(op)))
        return signalPassFailure();

    // Types only: attributes (the recorded host signature) keep strings.
    auto i64 = IntegerType::get(&getContext(), 64);
    AttrTypeReplacer replacer;
    replacer.addReplacement([&](StringType) -> Type { return i64; });
    module.walk([&](Operation *op) {
      for (Value result : op->getResults())
        if (holdsString(result.getType()))
          result.setType(replacer.replace(result.getType()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (holdsString(arg.getType()))
              arg.setType(replacer.replace(arg.getType()));
      if (auto func = dyn_cast<FunctionOpInterface>(op))
        if (holdsString(func.getFunctionType()))
          func.setFunctionTypeAttr(
              TypeAttr::get(replacer.replace(func.getFunctionType())));
    });
    // The casts between a string and its word are now i64 -> i64.
    module.walk([](UnrealizedConversionCastOp cast) {
      if (cast->getNumOperands() == 1 && cast->getNumResults() == 1 &&
          cast.getOperand(0).getType() == cast.getResult(0).getType()) {
        cast.getResult(0).replaceAllUsesWith(cast.getOperand(0));
        cast->erase();
      }
    });
  }
};

} // namespace
