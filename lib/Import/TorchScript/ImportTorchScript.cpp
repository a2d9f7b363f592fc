//===- ImportTorchScript.cpp - Load archives and IR text ------------------===//
//
// Loads a TorchScript program with libtorch (torch::jit::load for archives,
// torch::jit::parseIR for IR text), prepares the graph with torch's own
// passes (inlining, mutation removal, constant propagation, dead code
// elimination) and hands it to the graph importer.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "mlprog/Import/TorchScript/ImportTorchScriptModule.h"

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"

#include <torch/csrc/jit/ir/irparser.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/remove_mutation.h>
#include <torch/csrc/jit/serialization/import.h>

#include <sstream>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;

/// The first line of a libtorch exception message (the rest is a C++ or
/// TorchScript backtrace).
static std::string firstLine(const std::exception &e) {
  std::string msg;
  if (auto *err = dynamic_cast<const c10::Error *>(&e))
    msg = err->what_without_backtrace();
  else
    msg = e.what();
  size_t nl = msg.find('\n');
  std::string line = msg.substr(0, nl);
  if (line.empty() && nl != std::string::npos)
    return firstLine(std::runtime_error(msg.substr(nl + 1)));
  return line;
}

/// The IR parser accepts any operands for an op; an aten op whose operands
/// match none of its schemas (libtorch's passes would throw "Schema not
/// found", or the op would be imported from the wrong operands) is an
/// error. `index` counts the nodes in textual order, for the message.
static LogicalResult checkSchemas(torch::jit::Block &block, Location fileLoc,
                                  unsigned &index) {
  for (torch::jit::Node *node : block.nodes()) {
    ++index;
    const c10::FunctionSchema *schema =
        node->kind().is_aten() ? node->maybeSchema() : nullptr;
    if (node->kind().is_aten() &&
        (!schema || (!schema->is_vararg() &&
                     node->inputs().size() != schema->arguments().size()))) {
      InFlightDiagnostic diag = emitError(fileLoc);
      diag << "operands of '" << node->kind().toQualString() << "' ("
           << node->inputs().size() << " values";
      for (size_t i = 0; i < node->inputs().size(); ++i)
        diag << (i ? ", " : ": ") << node->inputs()[i]->type()->str();
      diag << ") match none of its schemas (node " << index << ")";
      return failure();
    }
    for (torch::jit::Block *inner : node->blocks())
      if (failed(checkSchemas(*inner, fileLoc, index)))
        return failure();
  }
  return success();
}

static void loadDialects(MLIRContext *ctx) {
  ctx->loadDialect<MLProgramDialect, arith::ArithDialect, linalg::LinalgDialect,
                   math::MathDialect, scf::SCFDialect, tensor::TensorDialect>();
}

/// Runs torch's graph cleanups; libtorch reports failures by throwing.
static LogicalResult prepareGraph(std::shared_ptr<torch::jit::Graph> g,
                                  Location fileLoc) {
  try {
    torch::jit::Inline(*g);
    torch::jit::RemoveTensorMutation(g);
    torch::jit::ConstantPropagation(g);
    torch::jit::EliminateDeadCode(g);
  } catch (const std::exception &e) {
    return emitError(fileLoc)
           << "libtorch failed to prepare the graph: " << firstLine(e);
  }
  return success();
}

static OwningOpRef<ModuleOp>
importPrepared(const std::shared_ptr<torch::jit::Graph> &graph,
               MLIRContext *ctx, const TorchScriptImportOptions &options,
               StringRef funcName, StringRef fileName,
               c10::intrusive_ptr<c10::ivalue::Object> self) {
  loadDialects(ctx);
  Location fileLoc = FileLineColLoc::get(ctx, fileName, 0, 0);
  if (failed(prepareGraph(graph, fileLoc)))
    return nullptr;
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  try {
    Importer importer(*module, options, fileName);
    if (failed(importer.importGraph(*graph, funcName, self)))
      return nullptr;
  } catch (const std::exception &e) {
    emitError(fileLoc) << "libtorch error while importing: " << firstLine(e);
    return nullptr;
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> mlprog::importTorchScriptModule(
    const torch::jit::Module &module, MLIRContext *ctx,
    const TorchScriptImportOptions &options, StringRef fileName) {
  loadDialects(ctx);
  Location fileLoc = FileLineColLoc::get(ctx, fileName, 0, 0);
  std::shared_ptr<torch::jit::Graph> graph;
  try {
    c10::optional<torch::jit::Method> method =
        module.find_method(options.method);
    if (!method) {
      std::string names;
      for (const torch::jit::Method &m : module.get_methods())
        names += (names.empty() ? "" : ", ") + m.name();
      emitError(fileLoc) << "TorchScript module has no method '"
                         << options.method
                         << "' (methods: " << (names.empty() ? "none" : names)
                         << ")";
      return nullptr;
    }
    graph = method->graph()->copy();
  } catch (const std::exception &e) {
    emitError(fileLoc) << "cannot read the TorchScript module: "
                       << firstLine(e);
    return nullptr;
  }
  return importPrepared(graph, ctx, options, options.method, fileName,
                        module._ivalue());
}

OwningOpRef<ModuleOp>
mlprog::importTorchScriptGraph(const std::shared_ptr<torch::jit::Graph> &graph,
                               MLIRContext *ctx,
                               const TorchScriptImportOptions &options,
                               StringRef funcName, StringRef fileName) {
  return importPrepared(graph->copy(), ctx, options, funcName, fileName,
                        c10::intrusive_ptr<c10::ivalue::Object>());
}

OwningOpRef<ModuleOp>
mlprog::importTorchScript(const llvm::MemoryBuffer &buffer, MLIRContext *ctx,
                          const TorchScriptImportOptions &options) {
  loadDialects(ctx);
  StringRef fileName = buffer.getBufferIdentifier();
  Location fileLoc = FileLineColLoc::get(ctx, fileName, 0, 0);
  StringRef data = buffer.getBuffer();
  if (data.starts_with(StringRef("PK\x03\x04", 4))) {
    torch::jit::Module module;
    try {
      std::istringstream stream(data.str());
      module = torch::jit::load(stream);
    } catch (const std::exception &e) {
      emitError(fileLoc) << "cannot load TorchScript archive: " << firstLine(e);
      return nullptr;
    }
    return importTorchScriptModule(module, ctx, options, fileName);
  }
  // IR text may start with '#' comment lines (lit RUN lines); blank them
  // out, keeping line numbers.
  std::string text = data.str();
  size_t pos = 0;
  while (pos < text.size()) {
    size_t start = text.find_first_not_of(" \t\r\n", pos);
    if (start == std::string::npos || text[start] != '#')
      break;
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::fill(text.begin() + start, text.begin() + end, ' ');
    pos = end;
  }
  if (!StringRef(text).ltrim().starts_with("graph(")) {
    emitError(fileLoc) << "not a TorchScript archive (zip) or IR text "
                          "('graph(...)')";
    return nullptr;
  }
  auto graph = std::make_shared<torch::jit::Graph>();
  try {
    torch::jit::parseIR(text, graph.get());
  } catch (const std::exception &e) {
    emitError(fileLoc) << "cannot parse TorchScript IR: " << firstLine(e);
    return nullptr;
  }
  unsigned index = 0;
  if (failed(checkSchemas(*graph->block(), fileLoc, index)))
    return nullptr;
  return importPrepared(graph, ctx, options, options.method, fileName,
                        c10::intrusive_ptr<c10::ivalue::Object>());
}

OwningOpRef<ModuleOp>
mlprog::importTorchScript(StringRef path, MLIRContext *ctx,
                          const TorchScriptImportOptions &options) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false);
  if (!buffer) {
    emitError(FileLineColLoc::get(ctx, path, 0, 0))
        << "cannot read TorchScript file: " << buffer.getError().message();
    return nullptr;
  }
  return importTorchScript(**buffer, ctx, options);
}
