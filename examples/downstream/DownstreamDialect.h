//===- DownstreamDialect.h - The `ds` dialect of the example ----*- C++ -*-===//

#ifndef DOWNSTREAM_DOWNSTREAMDIALECT_H
#define DOWNSTREAM_DOWNSTREAMDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "DownstreamDialect.h.inc"

#define GET_OP_CLASSES
#include "DownstreamOps.h.inc"

#endif // DOWNSTREAM_DOWNSTREAMDIALECT_H
