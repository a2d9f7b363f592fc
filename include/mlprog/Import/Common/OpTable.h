//===- OpTable.h - Source op name -> import handler table -------*- C++ -*-===//
//
// Each importer (ONNX, TorchScript, MIL) maps the ops of its format to
// handlers that call the shared builders. The handlers live in one source
// file per op family (ElementwiseOps.cpp, ConvOps.cpp, ...); each file has a
// `register<Family>Ops(OpTable &)` that adds its entries, and one function
// per importer assembles the table from them. scripts/gen-op-table.py reads
// the `table.add({...})` lists to document which ops an importer accepts.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_OPTABLE_H
#define MLPROG_IMPORT_COMMON_OPTABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cassert>

namespace mlprog {

/// A table from a source op name (ONNX op type, `aten::name[.overload]`, MIL
/// op type) to the handler that imports it. `Handler` is the importer's
/// handler type (a function pointer); a missing op looks up as null.
template <typename Handler> class OpTable {
public:
  /// One op and its handler, as listed by a family's registration function.
  struct Entry {
    const char *name;
    Handler handler;
  };

  /// Adds `entries`. Two handlers for one op name are a programming error
  /// (two families claiming an op), not something an input can cause.
  void add(llvm::ArrayRef<Entry> entries) {
    for (const Entry &entry : entries) {
      [[maybe_unused]] bool inserted =
          handlers.try_emplace(entry.name, entry.handler).second;
      assert(inserted && "two handlers registered for one op");
    }
  }

  /// The handler of op `name`, or null when the importer has none.
  Handler lookup(llvm::StringRef name) const { return handlers.lookup(name); }

  /// Number of ops with a handler.
  size_t size() const { return handlers.size(); }

private:
  llvm::StringMap<Handler> handlers;
};

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_OPTABLE_H
