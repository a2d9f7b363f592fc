//===- ConvOps.cpp - aten convolutions ------------------------------------===//
//
// `conv{1,2,3}d`, `convolution` and `_convolution`.
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Conv.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups),
/// with `padding` a list or 'same'/'valid'; convolution/_convolution(input,
/// weight, bias, stride, padding, dilation, transposed, output_padding,
/// groups, ...).
LogicalResult conv(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0), w = im.tensorInput(n, 1);
  if (failed(x) || failed(w))
    return failure();
  int64_t nd = rankOf(*w) - 2;
  Value bias;
  if (!im.isNoneInput(n, 2)) {
    FailureOr<Value> bv = im.tensorInput(n, 2);
    if (failed(bv))
      return failure();
    bias = *bv;
  }
  std::string kind = n->kind().toUnqualString();
  bool general = kind == "convolution" || kind == "_convolution";
  int64_t groups;
  if (general) {
    FailureOr<bool> transposed = im.boolInput(n, 6);
    if (failed(transposed))
      return failure();
    if (*transposed)
      return im.unsupported(n, "transposed convolution");
    FailureOr<int64_t> g = im.intInput(n, 8);
    if (failed(g))
      return failure();
    groups = *g;
  } else {
    FailureOr<int64_t> g =
        n->inputs().size() > 6 ? im.intInput(n, 6) : FailureOr<int64_t>(1);
    if (failed(g))
      return failure();
    groups = *g;
  }
  WindowParams params;
  FailureOr<SmallVector<int64_t>> stride = perDim(im, n, 3, nd, 1);
  FailureOr<SmallVector<int64_t>> dilation = perDim(im, n, 5, nd, 1);
  if (failed(stride) || failed(dilation))
    return failure();
  params.strides = *stride;
  params.dilations = *dilation;
  const TSValue &pad = im.get(n->input(4));
  if (pad.kind == TSValue::Kind::Str) {
    if (pad.str == "valid") {
      params.padsBegin.assign(nd, 0);
      params.padsEnd.assign(nd, 0);
    } else {
      auto xt = cast<RankedTensorType>(x->getType());
      auto wt = cast<RankedTensorType>(w->getType());
      // torch 'same': total = dilation * (k - 1), extra at the end.
      for (int64_t d = 0; d < nd; ++d) {
        int64_t total = params.dilations[d] * (wt.getDimSize(d + 2) - 1);
        params.padsBegin.push_back(total / 2);
        params.padsEnd.push_back(total - total / 2);
      }
      (void)xt;
    }
  } else {
    FailureOr<SmallVector<int64_t>> p = perDim(im, n, 4, nd, 0);
    if (failed(p))
      return failure();
    params.padsBegin = *p;
    params.padsEnd = *p;
  }
  return im.setTensor(n, 0, buildConv(im.b, l, *x, *w, bias, params, groups));
}

} // namespace

void mlprog::torchscript::registerConvOps(OpTable &table) {
  table.add({
      {"aten::conv1d", conv},
      {"aten::conv2d", conv},
      {"aten::conv3d", conv},
      {"aten::convolution", conv},
      {"aten::_convolution", conv},
  });
}
