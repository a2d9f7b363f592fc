//===- NumpyConversion.h - Host tensors to and from numpy ------*- C++ -*-===//
//
// Private to python/: binds numpy arrays as the runner's host tensors and
// hands result tensors to numpy, both without a copy, for every element type
// the runner binds (bool, [u]int8-64, float16/32/64, and ml_dtypes' bfloat16,
// float8, float4, [u]int4 and [u]int2).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_PYTHON_NUMPYCONVERSION_H
#define MLPROG_PYTHON_NUMPYCONVERSION_H

#include "mlprog/Formats/Npy.h"

#include <pybind11/numpy.h>

#include <cstddef>
#include <vector>

namespace mlprog::python {

/// Binds argument `index` (anything numpy turns into an array) as a
/// C-ordered host tensor for one call. A C-contiguous, aligned array of a
/// numeric dtype is not copied: the tensor views its bytes (the compiled
/// code never writes its inputs) and `keepAlive` holds the array until the
/// call ends; other values (converted sequences, strided or unaligned
/// arrays, strings) are copied. Throws DiagnosticError ("input <index>:
/// ...") for values numpy cannot convert and for unsupported or big-endian
/// dtypes.
HostTensor toHostTensor(pybind11::handle value, size_t index,
                        std::vector<pybind11::array> &keepAlive);

/// Moves result `index` into a numpy array that owns it (no copy). Throws
/// DiagnosticError when its element type needs ml_dtypes and that package
/// is missing.
pybind11::array toNumpy(HostTensor tensor, size_t index);

} // namespace mlprog::python

#endif // MLPROG_PYTHON_NUMPYCONVERSION_H
