//===- MLProgramOps.cpp - ml_program dialect and ops ----------------------===//
//
// Dialect registration, custom assembly directives and verifiers of the
// ml_program ops.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlprog;

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

#include "mlprog/Dialect/MLProgram/IR/MLProgramDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "mlprog/Dialect/MLProgram/IR/MLProgramTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mlprog/Dialect/MLProgram/IR/MLProgramAttrs.cpp.inc"

/// Refuses what a parsed attribute or type left of its `<...>` body. The
/// dialect body of `#ml_program.NAME<...>` ends at the balanced `>`, so a
/// generated parser that stopped early (a parameterless `extern` or `token`)
/// leaves a `<` behind; MLIR itself does not check, and would drop it.
/// `spelling` is the attribute's `#ml_program.NAME` or the type's
/// `!ml_program.NAME`.
static ParseResult refuseTrailingParameters(DialectAsmParser &parser,
                                            const Twine &spelling) {
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalLess()))
    return parser.emitError(loc) << "unexpected parameters after '" << spelling
                                 << "' (it takes none)";
  return success();
}

Attribute MLProgramDialect::parseAttribute(DialectAsmParser &parser,
                                           Type type) const {
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic;
  Attribute attr;
  OptionalParseResult result =
      generatedAttributeParser(parser, &mnemonic, type, attr);
  if (!result.has_value()) {
    parser.emitError(loc) << "unknown attribute '#ml_program." << mnemonic
                          << "'";
    return {};
  }
  if (failed(*result) ||
      failed(refuseTrailingParameters(
          parser, "#" + attr.getAbstractAttribute().getName())))
    return {};
  return attr;
}

void MLProgramDialect::printAttribute(Attribute attr,
                                      DialectAsmPrinter &printer) const {
  (void)generatedAttributePrinter(attr, printer);
}

Type MLProgramDialect::parseType(DialectAsmParser &parser) const {
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic;
  Type type;
  OptionalParseResult result = generatedTypeParser(parser, &mnemonic, type);
  if (!result.has_value()) {
    parser.emitError(loc) << "unknown type '!ml_program." << mnemonic << "'";
    return {};
  }
  if (failed(*result) || failed(refuseTrailingParameters(
                             parser, "!" + type.getAbstractType().getName())))
    return {};
  return type;
}

void MLProgramDialect::printType(Type type, DialectAsmPrinter &printer) const {
  (void)generatedTypePrinter(type, printer);
}

namespace {
/// Prints `#ml_program.extern : T` as an alias-free attribute and
/// `!ml_program.token` as is; nothing to alias yet beyond upstream's choices.
struct MLProgramOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<ExternAttr>(attr)) {
      os << "extern";
      return AliasResult::OverridableAlias;
    }
    return AliasResult::NoAlias;
  }
};

/// Inlining of `ml_program.call`: a func into a func (SSACFG into SSACFG) or
/// a subgraph into a subgraph (graph into graph). Mixing the two would put
/// token-ordered ops in a func or unordered ops in a func, so it is refused.
struct MLProgramInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *call, Operation *callable,
                       bool wouldBeCloned) const final {
    Operation *caller =
        call->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
    return (isa<FuncOp>(callable) && isa_and_nonnull<FuncOp>(caller)) ||
           (isa<SubgraphOp>(callable) && isa_and_nonnull<SubgraphOp>(caller));
  }
  bool isLegalToInline(Region *dest, Region *src, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }
  bool isLegalToInline(Operation *op, Region *dest, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }

  /// Single-block callee: forward the terminator's operands.
  void handleTerminator(Operation *op, ValueRange valuesToRepl) const final {
    for (auto [result, value] : llvm::zip(valuesToRepl, op->getOperands()))
      result.replaceAllUsesWith(value);
  }

  /// Multi-block func callee: each return branches to the continuation.
  void handleTerminator(Operation *op, Block *newDest) const final {
    OpBuilder builder(op);
    cf::BranchOp::create(builder, op->getLoc(), newDest, op->getOperands());
    op->erase();
  }
};
} // namespace

void MLProgramDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "mlprog/Dialect/MLProgram/IR/MLProgramTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mlprog/Dialect/MLProgram/IR/MLProgramAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "mlprog/Dialect/MLProgram/IR/MLProgramOps.cpp.inc"
      >();
  addInterfaces<MLProgramOpAsmInterface, MLProgramInlinerInterface>();
}

LogicalResult
ExternalStorageAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            StringAttr file, StringAttr key,
                            std::optional<uint64_t> offset,
                            std::optional<uint64_t> length) {
  if (!file || file.getValue().empty())
    return emitError() << "external storage needs a non-empty 'file'";
  if (static_cast<bool>(key) == offset.has_value())
    return emitError()
           << "external storage needs exactly one of 'key' and 'offset'";
  if (length && !offset)
    return emitError() << "external storage 'length' needs an 'offset'";
  return success();
}

LogicalResult MLProgramDialect::verifyOperationAttribute(Operation *op,
                                                         NamedAttribute attr) {
  if (attr.getName() != ExternalStorageAttr::getAttrName())
    return op->emitError() << "unknown ml_program attribute '"
                           << attr.getName().getValue() << "'";
  auto storage = dyn_cast<ExternalStorageAttr>(attr.getValue());
  if (!storage)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' must be an #ml_program.external_storage";
  auto global = dyn_cast<GlobalOp>(op);
  if (!global || !isa_and_nonnull<ExternAttr>(global.getValueAttr()))
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' is only valid on an ml_program.global "
                              "initialized with #ml_program.extern";
  return success();
}

//===----------------------------------------------------------------------===//
// Unsigned boundary values
//===----------------------------------------------------------------------===//

/// The integer type `type` holds (itself, or a shaped type's element type),
/// or null.
static IntegerType getIntegerElementType(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  return dyn_cast<IntegerType>(type);
}

/// Checks one argument or result attribute of `op`: only
/// `ml_program.unsigned`, a unit attribute, on a signless integer wider than
/// one bit. Types of callables without a builtin FunctionType go unchecked:
/// the conversion to llvm.func copies an argument's attributes onto every
/// field of its expanded memref descriptor.
static LogicalResult verifyValueAttribute(Operation *op, NamedAttribute attr,
                                          StringRef what, unsigned index,
                                          function_ref<Type()> getType) {
  if (attr.getName() != kUnsignedAttrName)
    return op->emitError() << "unknown ml_program " << what << " attribute '"
                           << attr.getName().getValue() << "'";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << kUnsignedAttrName
                           << "' must be a unit attribute";
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func || !isa<FunctionType>(func.getFunctionType()))
    return success();
  Type type = getType();
  IntegerType element = getIntegerElementType(type);
  if (!element || !element.isSignless() || element.getWidth() == 1)
    return op->emitError() << "'" << kUnsignedAttrName << "' on " << what << " "
                           << index << " of type " << type
                           << " needs a signless integer wider than 1 bit";
  return success();
}

LogicalResult MLProgramDialect::verifyRegionArgAttribute(Operation *op,
                                                         unsigned regionIndex,
                                                         unsigned argIndex,
                                                         NamedAttribute attr) {
  return verifyValueAttribute(op, attr, "argument", argIndex, [&] {
    return cast<FunctionOpInterface>(op).getArgumentTypes()[argIndex];
  });
}

LogicalResult MLProgramDialect::verifyRegionResultAttribute(
    Operation *op, unsigned regionIndex, unsigned resultIndex,
    NamedAttribute attr) {
  return verifyValueAttribute(op, attr, "result", resultIndex, [&] {
    return cast<FunctionOpInterface>(op).getResultTypes()[resultIndex];
  });
}

/// `type` with its integer (element) type made unsigned.
static Type toUnsigned(Type type) {
  IntegerType element = getIntegerElementType(type);
  if (!element)
    return type;
  auto unsignedType = IntegerType::get(type.getContext(), element.getWidth(),
                                       IntegerType::Unsigned);
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(unsignedType);
  return unsignedType;
}

FunctionType mlprog::getHostSignature(FunctionOpInterface func) {
  auto type = dyn_cast<FunctionType>(func.getFunctionType());
  if (!type)
    return nullptr;
  SmallVector<Type> inputs(type.getInputs()), results(type.getResults());
  for (auto [index, input] : llvm::enumerate(inputs))
    if (func.getArgAttr(index, kUnsignedAttrName))
      input = toUnsigned(input);
  for (auto [index, result] : llvm::enumerate(results))
    if (func.getResultAttr(index, kUnsignedAttrName))
      result = toUnsigned(result);
  return FunctionType::get(func.getContext(), inputs, results);
}

//===----------------------------------------------------------------------===//
// Bounding types
//===----------------------------------------------------------------------===//

bool mlprog::isCompatibleWithBoundingType(Type actual, Type bound) {
  if (actual == bound)
    return true;
  auto actualShaped = dyn_cast<ShapedType>(actual);
  auto boundShaped = dyn_cast<ShapedType>(bound);
  if (!actualShaped || !boundShaped ||
      actualShaped.getTypeID() != boundShaped.getTypeID() ||
      actualShaped.getElementType() != boundShaped.getElementType())
    return false;
  if (!boundShaped.hasRank())
    return true;
  if (!actualShaped.hasRank() ||
      actualShaped.getRank() != boundShaped.getRank())
    return false;
  for (auto [a, b] : llvm::zip(actualShaped.getShape(), boundShaped.getShape()))
    if (!ShapedType::isDynamic(b) && a != b)
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `(`private` | `public` | `nested`)?`
static ParseResult parseSymbolVisibility(OpAsmParser &parser,
                                         StringAttr &symVisibilityAttr) {
  StringRef symVisibility;
  (void)parser.parseOptionalKeyword(&symVisibility,
                                    {"public", "private", "nested"});
  if (!symVisibility.empty())
    symVisibilityAttr = parser.getBuilder().getStringAttr(symVisibility);
  return success();
}

static void printSymbolVisibility(OpAsmPrinter &p, Operation *op,
                                  StringAttr symVisibilityAttr) {
  p << (symVisibilityAttr ? symVisibilityAttr.getValue() : "public");
}

/// `( `(` initial-value `)` )? `:` bounding-type`
static ParseResult parseTypedInitialValue(OpAsmParser &parser,
                                          TypeAttr &typeAttr, Attribute &attr) {
  if (succeeded(parser.parseOptionalLParen())) {
    if (parser.parseAttribute(attr) || parser.parseRParen())
      return failure();
  }
  Type type;
  if (parser.parseColonType(type))
    return failure();
  typeAttr = TypeAttr::get(type);
  return success();
}

static void printTypedInitialValue(OpAsmPrinter &p, Operation *op,
                                   TypeAttr type, Attribute attr) {
  if (attr) {
    p << "(";
    p.printAttribute(attr);
    p << ")";
  }
  p << " : ";
  p.printAttribute(type);
}

/// `( ordering( `(` `)` | operand-list ) `->` type `)` )?`; an omitted
/// clause means "no consumed tokens" and a `!ml_program.token` result.
static ParseResult
parseTokenOrdering(OpAsmParser &parser,
                   SmallVectorImpl<OpAsmParser::UnresolvedOperand> &tokens,
                   Type &tokenType) {
  if (failed(parser.parseOptionalKeyword("ordering"))) {
    tokenType = TokenType::get(parser.getContext());
    return success();
  }
  if (parser.parseLParen())
    return failure();
  if (succeeded(parser.parseOptionalLParen())) {
    if (parser.parseRParen())
      return failure();
  } else if (parser.parseOperandList(tokens, OpAsmParser::Delimiter::None)) {
    return failure();
  }
  if (parser.parseArrow() || parser.parseType(tokenType) ||
      parser.parseRParen())
    return failure();
  return success();
}

static void printTokenOrdering(OpAsmPrinter &p, Operation *op,
                               OperandRange tokens, Type tokenType) {
  p << " ordering(";
  if (tokens.empty())
    p << "()";
  else
    p << tokens;
  p << " -> " << tokenType << ")";
}

//===----------------------------------------------------------------------===//
// Callables
//===----------------------------------------------------------------------===//

template <typename OpTy>
static ParseResult parseCallable(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      OpTy::getFunctionTypeAttrName(result.name), buildFuncType,
      OpTy::getArgAttrsAttrName(result.name),
      OpTy::getResAttrsAttrName(result.name));
}

template <typename OpTy> static void printCallable(OpTy op, OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, op, /*isVariadic=*/false, op.getFunctionTypeAttrName(),
      op.getArgAttrsAttrName(), op.getResAttrsAttrName());
}

/// A declaration (no body) must be private, as for `func.func`.
template <typename OpTy> static LogicalResult verifyCallable(OpTy op) {
  if (op.isExternal() && op.isPublic())
    return op.emitOpError("declaration (no body) must not be public; make it "
                          "private or give it a body");
  return success();
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseCallable<FuncOp>(parser, result);
}
void FuncOp::print(OpAsmPrinter &p) { printCallable(*this, p); }
LogicalResult FuncOp::verify() { return verifyCallable(*this); }

ParseResult SubgraphOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseCallable<SubgraphOp>(parser, result);
}
void SubgraphOp::print(OpAsmPrinter &p) { printCallable(*this, p); }
LogicalResult SubgraphOp::verify() { return verifyCallable(*this); }

/// Terminator operands must match the callable's result types.
static LogicalResult verifyTerminator(Operation *op,
                                      FunctionOpInterface callable) {
  ArrayRef<Type> expected = callable.getResultTypes();
  if (op->getNumOperands() != expected.size())
    return op->emitOpError()
           << "has " << op->getNumOperands() << " operands, but enclosing '"
           << callable->getName() << "' @"
           << SymbolTable::getSymbolName(callable).getValue() << " returns "
           << expected.size();
  for (auto [i, operand, type] : llvm::enumerate(op->getOperands(), expected))
    if (operand.getType() != type)
      return op->emitOpError()
             << "operand #" << i << " has type " << operand.getType()
             << ", but the enclosing callable returns " << type;
  return success();
}

LogicalResult ReturnOp::verify() {
  return verifyTerminator(*this, cast<FuncOp>((*this)->getParentOp()));
}
LogicalResult OutputOp::verify() {
  return verifyTerminator(*this, cast<SubgraphOp>((*this)->getParentOp()));
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *callee =
      symbolTable.lookupNearestSymbolFrom(*this, getCalleeAttr());
  auto callable = dyn_cast_or_null<FunctionOpInterface>(callee);
  if (!callable || !isa<FuncOp, SubgraphOp>(callee))
    return emitOpError() << getCalleeAttr()
                         << " does not reference an 'ml_program.func' or "
                            "'ml_program.subgraph'";
  auto type = cast<FunctionType>(callable.getFunctionType());
  if (getOperandTypes() != type.getInputs() ||
      getResultTypes() != type.getResults())
    return emitOpError() << "type "
                         << FunctionType::get(getContext(), getOperandTypes(),
                                              getResultTypes())
                         << " does not match the callee's type " << type;
  return success();
}

//===----------------------------------------------------------------------===//
// GlobalOp
//===----------------------------------------------------------------------===//

LogicalResult GlobalOp::verify() {
  Attribute value = getValueAttr();
  if (!value) {
    if (!getIsMutable())
      return emitOpError("immutable global must have an initial value (inline "
                         "or #ml_program.extern)");
    return success();
  }
  // A TypedAttr of type `none` (e.g. a string, or an extern written without
  // `: T`) says nothing about the value's shape: reject it.
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || isa<NoneType>(typed.getType()))
    return emitOpError("initial value must be a typed attribute, got ")
           << value;
  if (!isCompatibleWithBoundingType(typed.getType(), getType()))
    return emitOpError() << "initial value of type " << typed.getType()
                         << " is not compatible with the bounding type "
                         << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Global accessors
//===----------------------------------------------------------------------===//

template <typename OpTy>
static GlobalOp lookupGlobal(OpTy op, SymbolTableCollection &symbolTable) {
  return symbolTable.lookupNearestSymbolFrom<GlobalOp>(op.getOperation(),
                                                       op.getGlobalAttr());
}

/// Resolves the accessed global and checks the access kind and value type.
/// `valueType` is the loaded or stored type.
template <typename OpTy>
static LogicalResult
verifyGlobalAccess(OpTy op, SymbolTableCollection &symbolTable, Type valueType,
                   bool isWrite, bool requiresImmutable) {
  GlobalOp global = lookupGlobal(op, symbolTable);
  if (!global)
    return op.emitOpError() << "symbol " << op.getGlobalAttr()
                            << " does not reference an 'ml_program.global'";
  if (isWrite && !global.getIsMutable())
    return op.emitOpError()
           << "cannot store to immutable global " << op.getGlobalAttr();
  if (requiresImmutable && global.getIsMutable())
    return op.emitOpError()
           << "cannot load a mutable global " << op.getGlobalAttr()
           << " as a constant; use 'ml_program.global_load'";
  if (isWrite) {
    if (!isCompatibleWithBoundingType(valueType, global.getType()))
      return op.emitOpError()
             << "stored type " << valueType
             << " is not compatible with the bounding type " << global.getType()
             << " of " << op.getGlobalAttr();
  } else if (valueType != global.getType()) {
    return op.emitOpError() << "result type " << valueType
                            << " does not match the bounding type "
                            << global.getType() << " of " << op.getGlobalAttr();
  }
  return success();
}

#define MLPROG_DEFINE_GET_GLOBAL_OP(OpTy)                                      \
  GlobalOp OpTy::getGlobalOp(SymbolTableCollection &symbolTable) {             \
    return lookupGlobal(*this, symbolTable);                                   \
  }
MLPROG_DEFINE_GET_GLOBAL_OP(GlobalLoadOp)
MLPROG_DEFINE_GET_GLOBAL_OP(GlobalLoadConstOp)
MLPROG_DEFINE_GET_GLOBAL_OP(GlobalLoadGraphOp)
MLPROG_DEFINE_GET_GLOBAL_OP(GlobalStoreOp)
MLPROG_DEFINE_GET_GLOBAL_OP(GlobalStoreGraphOp)
#undef MLPROG_DEFINE_GET_GLOBAL_OP

LogicalResult
GlobalLoadOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyGlobalAccess(*this, symbolTable, getType(), /*isWrite=*/false,
                            /*requiresImmutable=*/false);
}
LogicalResult
GlobalLoadConstOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyGlobalAccess(*this, symbolTable, getType(), /*isWrite=*/false,
                            /*requiresImmutable=*/true);
}
LogicalResult
GlobalLoadGraphOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyGlobalAccess(*this, symbolTable, getResult().getType(),
                            /*isWrite=*/false, /*requiresImmutable=*/false);
}
LogicalResult
GlobalStoreOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyGlobalAccess(*this, symbolTable, getValue().getType(),
                            /*isWrite=*/true, /*requiresImmutable=*/false);
}
LogicalResult
GlobalStoreGraphOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyGlobalAccess(*this, symbolTable, getValue().getType(),
                            /*isWrite=*/true, /*requiresImmutable=*/false);
}

/// RFC v2 token discipline: in a `subgraph` (graph region) only tokens order
/// side effects, so the plain accessors are rejected there; in a `func`
/// program order does it, so the token-ordered forms are rejected there.
static LogicalResult verifyAccessRegion(Operation *op, bool isGraphForm,
                                        StringRef alternative) {
  Operation *callable = op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  if (!isGraphForm && isa_and_nonnull<SubgraphOp>(callable))
    return op->emitOpError()
           << "is not allowed in 'ml_program.subgraph', whose side effects "
              "are ordered by tokens; use '"
           << alternative << "'";
  if (isGraphForm && isa_and_nonnull<FuncOp>(callable))
    return op->emitOpError()
           << "is not allowed in 'ml_program.func', whose side effects are "
              "ordered by program order; use '"
           << alternative << "'";
  return success();
}

LogicalResult GlobalLoadOp::verify() {
  return verifyAccessRegion(*this, /*isGraphForm=*/false,
                            GlobalLoadGraphOp::getOperationName());
}
LogicalResult GlobalStoreOp::verify() {
  return verifyAccessRegion(*this, /*isGraphForm=*/false,
                            GlobalStoreGraphOp::getOperationName());
}
LogicalResult GlobalLoadGraphOp::verify() {
  return verifyAccessRegion(*this, /*isGraphForm=*/true,
                            GlobalLoadOp::getOperationName());
}
LogicalResult GlobalStoreGraphOp::verify() {
  return verifyAccessRegion(*this, /*isGraphForm=*/true,
                            GlobalStoreOp::getOperationName());
}

/// Small or splat inline values are cheaper as constants than as memory: they
/// fold into the code and enable further folding.
LogicalResult GlobalLoadConstOp::canonicalize(GlobalLoadConstOp op,
                                              PatternRewriter &rewriter) {
  constexpr int64_t kMaxFoldedElements = 16;
  auto global =
      SymbolTable::lookupNearestSymbolFrom<GlobalOp>(op, op.getGlobalAttr());
  if (!global)
    return rewriter.notifyMatchFailure(op, "global does not resolve");
  auto value = dyn_cast_or_null<DenseElementsAttr>(global.getValueAttr());
  if (!value || value.getType() != op.getType())
    return rewriter.notifyMatchFailure(op, "no inline value of the load type");
  if (!value.isSplat() && value.getNumElements() > kMaxFoldedElements)
    return rewriter.notifyMatchFailure(op, "value too large to fold");
  rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
  return success();
}

//===----------------------------------------------------------------------===//
// Load forwarding and dead store elimination
//===----------------------------------------------------------------------===//

GlobalAccess mlprog::getGlobalAccess(
    Operation *op, SymbolRefAttr global,
    llvm::function_ref<GlobalAccess(CallOpInterface)> callAccess) {
  GlobalAccess access;
  auto visit = [&](Operation *inner) {
    if (auto load = dyn_cast<GlobalLoadOp>(inner)) {
      access.reads |= load.getGlobalAttr() == global;
    } else if (auto load = dyn_cast<GlobalLoadGraphOp>(inner)) {
      access.reads |= load.getGlobalAttr() == global;
    } else if (auto store = dyn_cast<GlobalStoreOp>(inner)) {
      access.writes |= store.getGlobalAttr() == global;
    } else if (auto store = dyn_cast<GlobalStoreGraphOp>(inner)) {
      access.writes |= store.getGlobalAttr() == global;
    } else if (auto call = dyn_cast<CallOpInterface>(inner)) {
      GlobalAccess callee = callAccess ? callAccess(call) : GlobalAccess::all();
      access.reads |= callee.reads;
      access.writes |= callee.writes;
    } else if (!isa<MemoryEffectOpInterface>(inner) &&
               !inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
      access = GlobalAccess::all();
    }
    // Effects on anything but a global (memrefs, allocations) are
    // irrelevant: only accessors and calls reach a global.
    return access.reads && access.writes ? WalkResult::interrupt()
                                         : WalkResult::advance();
  };
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    op->walk(visit);
  else
    visit(op);
  return access;
}

/// Replaces a load by the value of the closest earlier store to, or load of,
/// the same global in its block, if nothing in between may write it.
LogicalResult GlobalLoadOp::canonicalize(GlobalLoadOp op,
                                         PatternRewriter &rewriter) {
  SymbolRefAttr global = op.getGlobalAttr();
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto store = dyn_cast<GlobalStoreOp>(prev);
        store && store.getGlobalAttr() == global) {
      if (store.getValue().getType() != op.getType())
        return rewriter.notifyMatchFailure(op, "stored value has another type");
      rewriter.replaceOp(op, store.getValue());
      return success();
    }
    if (auto load = dyn_cast<GlobalLoadOp>(prev);
        load && load.getGlobalAttr() == global) {
      rewriter.replaceOp(op, load.getResult());
      return success();
    }
    if (getGlobalAccess(prev, global).writes)
      return rewriter.notifyMatchFailure(op, "an earlier op may write it");
  }
  return rewriter.notifyMatchFailure(op, "no earlier access in the block");
}

/// Erases a store overwritten later in its block before anything may read
/// the global, and a store of the value just loaded from the same global.
LogicalResult GlobalStoreOp::canonicalize(GlobalStoreOp op,
                                          PatternRewriter &rewriter) {
  SymbolRefAttr global = op.getGlobalAttr();
  if (auto load = op.getValue().getDefiningOp<GlobalLoadOp>();
      load && load.getGlobalAttr() == global &&
      load->getBlock() == op->getBlock()) {
    bool writes = false;
    for (Operation *it = load->getNextNode(); it != op; it = it->getNextNode())
      writes |= getGlobalAccess(it, global).writes;
    if (!writes) {
      rewriter.eraseOp(op);
      return success();
    }
  }
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    if (auto store = dyn_cast<GlobalStoreOp>(next);
        store && store.getGlobalAttr() == global) {
      rewriter.eraseOp(op);
      return success();
    }
    GlobalAccess access = getGlobalAccess(next, global);
    if (access.reads || access.writes)
      return rewriter.notifyMatchFailure(op, "a later op may read it");
  }
  return rewriter.notifyMatchFailure(op, "not overwritten in the block");
}

LogicalResult StringConstantOp::verify() {
  if (getValue().contains('\0'))
    return emitOpError("value must not contain a NUL byte (runtime strings "
                       "are NUL-terminated)");
  return success();
}

void GlobalLoadOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getGlobal().getLeafReference());
}
void GlobalLoadConstOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getGlobal().getLeafReference());
}
void GlobalLoadGraphOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  StringRef name = getGlobal().getLeafReference();
  setNameFn(getResult(), name);
  setNameFn(getProduceToken(), (name + "_token").str());
}

#define GET_OP_CLASSES
#include "mlprog/Dialect/MLProgram/IR/MLProgramOps.cpp.inc"
