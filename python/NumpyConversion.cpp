//===- NumpyConversion.cpp - Host tensors to and from numpy ---------------===//

#include "NumpyConversion.h"
#include "DiagnosticError.h"

#include "mlprog/Formats/Npy.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlprog;
using mlprog::python::DiagnosticError;

//===----------------------------------------------------------------------===//
// Host tensors <-> numpy
//===----------------------------------------------------------------------===//

/// The DType whose numpy (ml_dtypes) name is `name`, among the 1-byte types
/// numpy itself does not have.
static std::optional<DType> getDTypeByNumpyName(llvm::StringRef name) {
  for (DType dtype : {DType::F8E4M3FN, DType::F8E4M3FNUZ, DType::F8E5M2,
                      DType::F8E5M2FNUZ, DType::F8E8M0FNU, DType::F4E2M1FN,
                      DType::I4, DType::U4, DType::I2, DType::U2})
    if (getNumpyDTypeName(dtype) == name)
      return dtype;
  return std::nullopt;
}

/// What the conversions need of a numpy dtype, read through its Python
/// attributes. numpy 2 changed the C layout of `PyArray_Descr`, and
/// pybind11's `dtype::itemsize()`, `kind()`, `byteorder()` and
/// `has_fields()` read the numpy 1 layout directly (Debian's pybind11 2.10
/// predates numpy 2), so under numpy 2 they return garbage; the attributes
/// are the same in both versions.
struct DTypeFacts {
  char kind;
  char byteorder;
  ssize_t itemsize;
  bool hasFields;
  std::string name;
};

static DTypeFacts getFacts(const py::dtype &dtype) {
  return {dtype.attr("kind").cast<std::string>().front(),
          dtype.attr("byteorder").cast<std::string>().front(),
          dtype.attr("itemsize").cast<ssize_t>(),
          !dtype.attr("fields").is_none(),
          dtype.attr("name").cast<std::string>()};
}

/// The DType of a numpy dtype (kind and item size); std::nullopt for
/// anything the runner cannot bind (complex, strings, objects, ...).
static std::optional<DType> getDType(const DTypeFacts &dtype) {
  ssize_t size = dtype.itemsize;
  // The 1-byte ml_dtypes types (float8_*, float4_e2m1fn, [u]int4, [u]int2;
  // numpy calls some of them kind 'V', float8_e5m2 kind 'f') are told apart
  // by name.
  if (size == 1 && !dtype.hasFields)
    if (std::optional<DType> narrow = getDTypeByNumpyName(dtype.name))
      return narrow;
  switch (dtype.kind) {
  case 'b':
    return size == 1 ? std::optional<DType>(DType::Bool) : std::nullopt;
  case 'i':
    switch (size) {
    case 1:
      return DType::I8;
    case 2:
      return DType::I16;
    case 4:
      return DType::I32;
    case 8:
      return DType::I64;
    }
    return std::nullopt;
  case 'u':
    switch (size) {
    case 1:
      return DType::U8;
    case 2:
      return DType::U16;
    case 4:
      return DType::U32;
    case 8:
      return DType::U64;
    }
    return std::nullopt;
  case 'f':
    switch (size) {
    case 2:
      return DType::F16;
    case 4:
      return DType::F32;
    case 8:
      return DType::F64;
    }
    return std::nullopt;
  case 'V':
    // ml_dtypes.bfloat16 is a 2-byte void type to numpy; as for .npy files
    // (Formats/Npy.h), any 2-byte void without fields holds bfloat16 bits.
    if (size == 2 && !dtype.hasFields)
      return DType::BF16;
    return std::nullopt;
  }
  return std::nullopt;
}

/// The numpy dtype of results of `dtype`. numpy has no bfloat16 and none
/// of the 8-, 4- and 2-bit types: they come from ml_dtypes (a dependency of
/// onnx and jax), and without it such a result is an error.
static py::dtype getNumpyDType(DType dtype, size_t index) {
  std::string name = getNumpyDTypeName(dtype).str();
  if (dtype != DType::BF16 && !getDTypeByNumpyName(name))
    return py::dtype::from_args(py::str(name));
  try {
    return py::dtype::from_args(
        py::module_::import("ml_dtypes").attr(py::str(name)));
  } catch (py::error_already_set &) {
    throw DiagnosticError(llvm::formatv(
        "error: result {0} has element type {1}, which numpy holds only "
        "with the ml_dtypes package (pip install ml_dtypes)",
        index, getDTypeName(dtype)));
  }
}

/// A Str tensor of the numpy unicode ('U') or object array `array`, whose
/// elements must be str (held as UTF-8, include/mlprog/Formats/Npy.h).
static HostTensor toStringTensor(const py::array &array, size_t index) {
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  llvm::Expected<HostTensor> tensor = HostTensor::create(DType::Str, shape);
  if (!tensor)
    throw DiagnosticError(llvm::formatv("error: input {0}: {1}", index,
                                        llvm::toString(tensor.takeError())));
  int64_t i = 0;
  for (py::handle element : array.attr("ravel")().attr("tolist")()) {
    if (!py::isinstance<py::str>(element))
      throw DiagnosticError(llvm::formatv(
          "error: input {0}: element {1} of a string array is a '{2}', not "
          "a str",
          index, i,
          py::str(element.get_type().attr("__name__")).cast<std::string>()));
    std::string text = element.cast<std::string>();
    if (text.find('\0') != std::string::npos)
      throw DiagnosticError(llvm::formatv(
          "error: input {0}: element {1} holds a NUL character", index, i));
    tensor->setString(i++, text);
  }
  return std::move(*tensor);
}

HostTensor python::toHostTensor(py::handle value, size_t index,
                                std::vector<py::array> &keepAlive) {
  auto array = py::array::ensure(value, py::array::c_style);
  if (!array)
    throw DiagnosticError(llvm::formatv(
        "error: input {0}: cannot convert a "
        "'{1}' to a numpy array",
        index, py::str(value.get_type().attr("__name__")).cast<std::string>()));
  py::dtype dtype = array.dtype();
  DTypeFacts facts = getFacts(dtype);
  if (facts.kind == 'U' || facts.kind == 'O')
    return toStringTensor(array, index);
  std::optional<DType> hostType = getDType(facts);
  if (!hostType || facts.byteorder == '>')
    throw DiagnosticError(
        llvm::formatv("error: input {0}: unsupported array dtype '{1}' (bool, "
                      "[u]int8/16/32/64, float16/32/64 in native byte order, "
                      "ml_dtypes.bfloat16 and the ml_dtypes float8, float4, "
                      "[u]int4 and [u]int2 types, str)",
                      index, py::str(dtype).cast<std::string>()));
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  // Views need element alignment; `ensure` made the array C-contiguous.
  auto address = reinterpret_cast<uintptr_t>(array.data());
  if (array.size() > 0 && facts.itemsize > 0 && address % facts.itemsize == 0) {
    keepAlive.push_back(array);
    return HostTensor::wrap(
        *hostType, shape,
        static_cast<uint8_t *>(const_cast<void *>(array.data())), nullptr);
  }
  llvm::Expected<HostTensor> tensor = HostTensor::create(*hostType, shape);
  if (!tensor)
    throw DiagnosticError(llvm::formatv("error: input {0}: {1}", index,
                                        llvm::toString(tensor.takeError())));
  if (tensor->getNumBytes())
    std::memcpy(tensor->getData(), array.data(), tensor->getNumBytes());
  return std::move(*tensor);
}

py::array python::toNumpy(HostTensor tensor, size_t index) {
  if (tensor.getDType() == DType::Str) {
    // A fixed-width unicode array ('<U<n>'), as np.array(list_of_str).
    py::list texts;
    for (int64_t i = 0; i < tensor.getNumElements(); ++i) {
      llvm::StringRef text = tensor.getString(i);
      PyObject *decoded =
          PyUnicode_DecodeUTF8(text.data(), text.size(), "replace");
      if (!decoded)
        throw py::error_already_set();
      texts.append(py::reinterpret_steal<py::str>(decoded));
    }
    py::module_ numpy = py::module_::import("numpy");
    py::tuple shape(tensor.getRank());
    for (auto [i, extent] : llvm::enumerate(tensor.getShape()))
      shape[i] = py::int_(extent);
    return numpy.attr("array")(texts, py::arg("dtype") = py::str("str"))
        .attr("reshape")(shape)
        .cast<py::array>();
  }
  py::dtype dtype = getNumpyDType(tensor.getDType(), index);
  std::vector<ssize_t> shape(tensor.getShape().begin(),
                             tensor.getShape().end());
  // Row-major strides computed here: pybind11 would derive them from
  // `dtype::itemsize()`, which is wrong under numpy 2 (see DTypeFacts).
  std::vector<ssize_t> strides(shape.size());
  ssize_t stride = getFacts(dtype).itemsize;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  auto *owned = new HostTensor(std::move(tensor));
  py::capsule owner(owned,
                    [](void *ptr) { delete static_cast<HostTensor *>(ptr); });
  return py::array(dtype, shape, strides, owned->getData(), owner);
}
