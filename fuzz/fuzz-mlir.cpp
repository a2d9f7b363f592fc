//===- fuzz-mlir.cpp - parse + verify + canonicalize ml_program IR --------===//
//
// The context knows the ml_program dialect, plus arith and cf for the scalar
// constants and branches its functions use; unregistered dialects are
// rejected. A module that parses and verifies is canonicalized, must still
// verify, and must print and re-parse.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Support/ParseLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool initialized = (mlprog::fuzz::initLimits(), true);
  (void)initialized;
  DialectRegistry registry;
  registry.insert<mlprog::MLProgramDialect, arith::ArithDialect,
                  cf::ControlFlowDialect>();
  MLIRContext ctx(registry);
  ctx.disableMultithreading();
  ctx.loadAllAvailableDialects();
  mlprog::fuzz::DiagnosticCounter diags(ctx);
  // The MLIR lexer relies on a terminating NUL (files are read into
  // null-terminated buffers); libFuzzer's data has none.
  std::string text(reinterpret_cast<const char *>(data), size);
  // The tools refuse input nested deeper than MLIR's recursive parser can
  // take (Support/ParseLimits.h); so does the harness.
  if (mlprog::findExcessiveNesting(text))
    return 0;
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  mlprog::fuzz::checkFailureExplained(!module, diags, "parse");
  if (!module)
    return 0;
  PassManager pm(&ctx);
  pm.addPass(createCanonicalizerPass());
  // The pass manager verifies after the pass: canonicalization of a valid
  // module must give a valid module.
  if (failed(pm.run(*module)) || failed(verify(*module)))
    __builtin_trap();
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  OwningOpRef<ModuleOp> again = parseSourceString<ModuleOp>(printed, config);
  if (!again)
    __builtin_trap();
  return 0;
}
