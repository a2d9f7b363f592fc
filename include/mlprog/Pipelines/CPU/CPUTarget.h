//===- CPUTarget.h - The CPU the code generation tunes for ------*- C++ -*-===//
//
// One description of the code-generation target, used by every step of
// --mlprog-lower-to-cpu that depends on it (register tiles, vector widths of
// elementwise code and copies, cache blocking) and by the AOT compiler for
// the host's CPU and features.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_PIPELINES_CPU_CPUTARGET_H
#define MLPROG_PIPELINES_CPU_CPUTARGET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mlprog {

/// The code-generation target the CPU pipeline tunes for: the vector width
/// of its register tiles comes from `features`; cache sizes are those of
/// current x86 cores (they do not depend on the features).
struct CPUTarget {
  /// LLVM CPU name (`llvm::sys::getHostCPUName()` for the host).
  std::string cpu;
  /// LLVM feature string, "+avx2,+fma,-avx512f,..." (host:
  /// `llvm::sys::getHostCPUFeatures()`).
  std::string features;
  /// Target triple (host: `llvm::sys::getProcessTriple()`).
  std::string triple;
  /// Ways of the L1 data cache. The host's (sysconf, from CPUID) when the
  /// CPU is the host's; else 8, as in the 32 KiB L1 of Zen 3/4 and Intel
  /// client cores (Zen 5 and Intel server cores: 48 KiB, 12 ways).
  unsigned l1Ways = 8;

  /// The host: its CPU name, all its features (each "+name" or "-name") and
  /// the process's triple.
  static CPUTarget getHost();

  /// The target named by `cpu`, `features` and `triple` (as llc's -mcpu,
  /// -mattr and -mtriple): an empty or "native" `cpu` is the host's CPU; an
  /// empty or "native" `features` is the host's features when the CPU is
  /// the host's, else no features; an empty `triple` is the process's.
  static CPUTarget get(llvm::StringRef cpu, llvm::StringRef features,
                       llvm::StringRef triple);

  /// Checks user-given `cpu`, `features` and `triple` (llc's -mcpu, -mattr,
  /// -mtriple; empty or "native" values are the host's and not checked)
  /// against LLVM's tables for the triple, so that a typo is an error
  /// instead of LLVM's "is not a recognized processor (ignoring processor)"
  /// warning followed by generic code or a fatal error ("64-bit code
  /// requested on a subtarget that doesn't support it"). Errors: no LLVM
  /// target for the triple; an unknown CPU; a feature that does not start
  /// with '+' or '-' or that the target does not know. Unknown names come
  /// with the closest known one.
  static llvm::Error verify(llvm::StringRef cpu, llvm::StringRef features,
                            llvm::StringRef triple);

  /// The target of a pass's `target-features` option: the host
  /// (getHost()) when `features` is empty, "native" or exactly the host's
  /// feature string (the pipeline's spelling of a native target), else a
  /// target with only those features (no CPU name or triple).
  static CPUTarget getForFeatures(llvm::StringRef features);

  /// Widest f32 vector the features allow: 16 with +avx512f, 8 with
  /// +avx/+avx2, 4 otherwise (SSE, NEON).
  unsigned getVectorWidthF32() const;
  /// Width of the widest vector register in bits: 512, 256 or 128
  /// (getVectorWidthF32() f32 lanes).
  unsigned getVectorBits() const { return getVectorWidthF32() * 32; }
  /// Number of architectural vector registers (32 with AVX-512, else 16).
  unsigned getNumVectorRegisters() const;
  /// Whether the features have AVX-512 VNNI (with AVX512F and AVX512BW):
  /// `vpdpbusd`, four u8 x s8 products summed into each i32 lane of a zmm.
  bool hasAVX512VNNI() const;

  /// Distance in bytes between addresses that share an L1 set: 4 KiB, with
  /// 64 sets of 64-byte lines (a 48 KiB 12-way or 32 KiB 8-way L1). Rows
  /// that many bytes apart evict each other.
  int64_t getL1SetPeriodBytes() const { return 4096; }
  /// Bytes a block of intermediate data may hold to stay in L2 between the
  /// loop that writes it and the one that reads it: 768 KiB, with room left
  /// in a 1-2 MiB L2 for the operands streamed beside it.
  int64_t getL2BlockBytes() const { return 768 * 1024; }
};

} // namespace mlprog

#endif // MLPROG_PIPELINES_CPU_CPUTARGET_H
