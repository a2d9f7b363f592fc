/*===- mlprog-c/Strings.h - Runtime of string tensors -------------*- C -*-===//
 *
 * The C functions that compiled code calls for the `ml_program` string ops
 * (--mlprog-lower-strings; docs/strings.md). A string tensor's buffer holds
 * one `const char *` per element: a NUL-terminated UTF-8 string. A null
 * element reads as the empty string.
 *
 * Ownership: every string these functions return is owned by the runtime and
 * stays valid until the process exits (an append-only, thread-safe arena),
 * so compiled code copies elements as plain pointers and never frees them.
 * Strings a caller passes in stay the caller's; results may point to them.
 *
 * Linked into mlprog-run, the Python package (the JIT resolves the symbols
 * from the process, see mlprog::getStringRuntimeSymbols) and every library
 * mlprog-compile makes. Plain C on libc.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MLPROG_C_STRINGS_H
#define MLPROG_C_STRINGS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A runtime-owned copy of the `size` bytes at `bytes`, NUL-terminated.
 *  Returns NULL only when memory runs out. */
const char *mlprog_string_copy(const char *bytes, int64_t size);

/** `value` formatted as numpy's `str` formats a float of `mantissa_bits`
 *  significand bits (53 double, 24 float, 11 half, 8 bfloat16): the shortest
 *  decimal that rounds back to the same value at that precision, positional
 *  for 1e-4 <= |value| < 1e16 ("0.5", "3.0"), scientific otherwise
 *  ("1e-05", "1.5e+16"); "nan", "inf", "-inf". Spec: ONNX Cast to STRING. */
const char *mlprog_string_from_float(double value, int32_t mantissa_bits);

/** The decimal text of `value` ("-12"). */
const char *mlprog_string_from_i64(int64_t value);

/** The decimal text of `value` ("255"). */
const char *mlprog_string_from_u64(uint64_t value);

/** "True" when `value` is non-zero, else "False" (numpy's spelling). */
const char *mlprog_string_from_bool(int32_t value);

/** The float `text` spells (strtof: one rounding to float); NaN when it
 *  spells no number. Spec: ONNX Cast from STRING. */
float mlprog_string_to_f32(const char *text);

/** The double `text` spells (strtod); NaN when it spells no number. */
double mlprog_string_to_f64(const char *text);

/** The integer `text` spells: decimal digits with an optional sign, or a
 *  float truncated toward zero; 0 when it spells no number; saturated to
 *  the int64 range. */
int64_t mlprog_string_to_i64(const char *text);

/** As mlprog_string_to_i64, saturated to the uint64 range. */
uint64_t mlprog_string_to_u64(const char *text);

/** 1 for "True", "true" and text spelling a non-zero number, else 0. */
int32_t mlprog_string_to_bool(const char *text);

/** `text` in lower / upper case: each UTF-8 code point mapped by towlower /
 *  towupper of the C.UTF-8 locale; invalid UTF-8 bytes are kept. */
const char *mlprog_string_lower(const char *text);
const char *mlprog_string_upper(const char *text);

/** `lhs` followed by `rhs`. */
const char *mlprog_string_concat(const char *lhs, const char *rhs);

/** The number of parts of Python's `text.split(delimiter or None,
 *  maxsplit)`: `delimiter` "" splits at runs of white space (none for a
 *  blank text); a negative `maxsplit` is unlimited. Spec: ONNX StringSplit. */
int64_t mlprog_string_split_count(const char *text, const char *delimiter,
                                  int64_t maxsplit);

/** Part `index` of the same split, or "" when there is no such part. */
const char *mlprog_string_split_part(const char *text, const char *delimiter,
                                     int64_t maxsplit, int64_t index);

/** 1 when `lhs` and `rhs` hold the same bytes, else 0. */
int32_t mlprog_string_equal(const char *lhs, const char *rhs);

#ifdef __cplusplus
}
#endif

#endif /* MLPROG_C_STRINGS_H */
