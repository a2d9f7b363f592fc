//===- Signal.h - Fourier transforms and filter banks -----------*- C++ -*-===//

//
// Format-independent builders for Fourier transforms, emitted as direct
// O(n^2) sums (a linalg.generic with a reduction over the input samples and
// the twiddle factor computed in its body). Complex tensors are stored as
// real tensors with a trailing dimension of 2 (real, imaginary), as ONNX
// does.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_SIGNAL_H
#define MLPROG_IMPORT_COMMON_SIGNAL_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlprog {

/// Discrete Fourier transform of `x` [..., n, ..., 1 or 2] (float; trailing
/// extent 1: real, 2: complex) along `axis` (in [0, rank - 1), the extent
/// there static unless `length` is given). With `length`, the signal is
/// zero-padded or truncated to that many samples. The result is
/// [..., m, ..., 2] with m = length, or length / 2 + 1 when `onesided`
/// (only the non-redundant frequencies of a real signal).
/// Forward: X[k] = sum_j x[j] exp(-2 pi i j k / n); `inverse`: exp(+...) and
/// a factor 1 / n.
/// Errors: non-float x, trailing extent other than 1 or 2, axis out of
/// range, unknown length, onesided with inverse.
/// Spec: ONNX DFT (opset 17).
mlir::FailureOr<mlir::Value> buildDFT(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value x, int64_t axis,
                                      std::optional<int64_t> length,
                                      bool inverse, bool onesided);

/// The real signal [..., n, ..., 1] whose one-sided spectrum is `x`
/// [..., m, ..., 2] (or [..., m, ..., 1], zero imaginary parts) along
/// `axis` (in [0, rank - 1), extent static): the inverse DFT of the
/// Hermitian-symmetric spectrum X[k] (k < n / 2 + 1, truncated or
/// zero-padded) and conj(X[n - k]) (the rest), with a factor 1 / n; the
/// imaginary parts of X[0] and X[n / 2] are ignored. n = `length`, or
/// 2 (m - 1) when absent.
/// Errors: non-float x, trailing extent other than 1 or 2, axis out of
/// range, a dynamic extent along `axis`, n <= 0.
/// Spec: ONNX DFT-20 with inverse = 1 and onesided = 1; numpy.fft.irfft.
mlir::FailureOr<mlir::Value> buildInverseRealDFT(mlir::OpBuilder &b,
                                                 mlir::Location loc,
                                                 mlir::Value x, int64_t axis,
                                                 std::optional<int64_t> length);

/// Short-time Fourier transform of `signal` [batch, L, 1 or 2] (float):
/// frames of `frameLength` samples taken every `frameStep` samples (both
/// index values, known at compile or run time), each multiplied by `window`
/// (1-D float of frameLength elements; null: ones) and transformed with a
/// forward DFT. The result is [batch, F, K, 2] with
/// F = (L - frameLength) / frameStep + 1 and K = frameLength / 2 + 1 when
/// `onesided`, else frameLength. A frame length or step that does not fit
/// the signal is undefined behaviour (not checked at run time).
/// Errors: non-float or mismatched element types, wrong ranks.
/// Spec: ONNX STFT (opset 17).
mlir::FailureOr<mlir::Value> buildSTFT(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value signal,
                                       mlir::Value frameStep,
                                       mlir::Value window,
                                       mlir::Value frameLength, bool onesided);

/// Mel filter bank [dftLength / 2 + 1, numMelBins] of `elementType`
/// (float): triangular filters whose edges are numMelBins + 2 points evenly
/// spaced on the mel scale (mel = 2595 log10(1 + hz / 700)) between
/// `lowerHz` and `upperHz` (the step being the range divided by
/// numMelBins + 2, as ONNX's definition has it), each mapped to the
/// spectrogram bin floor((dftLength + 1) hz / sampleRate). `numMelBins` and
/// `dftLength` are index values, `sampleRate`, `lowerHz` and `upperHz` f64
/// values (compile or run time).
/// Spec: ONNX MelWeightMatrix (opset 17).
mlir::FailureOr<mlir::Value>
buildMelWeightMatrix(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::Value numMelBins, mlir::Value dftLength,
                     mlir::Value sampleRate, mlir::Value lowerHz,
                     mlir::Value upperHz, mlir::Type elementType);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_SIGNAL_H
