//===- Passes.h - mlprog conversion passes ----------------------*- C++ -*-===//

#ifndef MLPROG_CONVERSION_PASSES_H
#define MLPROG_CONVERSION_PASSES_H

#include "mlprog/Conversion/MLProgramStringsToLLVM/MLProgramStringsToLLVM.h"
#include "mlprog/Conversion/MLProgramToMemRef/MLProgramToMemRef.h"

namespace mlprog {

#define GEN_PASS_REGISTRATION
#include "mlprog/Conversion/Passes.h.inc"

} // namespace mlprog

#endif // MLPROG_CONVERSION_PASSES_H
