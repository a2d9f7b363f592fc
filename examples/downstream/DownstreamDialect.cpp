//===- DownstreamDialect.cpp - The `ds` dialect of the example ------------===//

#include "DownstreamDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace downstream;

#include "DownstreamDialect.cpp.inc"

void DownstreamDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "DownstreamOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "DownstreamOps.cpp.inc"

OpFoldResult AnnotateOp::fold(FoldAdaptor) { return getInput(); }
