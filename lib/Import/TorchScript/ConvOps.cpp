//===- ConvOps.cpp - aten convolutions ------------------------------------===//
//
// `conv{1,2,3}d`, `convolution`, `_convolution` (also transposed) and
// `_convolution_mode`.
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
#include "mlprog/Import/Common/Shape.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups) and
/// _convolution_mode (same arguments), with `padding` a list or
/// 'same'/'valid'; convolution/_convolution(input, weight, bias, stride,
/// padding, dilation, transposed, output_padding, groups, ...), transposed
/// or not. Inputs may be unbatched ([C, D1..Dn]).
LogicalResult conv(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0), w = im.tensorInput(n, 1);
  if (failed(x) || failed(w))
    return failure();
  int64_t nd = rankOf(*w) - 2;
  if (nd < 1)
    return emitError(l) << n->kind().toQualString()
                        << ": the weight must have rank >= 3, got "
                        << w->getType();
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
  bool transposed = false;
  SmallVector<int64_t> outputPadding;
  if (general) {
    FailureOr<bool> t = im.boolInput(n, 6);
    FailureOr<int64_t> g = im.intInput(n, 8);
    if (failed(t) || failed(g))
      return failure();
    transposed = *t;
    groups = *g;
    if (transposed) {
      FailureOr<SmallVector<int64_t>> op = perDim(im, n, 7, nd, 0);
      if (failed(op))
        return failure();
      outputPadding = *op;
    }
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
    if (pad.str != "valid" && pad.str != "same")
      return emitError(l) << "convolution padding must be 'same', 'valid' or "
                             "a list, got '"
                          << pad.str << "'";
    if (pad.str == "valid") {
      params.padsBegin.assign(nd, 0);
      params.padsEnd.assign(nd, 0);
    } else {
      auto wt = cast<RankedTensorType>(w->getType());
      // torch 'same': total = dilation * (k - 1), extra at the end.
      for (int64_t d = 0; d < nd; ++d) {
        int64_t total = params.dilations[d] * (wt.getDimSize(d + 2) - 1);
        params.padsBegin.push_back(total / 2);
        params.padsEnd.push_back(total - total / 2);
      }
    }
  } else {
    FailureOr<SmallVector<int64_t>> p = perDim(im, n, 4, nd, 0);
    if (failed(p))
      return failure();
    params.padsBegin = *p;
    params.padsEnd = *p;
  }
  // An unbatched input [C, D1..Dn] is one batch element.
  bool unbatched = rankOf(*x) == nd + 1;
  if (unbatched)
    x = buildUnsqueeze(im.b, l, *x, 0);
  if (failed(x))
    return failure();
  FailureOr<Value> y = transposed
                           ? buildConvTranspose(im.b, l, *x, *w, bias, params,
                                                groups, outputPadding)
                           : buildConv(im.b, l, *x, *w, bias, params, groups);
  if (succeeded(y) && unbatched)
    y = buildSqueeze(im.b, l, *y, {0});
  return im.setTensor(n, 0, y);
}

} // namespace

void mlprog::torchscript::registerConvOps(OpTable &table) {
  table.add({
      {"aten::conv1d", conv},
      {"aten::conv2d", conv},
      {"aten::conv3d", conv},
      {"aten::convolution", conv},
      {"aten::_convolution", conv},
      {"aten::_convolution_mode", conv},
  });
}
