//===- IntegrationOps.cpp - aten trapezoid, trapz, cumulative_trapezoid ---===//
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions and calls
// mlprog/Import/Common/NumericalIntegration.h.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/NumericalIntegration.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

/// trapezoid.x(y, x, *, dim=-1) / trapezoid.dx(y, *, dx=1, dim=-1), the
/// same for trapz and cumulative_trapezoid.
LogicalResult trapezoid(Importer &im, Node *n) {
  FailureOr<Value> y = floatInput(im, n, 0);
  if (failed(y))
    return failure();
  bool cumulative =
      n->kind().toUnqualString() == std::string("cumulative_trapezoid");
  Value x;
  double dx = 1;
  if (n->schema().overload_name() == "x") {
    FailureOr<Value> xv = im.tensorInput(n, 1);
    if (failed(xv))
      return failure();
    x = *xv;
  } else {
    FailureOr<double> d = numberOr(im, n, 1, 1.0);
    if (failed(d))
      return failure();
    dx = *d;
  }
  FailureOr<int64_t> dim = im.intInput(n, 2);
  if (failed(dim))
    return failure();
  return im.setTensor(
      n, 0, buildTrapezoid(im.b, im.loc(n), *y, x, dx, *dim, cumulative));
}

} // namespace

void mlprog::torchscript::registerIntegrationOps(OpTable &table) {
  table.add({
      {"aten::trapezoid", trapezoid},
      {"aten::trapz", trapezoid},
      {"aten::cumulative_trapezoid", trapezoid},
  });
}
