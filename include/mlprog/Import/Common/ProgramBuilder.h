//===- ProgramBuilder.h - Symbols, weight globals, signatures ---*- C++ -*-===//
//
// The module-level structure every importer (ONNX, TorchScript, MIL) builds
// around the ops: symbol names made from source names, weights
// (initializers, parameters, buffers, blob values) as private
// `ml_program.global`s read with `global_load_const`, and the entry
// functions whose result types are known once their body is imported.
// The DESIGN.md rule "weights are globals" is implemented here once.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_PROGRAMBUILDER_H
#define MLPROG_IMPORT_COMMON_PROGRAMBUILDER_H

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace mlprog {

/// Unique symbol names for one module under import, and the globals and
/// functions named by them.
class ProgramBuilder {
public:
  /// `keepDollar`: whether '$' (valid in an MLIR bare identifier) is kept in
  /// symbol names; the TorchScript importer replaces it too.
  explicit ProgramBuilder(bool keepDollar = true) : keepDollar(keepDollar) {}

  /// Marks `name` as taken (a function name), so no later symbol gets it.
  void reserveSymbol(llvm::StringRef name) { symbols.insert(name); }

  /// A symbol name for source name `name`, unique in the module: characters
  /// other than [A-Za-z0-9_.] (and '$' when kept) become '_', a name that is
  /// empty or starts with a digit, '$' or '.' gets a leading '_', and a name
  /// already taken gets the first free suffix `_1`, `_2`, ...
  std::string uniqueSymbol(llvm::StringRef name);

  /// Creates a private `ml_program.global` at `b`'s insertion point, named
  /// uniqueSymbol(`name`), of type `type` with initial value `value` (a
  /// DenseElementsAttr, or `#ml_program.extern` for weights stored outside
  /// the IR, whose storage attribute the caller adds). Immutable unless
  /// `isMutable` (state the program writes, DESIGN.md rule 5).
  GlobalOp createGlobal(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::StringRef name, mlir::Type type,
                        mlir::Attribute value, bool isMutable = false);

  /// Reads the immutable global `symbol` of type `type` at `b`'s insertion
  /// point (`ml_program.global_load_const`).
  static mlir::Value loadConstGlobal(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Type type, llvm::StringRef symbol);

  /// Creates public `ml_program.func @name` of type `type` at `b`'s
  /// insertion point; the caller adds the entry block. The name is not
  /// reserved (see reserveSymbol).
  static FuncOp createFunc(mlir::OpBuilder &b, mlir::Location loc,
                           llvm::StringRef name, mlir::FunctionType type);

  /// Sets the result types of `func` to `results`, keeping its argument
  /// types: importers whose result types follow from the imported body call
  /// this after building the return.
  static void setResultTypes(FuncOp func, mlir::TypeRange results);

  /// Marks each argument `i` of `func` with `arguments[i]` set, and each
  /// result `i` with `results[i]` set, as declared unsigned by the model
  /// (`kUnsignedAttrName`, MLProgram.h), so that runners bind and return
  /// them as uintN. Those values must be signless integers (tensors) wider
  /// than 1 bit; missing flags count as false.
  static void markUnsigned(FuncOp func, llvm::ArrayRef<bool> arguments,
                           llvm::ArrayRef<bool> results);

private:
  bool keepDollar;
  llvm::StringSet<> symbols;
};

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_PROGRAMBUILDER_H
