//===- ParseLimits.cpp - Checks on MLIR text before MLIR parses it --------===//

#include "mlprog/Support/ParseLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlprog;

std::optional<size_t> mlprog::findExcessiveNesting(llvm::StringRef text,
                                                   unsigned maxDepth) {
  if (text.starts_with("ML\xefR"))
    return std::nullopt;
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '"':
      // A string literal ends at the closing quote; MLIR's lexer rejects a
      // newline (or the end of the buffer) first, so ending there too never
      // hides brackets from the count.
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '/':
      if (i + 1 < e && text[i + 1] == '/')
        i = std::min(text.find('\n', i), e);
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (++depth > maxDepth)
        return i;
      break;
    case '>':
      if ((i > 0 && text[i - 1] == '-') || (i + 1 < e && text[i + 1] == '='))
        break;
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

mlir::LogicalResult mlprog::checkNestingDepth(const llvm::SourceMgr &sourceMgr,
                                              mlir::MLIRContext *context,
                                              unsigned maxDepth) {
  unsigned bufferId = sourceMgr.getMainFileID();
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
  std::optional<size_t> offset =
      findExcessiveNesting(buffer->getBuffer(), maxDepth);
  if (!offset)
    return mlir::success();
  llvm::SMLoc where =
      llvm::SMLoc::getFromPointer(buffer->getBufferStart() + *offset);
  auto [line, column] = sourceMgr.getLineAndColumn(where, bufferId);
  mlir::Location loc = mlir::FileLineColLoc::get(
      context, buffer->getBufferIdentifier(), line, column);
  return mlir::emitError(loc)
         << "brackets nest deeper than " << maxDepth
         << " levels; mlprog refuses such input because MLIR's recursive "
            "parser would overflow the stack";
}
