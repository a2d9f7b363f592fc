//===- ParseLimits.h - Checks on MLIR text before MLIR parses it -*- C++
//-*-===//
//
// MLIR's parser is recursive descent: every nested `[`, `(`, `{` or `<`
// (attribute lists, types, dictionaries, regions) costs stack frames, and
// libMLIR has no depth limit, so a few thousand nested brackets overflow the
// stack (docs/reliability.md, finding 4). Every mlprog path that parses MLIR
// text from a user (mlprog-opt, mlprog-run, mlprog-compile, the Python
// package, the fuzz-mlir harness) first checks the text's bracket nesting
// here and reports a located error instead.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_SUPPORT_PARSELIMITS_H
#define MLPROG_SUPPORT_PARSELIMITS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace mlprog {

/// The deepest bracket nesting the tools pass on to MLIR's parser. Real IR
/// nests a few dozen levels (regions within regions, a rank-8 dense literal
/// is 9); 256 levels of the costliest kind (nested regions) parse well
/// within an 8 MiB stack, under AddressSanitizer too.
inline constexpr unsigned kMaxNestingDepth = 256;

/// Scans MLIR assembly `text` as MLIR's lexer does and returns the byte
/// offset of the first opening bracket (`(`, `[`, `{` or `<`) at nesting
/// depth `maxDepth + 1`, or std::nullopt when the text nests no deeper than
/// `maxDepth`. Brackets inside string literals and `//` comments do not
/// count; `->` and `>=` do not close. All four kinds share one depth (they
/// nest inside each other in the parser's recursion); a closer without an
/// opener is ignored. The count never underestimates the parser's nesting,
/// so text that passes cannot drive the parser deeper than `maxDepth`.
/// Bytecode (text starting with "ML\xefR") is not scanned.
std::optional<size_t>
findExcessiveNesting(llvm::StringRef text,
                     unsigned maxDepth = kMaxNestingDepth);

/// Checks the main buffer of `sourceMgr` with `findExcessiveNesting` and, on
/// excess, emits through `context`'s diagnostic engine, located at the
/// offending bracket (file:line:col), "brackets nest deeper than 256
/// levels; mlprog refuses such input because MLIR's recursive parser would
/// overflow the stack" and returns failure.
mlir::LogicalResult checkNestingDepth(const llvm::SourceMgr &sourceMgr,
                                      mlir::MLIRContext *context,
                                      unsigned maxDepth = kMaxNestingDepth);

} // namespace mlprog

#endif // MLPROG_SUPPORT_PARSELIMITS_H
