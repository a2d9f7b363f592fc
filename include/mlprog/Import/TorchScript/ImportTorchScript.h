//===- ImportTorchScript.h - TorchScript importer ---------------*- C++ -*-===//
//
// Imports a TorchScript program (a `torch.jit.save` archive or the graph IR
// text printed by `str(graph)`) into an import-contract module: a public
// `ml_program.func` for the imported method, module parameters and buffers as
// private `ml_program.global`s (mutable where the program writes them), and
// ops from linalg/tensor/arith/math/scf built by the shared tensor op
// builders (mlprog/Import/Common). This header has no libtorch dependency;
// ImportTorchScriptModule.h takes live libtorch objects.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_TORCHSCRIPT_IMPORTTORCHSCRIPT_H
#define MLPROG_IMPORT_TORCHSCRIPT_IMPORTTORCHSCRIPT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlprog {

/// Options of the TorchScript importer.
struct TorchScriptImportOptions {
  /// Methods of an archive's top-level module to import, separated by ','.
  /// Each becomes a public `ml_program.func` of the same name, all in one
  /// module sharing the globals of the module's parameters and buffers (so
  /// a `reset` method writes the state `forward` reads). Empty: `forward` and
  /// every other method of the top-level module that no method calls, i.e.
  /// the `@torch.jit.export` entry points (names starting with `__` are
  /// left out), except those whose inputs have no shapes in the IR (a
  /// warning names each; scripted modules annotate none, so an exported
  /// method with tensor inputs is imported on its own, with inputShapes);
  /// `*`: every method. IR text holds one graph: its function is named by
  /// the first entry, else `forward`.
  std::string method;
  /// Shapes of the tensor inputs of the first imported method (after
  /// `self`), in order; the other methods take theirs from the IR.
  /// ShapedType::kDynamic (`?` on the command line) is an unknown extent. An
  /// entry overrides the shape annotated in the IR; inputs with neither are
  /// an error. Empty: take everything from the annotations.
  std::vector<std::vector<int64_t>> inputShapes;
  /// Element types of the tensor inputs of the first method, as torch dtype
  /// names (`float32`, `float64`, `int64`, `int32`, `bool`, ...) or MLIR
  /// spellings (`f32`, `i64`, ...). Unset entries use the IR annotation,
  /// else float32.
  std::vector<std::string> inputDtypes;
  /// Number inputs (`int`, `float`, `bool` parameters of a method, e.g.
  /// silero-vad's `forward(x, sr: int)`) bound to a value at import time, by
  /// parameter name: the program is specialized for that value (branches on
  /// it are resolved, shapes computed from it are static) and the imported
  /// function has no argument for it. Applies to every imported method with
  /// a number parameter of that name; a value that does not parse as the
  /// parameter's type, or a name no imported method has, is an error.
  std::vector<std::pair<std::string, std::string>> constantInputs;
  /// Tensors with more elements than this become `ml_program.global`s
  /// rather than inline constants (frozen modules embed their weights as
  /// graph constants).
  int64_t maxInlineConstantElements = 16;
};

/// Imports the TorchScript program in `path`: a zip archive written by
/// `torch.jit.save` (loaded with `torch::jit::load`) or IR text (parsed with
/// `torch::jit::parseIR`). Calls are inlined (torch's Inline pass), in-place
/// ops become value semantics where torch's RemoveTensorMutation or the
/// importer can prove it, in-place writes to module buffers (`copy_`,
/// `add_`, `zero_`, `fill_`, `masked_fill_`, `index_copy_`, and any of them
/// through `slice`/`select` views such as `cache[:, p] = k`) become
/// `ml_program.global_store`s of mutable globals (docs/state.md), and each
/// remaining node maps through the handler table to the shared builders.
/// Locations are the TorchScript source range
/// (`file:line:col`) of a node when the program carries one, else a NameLoc
/// of the output's debug name inside `path:0:0`.
///
/// Returns null after emitting a located diagnostic for unreadable files,
/// archives libtorch rejects, a missing method, unsupported ops, types or
/// constructs, or a module that fails to verify. Loads the dialects it emits
/// into `ctx`.
mlir::OwningOpRef<mlir::ModuleOp>
importTorchScript(llvm::StringRef path, mlir::MLIRContext *ctx,
                  const TorchScriptImportOptions &options = {});

/// Imports the archive or IR text held in `buffer`; its identifier is the
/// file name used in locations. See the path overload.
mlir::OwningOpRef<mlir::ModuleOp>
importTorchScript(const llvm::MemoryBuffer &buffer, mlir::MLIRContext *ctx,
                  const TorchScriptImportOptions &options = {});

/// Registers the `--import-torchscript` translation with mlir-translate,
/// with the options `--method`, `--input-shapes` and `--input-dtypes`.
void registerImportTorchScriptTranslation();

} // namespace mlprog

#endif // MLPROG_IMPORT_TORCHSCRIPT_IMPORTTORCHSCRIPT_H
