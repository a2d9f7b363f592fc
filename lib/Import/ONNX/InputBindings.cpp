//===- InputBindings.cpp - --input-shapes and --input-constants -----------===//
//
// What the user pins on a model's graph inputs before it is checked and
// shape-inferred (see ModelLoader.h).
//
//===----------------------------------------------------------------------===//

#include "ModelLoader.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace mlir;

LogicalResult
mlprog::onnx_import::applyInputShapes(Location fileLoc, onnx::GraphProto &graph,
                                      ArrayRef<std::vector<int64_t>> shapes) {
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &init : graph.initializer())
    initializers.insert(init.name());
  SmallVector<onnx::ValueInfoProto *> inputs;
  for (onnx::ValueInfoProto &input : *graph.mutable_input())
    if (!initializers.contains(input.name()))
      inputs.push_back(&input);
  auto names = [&] {
    std::string list;
    for (onnx::ValueInfoProto *input : inputs)
      list += (list.empty() ? "'" : ", '") + input->name() + "'";
    return list;
  };
  if (shapes.size() != inputs.size())
    return emitError(fileLoc) << "--input-shapes gives " << shapes.size()
                              << " shape(s), the model has " << inputs.size()
                              << " input(s) that are not initializers"
                              << (inputs.empty() ? "" : ": ") << names();
  std::map<std::string, int64_t> pinned;
  for (auto [input, shape] : llvm::zip(inputs, shapes)) {
    if (!input->type().has_tensor_type())
      return emitError(fileLoc) << "--input-shapes: input '" << input->name()
                                << "' is not a tensor";
    onnx::TypeProto_Tensor *tensor =
        input->mutable_type()->mutable_tensor_type();
    bool ranked = tensor->has_shape();
    if (ranked && tensor->shape().dim_size() != int64_t(shape.size()))
      return emitError(fileLoc)
             << "--input-shapes: input '" << input->name() << "' has rank "
             << tensor->shape().dim_size() << ", the shape given has rank "
             << shape.size();
    onnx::TensorShapeProto *dims = tensor->mutable_shape();
    for (auto [i, extent] : llvm::enumerate(shape)) {
      onnx::TensorShapeProto_Dimension *dim =
          ranked ? dims->mutable_dim(i) : dims->add_dim();
      if (extent == ShapedType::kDynamic)
        continue;
      if (dim->has_dim_value() && dim->dim_value() != extent)
        return emitError(fileLoc)
               << "--input-shapes: input '" << input->name() << "' has extent "
               << dim->dim_value() << " in dimension " << i
               << ", the shape given has " << extent;
      if (dim->has_dim_param())
        pinned[dim->dim_param()] = extent;
      dim->set_dim_value(extent);
    }
  }
  auto pin = [&](onnx::ValueInfoProto &info) {
    if (!info.type().has_tensor_type() ||
        !info.type().tensor_type().has_shape())
      return;
    for (onnx::TensorShapeProto_Dimension &dim : *info.mutable_type()
                                                      ->mutable_tensor_type()
                                                      ->mutable_shape()
                                                      ->mutable_dim())
      if (dim.has_dim_param())
        if (auto it = pinned.find(dim.dim_param()); it != pinned.end())
          dim.set_dim_value(it->second);
  };
  for (onnx::ValueInfoProto &info : *graph.mutable_output())
    pin(info);
  for (onnx::ValueInfoProto &info : *graph.mutable_value_info())
    pin(info);
  return success();
}

/// Binds the graph inputs named in `constants` (`--input-constants`) to
/// their values: each becomes an initializer of the input's element type
/// (integers, floats, bool) and shape (rank 0, or one element). An unknown
/// name, an input of another type or size, or a value that does not parse
/// is an error naming the input.
LogicalResult mlprog::onnx_import::applyInputConstants(
    Location fileLoc, onnx::GraphProto &graph,
    ArrayRef<std::pair<std::string, std::string>> constants) {
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &init : graph.initializer())
    initializers.insert(init.name());
  for (const auto &[name, text] : constants) {
    onnx::ValueInfoProto *input = nullptr;
    for (onnx::ValueInfoProto &candidate : *graph.mutable_input())
      if (candidate.name() == name && !initializers.contains(name))
        input = &candidate;
    if (!input)
      return emitError(fileLoc) << "--input-constants: the graph has no input "
                                   "named '"
                                << name << "' that is not an initializer";
    if (!input->type().has_tensor_type())
      return emitError(fileLoc)
             << "--input-constants: input '" << name << "' is not a tensor";
    const onnx::TypeProto_Tensor &type = input->type().tensor_type();
    onnx::TensorProto value;
    value.set_name(name);
    value.set_data_type(type.elem_type());
    for (const onnx::TensorShapeProto_Dimension &dim : type.shape().dim()) {
      if (dim.has_dim_value() && dim.dim_value() != 1)
        return emitError(fileLoc)
               << "--input-constants: input '" << name
               << "' is not a scalar or a one-element tensor";
      value.add_dims(1);
    }
    StringRef literal = StringRef(text).trim();
    int64_t integer;
    double real;
    bool parsed = true;
    switch (type.elem_type()) {
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::UINT16:
      parsed = !literal.getAsInteger(10, integer);
      value.add_int32_data(int32_t(integer));
      break;
    case onnx::TensorProto::INT64:
      parsed = !literal.getAsInteger(10, integer);
      value.add_int64_data(integer);
      break;
    case onnx::TensorProto::BOOL:
      parsed = literal == "true" || literal == "false" || literal == "1" ||
               literal == "0";
      value.add_int32_data(literal == "true" || literal == "1");
      break;
    case onnx::TensorProto::FLOAT:
      parsed = !literal.getAsDouble(real);
      value.add_float_data(float(real));
      break;
    case onnx::TensorProto::DOUBLE:
      parsed = !literal.getAsDouble(real);
      value.add_double_data(real);
      break;
    default:
      return emitError(fileLoc)
             << "--input-constants: input '" << name
             << "' has ONNX element type " << type.elem_type()
             << "; only integers, float, double and bool can be bound";
    }
    if (!parsed)
      return emitError(fileLoc)
             << "--input-constants: '" << text << "' is not a value of input '"
             << name << "''s element type";
    *graph.add_initializer() = std::move(value);
    initializers.insert(name);
  }
  return success();
}
