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
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

#include <torch/csrc/jit/ir/irparser.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/remove_mutation.h>
#include <torch/csrc/jit/serialization/import.h>

#include <functional>
#include <set>
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

/// libtorch's IR parser skips the type of an `annotate(T, ...)` attribute by
/// reading tokens until T's outermost `[...]` closes, and at the end of the
/// text reads the end token forever (a hang found by fuzz-torchscript). This
/// finds the first `annotate(` whose brackets do not open and close before
/// the text ends, scanning characters (string literals skipped), and returns
/// its offset, or npos.
static size_t findUnclosedAnnotate(StringRef text) {
  for (size_t at = text.find("annotate("); at != StringRef::npos;
       at = text.find("annotate(", at + 1)) {
    int depth = 0;
    bool opened = false;
    size_t i = at + strlen("annotate(");
    for (; i < text.size() && (depth != 0 || !opened); ++i) {
      char c = text[i];
      if (c == '"' || c == '\'') {
        for (++i; i < text.size() && text[i] != c; ++i)
          if (text[i] == '\\')
            ++i;
      } else if (c == '[') {
        opened = true;
        ++depth;
      } else if (c == ']') {
        --depth;
      }
    }
    if (depth != 0 || !opened)
      return at;
  }
  return StringRef::npos;
}

/// libtorch's IR parser maps value names to values in one table and lets a
/// later definition of `%x` silently replace an earlier one, so uses after
/// the second definition read a different value than the text's author may
/// have meant. Printed graphs never reuse a name (in any block), so every
/// name defined twice is an error, located at the second definition with a
/// note at the first. `text` has already been parsed by libtorch, so a
/// lexical scan suffices: a `%name` defines a value when it stands outside
/// any parentheses or brackets (an operator's output list, before `=`) or
/// directly inside the parameter list of `graph(...)` or `blockN(...)`;
/// every other `%name` (operands, `return (...)`, `-> (...)`) is a use.
/// String literals and `#` comments are skipped.
static LogicalResult checkUniqueValueNames(StringRef text, StringRef fileName,
                                           MLIRContext *ctx) {
  auto isNameChar = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '.';
  };
  // One entry per open '(' or '['; true for a parameter list.
  SmallVector<bool> parens;
  llvm::StringMap<Location> defined;
  unsigned line = 1, column = 1;
  auto advance = [&](size_t &i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    ++i;
  };
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '"' || c == '\'') {
      advance(i);
      while (i < text.size() && text[i] != c) {
        if (text[i] == '\\' && i + 1 < text.size())
          advance(i);
        advance(i);
      }
      if (i < text.size())
        advance(i);
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n')
        advance(i);
      continue;
    }
    if (c == '(' || c == '[') {
      // The identifier before '(' (skipping blanks): `graph` or `blockN`.
      size_t end = i;
      while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t'))
        --end;
      size_t begin = end;
      while (begin > 0 &&
             (isNameChar(text[begin - 1]) || text[begin - 1] == ':'))
        --begin;
      StringRef ident = text.slice(begin, end);
      bool params = false;
      if (c == '(' && (begin == 0 || text[begin - 1] != '%')) {
        unsigned blockIndex;
        params = ident == "graph" ||
                 (ident.consume_front("block") && !ident.empty() &&
                  !ident.getAsInteger(10, blockIndex));
      }
      parens.push_back(params);
      advance(i);
      continue;
    }
    if (c == ')' || c == ']') {
      if (!parens.empty())
        parens.pop_back();
      advance(i);
      continue;
    }
    if (c != '%') {
      advance(i);
      continue;
    }
    Location loc = FileLineColLoc::get(ctx, fileName, line, column);
    advance(i);
    size_t begin = i;
    while (i < text.size() && isNameChar(text[i]))
      advance(i);
    StringRef name = text.slice(begin, i);
    if (name.empty() || !(parens.empty() || parens.back()))
      continue;
    auto [it, inserted] = defined.try_emplace(name, loc);
    if (!inserted) {
      InFlightDiagnostic diag = emitError(loc)
                                << "value '%" << name << "' is defined twice";
      diag.attachNote(it->second)
          << "first definition of '%" << name << "' here";
      return failure();
    }
  }
  return success();
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

/// A TorchScript value's parameter name: its debug name without the
/// uniquing suffix torch adds (`sr.1` -> `sr`).
static std::string parameterName(torch::jit::Value *value) {
  std::string name = value->debugName();
  auto [base, suffix] = StringRef(name).rsplit('.');
  if (!suffix.empty() && llvm::all_of(suffix, llvm::isDigit))
    return base.str();
  return name;
}

/// Replaces the number parameters of `g` named in options.constantInputs by
/// constants and removes them from its inputs, before torch's passes run, so
/// that constant propagation resolves the branches on them. Records the
/// names found in `used`.
static LogicalResult bindConstantInputs(torch::jit::Graph &g,
                                        const TorchScriptImportOptions &options,
                                        Location fileLoc,
                                        llvm::StringSet<> &used) {
  for (size_t i = g.inputs().size(); i-- > 0;) {
    torch::jit::Value *input = g.inputs()[i];
    std::string name = parameterName(input);
    auto it = llvm::find_if(options.constantInputs,
                            [&](const auto &c) { return c.first == name; });
    if (it == options.constantInputs.end())
      continue;
    used.insert(name);
    StringRef text = StringRef(it->second).trim();
    c10::IValue value;
    switch (input->type()->kind()) {
    case c10::TypeKind::IntType: {
      int64_t v;
      if (!text.getAsInteger(0, v))
        value = v;
      break;
    }
    case c10::TypeKind::FloatType: {
      double v;
      if (!text.getAsDouble(v))
        value = v;
      break;
    }
    case c10::TypeKind::BoolType:
      if (text == "true" || text == "True" || text == "1")
        value = true;
      else if (text == "false" || text == "False" || text == "0")
        value = false;
      break;
    default:
      return emitError(fileLoc)
             << "--input-constants names parameter '" << name << "' of type "
             << input->type()->repr_str()
             << "; only int, float and bool parameters can be bound at "
                "import time";
    }
    if (value.isNone())
      return emitError(fileLoc)
             << "--input-constants value '" << text << "' of parameter '"
             << name << "' is not a " << input->type()->repr_str();
    torch::jit::WithInsertPoint guard(g.block()->param_node()->next());
    input->replaceAllUsesWith(g.insertConstant(value));
    g.eraseInput(i);
  }
  return success();
}

namespace {
/// One method to import: the name of its function and its graph (a copy
/// that torch's passes may change).
struct MethodGraph {
  std::string name;
  std::shared_ptr<torch::jit::Graph> graph;
};
} // namespace

/// Imports `methods` into one module: every graph is prepared and its
/// writes to module attributes collected first, so that a global is
/// mutable when any method writes it; then each method becomes a function.
/// `self` is the module object bound to each graph's leading class-typed
/// input; the input options apply to the first method only.
static OwningOpRef<ModuleOp>
importPrepared(ArrayRef<MethodGraph> methods, MLIRContext *ctx,
               const TorchScriptImportOptions &options, StringRef fileName,
               c10::intrusive_ptr<c10::ivalue::Object> self) {
  loadDialects(ctx);
  registerPositionalOps();
  Location fileLoc = FileLineColLoc::get(ctx, fileName, 0, 0);
  llvm::StringSet<> usedConstants;
  for (const MethodGraph &method : methods)
    if (failed(bindConstantInputs(*method.graph, options, fileLoc,
                                  usedConstants)) ||
        failed(prepareGraph(method.graph, fileLoc)))
      return nullptr;
  for (const auto &[name, value] : options.constantInputs)
    if (!usedConstants.contains(name)) {
      emitError(fileLoc) << "--input-constants names '" << name
                         << "', a parameter no imported method has";
      return nullptr;
    }
  // Attributes whose stores change their shape are found by importing:
  // each such import is repeated with their bounding types (a few rounds
  // at most: each round only widens types).
  std::map<std::string, RankedTensorType> boundingTypes;
  OwningOpRef<ModuleOp> module;
  for (int round = 0;; ++round) {
    module = ModuleOp::create(fileLoc);
    std::map<std::string, RankedTensorType> widened;
    // A round that widens a type may fail for the narrower one it used (a
    // broadcast against the empty initial value): its diagnostics are held
    // back and only reported when no widening explains them.
    std::vector<Diagnostic> held;
    bool ok = true;
    {
      ScopedDiagnosticHandler hold(ctx, [&](Diagnostic &diag) {
        held.push_back(std::move(diag));
        return success();
      });
      try {
        Importer importer(*module, options, fileName);
        importer.globalBoundingTypes = boundingTypes;
        for (const MethodGraph &method : methods)
          importer.collectGraphWrites(*method.graph, self);
        for (auto [i, method] : llvm::enumerate(methods))
          if (ok &&
              failed(importer.importGraph(*method.graph, method.name, self,
                                          /*useInputOptions=*/i == 0)))
            ok = false;
        widened = std::move(importer.widenedGlobals);
      } catch (const std::exception &e) {
        emitError(fileLoc) << "libtorch error while importing: "
                           << firstLine(e);
        ok = false;
      }
    }
    if (widened.empty() || round == 8) {
      for (Diagnostic &diag : held)
        ctx->getDiagEngine().emit(std::move(diag));
      if (!ok)
        return nullptr;
    }
    if (widened.empty())
      break;
    if (round == 8) {
      emitError(fileLoc) << "the shapes of attribute '"
                         << widened.begin()->first
                         << "' do not settle after 8 imports";
      return nullptr;
    }
    for (auto &[path, type] : widened)
      boundingTypes[path] = type;
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

/// The names of `options.method` (see TorchScriptImportOptions::method).
static SmallVector<std::string>
splitMethodNames(const TorchScriptImportOptions &options) {
  SmallVector<StringRef> parts;
  StringRef(options.method).split(parts, ',', -1, /*KeepEmpty=*/false);
  SmallVector<std::string> names;
  for (StringRef part : parts)
    if (!part.trim().empty())
      names.push_back(part.trim().str());
  return names;
}

/// The methods of `module` that no method calls on `self`
/// (prim::CallMethod on the graph's first input), in declaration order,
/// without `forward` and names starting with `__`: the entry points that
/// `@torch.jit.export` adds.
static SmallVector<std::string>
getExportedMethods(const torch::jit::Module &module) {
  std::set<std::string> called;
  std::vector<torch::jit::Method> all = module.get_methods();
  std::function<void(torch::jit::Block *, torch::jit::Value *)> scan =
      [&](torch::jit::Block *block, torch::jit::Value *self) {
        for (torch::jit::Node *node : block->nodes()) {
          if (node->kind() == c10::prim::CallMethod &&
              !node->inputs().empty() && node->input(0) == self)
            called.insert(node->s(c10::attr::name));
          for (torch::jit::Block *inner : node->blocks())
            scan(inner, self);
        }
      };
  for (const torch::jit::Method &method : all) {
    std::shared_ptr<torch::jit::Graph> graph = method.graph();
    if (!graph->inputs().empty())
      scan(graph->block(), graph->inputs()[0]);
  }
  SmallVector<std::string> names;
  for (const torch::jit::Method &method : all)
    if (method.name() != "forward" &&
        !StringRef(method.name()).starts_with("__") &&
        !called.count(method.name()))
      names.push_back(method.name());
  return names;
}

/// Whether every input of `graph` after `self` is a number or a tensor of
/// known rank (or a tuple of them), so that the method imports without
/// --input-shapes.
static bool hasKnownInputs(torch::jit::Graph &graph) {
  std::function<bool(const c10::TypePtr &)> known =
      [&](const c10::TypePtr &type) {
        if (auto tuple = type->cast<c10::TupleType>())
          return llvm::all_of(tuple->elements(), known);
        if (auto tensor = type->cast<c10::TensorType>())
          return tensor->sizes().size().has_value();
        return type->kind() == c10::TypeKind::IntType ||
               type->kind() == c10::TypeKind::FloatType ||
               type->kind() == c10::TypeKind::BoolType;
      };
  auto inputs = graph.inputs();
  for (size_t i = 1; i < inputs.size(); ++i)
    if (!known(inputs[i]->type()))
      return false;
  return true;
}

OwningOpRef<ModuleOp> mlprog::importTorchScriptModule(
    const torch::jit::Module &module, MLIRContext *ctx,
    const TorchScriptImportOptions &options, StringRef fileName) {
  loadDialects(ctx);
  Location fileLoc = FileLineColLoc::get(ctx, fileName, 0, 0);
  std::vector<MethodGraph> methods;
  try {
    SmallVector<std::string> names = splitMethodNames(options);
    if (names.size() == 1 && names.front() == "*") {
      names.clear();
      for (const torch::jit::Method &m : module.get_methods())
        names.push_back(m.name());
    } else if (names.empty()) {
      names.push_back("forward");
      if (module.find_method("forward"))
        for (const std::string &name : getExportedMethods(module)) {
          if (hasKnownInputs(*module.get_method(name).graph()))
            names.push_back(name);
          else
            emitWarning(fileLoc)
                << "method '" << name
                << "' is not imported: its inputs have no shapes (name it "
                   "alone in --method, with --input-shapes)";
        }
    }
    for (const std::string &name : names) {
      c10::optional<torch::jit::Method> method = module.find_method(name);
      if (!method) {
        std::string all;
        for (const torch::jit::Method &m : module.get_methods())
          all += (all.empty() ? "" : ", ") + m.name();
        emitError(fileLoc) << "TorchScript module has no method '" << name
                           << "' (methods: " << (all.empty() ? "none" : all)
                           << ")";
        return nullptr;
      }
      methods.push_back({name, method->graph()->copy()});
    }
  } catch (const std::exception &e) {
    emitError(fileLoc) << "cannot read the TorchScript module: "
                       << firstLine(e);
    return nullptr;
  }
  return importPrepared(methods, ctx, options, fileName, module._ivalue());
}

OwningOpRef<ModuleOp>
mlprog::importTorchScriptGraph(const std::shared_ptr<torch::jit::Graph> &graph,
                               MLIRContext *ctx,
                               const TorchScriptImportOptions &options,
                               StringRef funcName, StringRef fileName) {
  return importPrepared({{funcName.str(), graph->copy()}}, ctx, options,
                        fileName, c10::intrusive_ptr<c10::ivalue::Object>());
}

OwningOpRef<ModuleOp>
mlprog::importTorchScript(const llvm::MemoryBuffer &buffer, MLIRContext *ctx,
                          const TorchScriptImportOptions &options) {
  loadDialects(ctx);
  registerPositionalOps();
  StringRef fileName = buffer.getBufferIdentifier();
  Location fileLoc = FileLineColLoc::get(ctx, fileName, 0, 0);
  StringRef data = buffer.getBuffer();
  if (data.starts_with(StringRef("PK\x03\x04", 4))) {
    torch::jit::Module module;
    try {
      // The archive is read from memory: its entry names are keys inside
      // the zip, never paths opened on disk, so it needs no model-path
      // confinement (test/Import/TorchScript/archive-paths.test).
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
  if (size_t at = findUnclosedAnnotate(text); at != StringRef::npos) {
    unsigned line = 1 + llvm::count(StringRef(text).take_front(at), '\n');
    emitError(FileLineColLoc::get(ctx, fileName, line, 1))
        << "cannot parse TorchScript IR: the type list of 'annotate(' is "
           "not closed before the end of the text";
    return nullptr;
  }
  auto graph = std::make_shared<torch::jit::Graph>();
  try {
    torch::jit::parseIR(text, graph.get());
  } catch (const std::exception &e) {
    emitError(fileLoc) << "cannot parse TorchScript IR: " << firstLine(e);
    return nullptr;
  }
  if (failed(checkUniqueValueNames(text, fileName, ctx)))
    return nullptr;
  unsigned index = 0;
  if (failed(checkSchemas(*graph->block(), fileLoc, index)))
    return nullptr;
  SmallVector<std::string> names = splitMethodNames(options);
  std::string name =
      names.empty() || names.front() == "*" ? "forward" : names.front();
  return importPrepared({{name, graph}}, ctx, options, fileName,
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
