//===- ParseLimitsTest.cpp - Bracket nesting checks on MLIR text ----------===//

#include "mlprog/Support/ParseLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlprog;

namespace {

std::string repeat(llvm::StringRef text, unsigned count) {
  std::string result;
  for (unsigned i = 0; i < count; ++i)
    result += text;
  return result;
}

TEST(ParseLimits, CountsEveryBracketKindTowardsOneDepth) {
  EXPECT_EQ(findExcessiveNesting("([{<>}])", 4), std::nullopt);
  EXPECT_EQ(findExcessiveNesting("([{<>}])", 3), size_t(3));
  EXPECT_EQ(findExcessiveNesting(repeat("[", 256)), std::nullopt);
  EXPECT_EQ(findExcessiveNesting(repeat("[", 257)), size_t(256));
  // Closed brackets give their depth back.
  EXPECT_EQ(findExcessiveNesting(repeat("[]", 1000), 1), std::nullopt);
  // A closer without an opener does not lower the depth below zero.
  EXPECT_EQ(findExcessiveNesting("]]]]((", 1), size_t(5));
}

TEST(ParseLimits, IgnoresStringsCommentsArrowsAndGreaterEqual) {
  EXPECT_EQ(findExcessiveNesting("\"((((\" x", 1), std::nullopt);
  EXPECT_EQ(findExcessiveNesting("\"a\\\"((((\" x", 1), std::nullopt);
  EXPECT_EQ(findExcessiveNesting("// ((((\n()", 1), std::nullopt);
  // '->' and '>=' are not closers: the '<' stays open.
  EXPECT_EQ(findExcessiveNesting("<->(", 1), size_t(3));
  EXPECT_EQ(findExcessiveNesting("<>=(", 1), size_t(3));
  EXPECT_EQ(findExcessiveNesting("<>(", 1), std::nullopt);
}

TEST(ParseLimits, StringsEndAtNewlineSoNothingIsHidden) {
  // MLIR's lexer rejects a newline inside a string; the brackets after it
  // are counted, not skipped as part of the string.
  EXPECT_EQ(findExcessiveNesting("\"abc\n(((", 2), size_t(7));
}

TEST(ParseLimits, SkipsBytecode) {
  EXPECT_EQ(findExcessiveNesting(std::string("ML\xefR") + repeat("(", 9), 1),
            std::nullopt);
}

TEST(ParseLimits, ReportsTheLocation) {
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy("x\n  [[[", "deep.mlir"),
      llvm::SMLoc());
  std::string message;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    llvm::raw_string_ostream os(message);
    os << diag.getLocation() << ": " << diag;
    return mlir::success();
  });
  EXPECT_TRUE(mlir::failed(checkNestingDepth(sourceMgr, &context, 2)));
  EXPECT_EQ(message, "loc(\"deep.mlir\":2:5): brackets nest deeper than 2 "
                     "levels; mlprog refuses such input because MLIR's "
                     "recursive parser would overflow the stack");
  message.clear();
  EXPECT_TRUE(mlir::succeeded(checkNestingDepth(sourceMgr, &context, 3)));
  EXPECT_EQ(message, "");
}

} // namespace
