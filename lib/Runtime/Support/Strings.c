//===- Strings.c - Runtime of string tensors ------------------------------===//
//
// The functions of include/mlprog-c/Strings.h. Plain C on libc: linked into
// the tools, the Python package and every library mlprog-compile makes.
//
//===----------------------------------------------------------------------===//

#include "mlprog-c/Strings.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#define MLPROG_EXPORT __attribute__((visibility("default")))

//===--- The arena --------------------------------------------------------===//

/** One block of the append-only arena: strings are carved from `data` and
 *  never freed (Strings.h, "Ownership"). */
typedef struct Chunk {
  struct Chunk *next;
  size_t used, size;
  char data[];
} Chunk;

static pthread_mutex_t arenaLock = PTHREAD_MUTEX_INITIALIZER;
static Chunk *arenaHead;

enum { kChunkSize = 1 << 16 };

/** `size` bytes of runtime-owned memory; NULL when memory runs out. */
static char *allocate(size_t size) {
  pthread_mutex_lock(&arenaLock);
  Chunk *chunk = arenaHead;
  if (!chunk || chunk->size - chunk->used < size) {
    size_t capacity = size > kChunkSize / 4 ? size : kChunkSize;
    Chunk *fresh = malloc(sizeof(Chunk) + capacity);
    if (!fresh) {
      pthread_mutex_unlock(&arenaLock);
      return NULL;
    }
    fresh->used = 0;
    fresh->size = capacity;
    // A large string gets a chunk of its own behind the current one, so
    // the current one's free space is not lost.
    if (chunk && capacity != kChunkSize) {
      fresh->next = chunk->next;
      chunk->next = fresh;
    } else {
      fresh->next = chunk;
      arenaHead = fresh;
    }
    chunk = fresh;
  }
  char *result = chunk->data + chunk->used;
  chunk->used += size;
  pthread_mutex_unlock(&arenaLock);
  return result;
}

MLPROG_EXPORT const char *mlprog_string_copy(const char *bytes, int64_t size) {
  if (size < 0)
    size = 0;
  char *copy = allocate((size_t)size + 1);
  if (!copy)
    return NULL;
  if (size)
    memcpy(copy, bytes, (size_t)size);
  copy[size] = '\0';
  return copy;
}

static const char *copyString(const char *text) {
  return mlprog_string_copy(text, (int64_t)strlen(text));
}

static const char *orEmpty(const char *text) { return text ? text : ""; }

//===--- Numbers to strings -----------------------------------------------===//

/** `x` rounded to a float of `bits` significand bits (round half to even;
 *  the exponent range of the narrow type is not modelled). */
static double roundToBits(double x, int32_t bits) {
  if (bits >= 53 || !isfinite(x) || x == 0)
    return x;
  if (bits == 24)
    return (double)(float)x;
  int exponent;
  double mantissa = frexp(x, &exponent);
  return ldexp(nearbyint(ldexp(mantissa, bits)), exponent - bits);
}

/** The numbers numpy prints positionally are 1e-4 <= |x| < this. */
static double positionalLimit(int32_t bits) {
  if (bits >= 53)
    return 1e16;
  if (bits >= 24)
    return 1e6;
  return 1e3;
}

MLPROG_EXPORT const char *mlprog_string_from_float(double value,
                                                   int32_t mantissa_bits) {
  if (isnan(value))
    return copyString("nan");
  if (isinf(value))
    return copyString(value < 0 ? "-inf" : "inf");
  if (value == 0)
    return copyString(signbit(value) ? "-0.0" : "0.0");
  // The shortest significand that reads back as `value` at its precision.
  char sci[40];
  for (int digits = 1; digits <= 17; ++digits) {
    snprintf(sci, sizeof sci, "%.*e", digits - 1, value);
    if (roundToBits(strtod(sci, NULL), mantissa_bits) == value)
      break;
  }
  // sci is "[-]d[.ddd]e[+-]XX": collect the digits and the exponent.
  char digitsBuf[24];
  int numDigits = 0;
  const char *p = sci;
  int negative = *p == '-';
  if (negative)
    ++p;
  for (; *p && *p != 'e'; ++p)
    if (isdigit((unsigned char)*p))
      digitsBuf[numDigits++] = *p;
  int exponent = atoi(p + 1);
  while (numDigits > 1 && digitsBuf[numDigits - 1] == '0')
    --numDigits;
  digitsBuf[numDigits] = '\0';

  char out[64];
  int n = 0;
  if (negative)
    out[n++] = '-';
  double magnitude = fabs(value);
  if (magnitude >= 1e-4 && magnitude < positionalLimit(mantissa_bits)) {
    if (exponent < 0) {
      out[n++] = '0';
      out[n++] = '.';
      for (int i = 0; i < -exponent - 1; ++i)
        out[n++] = '0';
      for (int i = 0; i < numDigits; ++i)
        out[n++] = digitsBuf[i];
    } else {
      for (int i = 0; i <= exponent; ++i)
        out[n++] = i < numDigits ? digitsBuf[i] : '0';
      out[n++] = '.';
      if (numDigits > exponent + 1)
        for (int i = exponent + 1; i < numDigits; ++i)
          out[n++] = digitsBuf[i];
      else
        out[n++] = '0';
    }
    out[n] = '\0';
  } else {
    out[n++] = digitsBuf[0];
    if (numDigits > 1) {
      out[n++] = '.';
      for (int i = 1; i < numDigits; ++i)
        out[n++] = digitsBuf[i];
    }
    snprintf(out + n, sizeof out - (size_t)n, "e%c%02d",
             exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
  }
  return copyString(out);
}

MLPROG_EXPORT const char *mlprog_string_from_i64(int64_t value) {
  char out[24];
  snprintf(out, sizeof out, "%lld", (long long)value);
  return copyString(out);
}

MLPROG_EXPORT const char *mlprog_string_from_u64(uint64_t value) {
  char out[24];
  snprintf(out, sizeof out, "%llu", (unsigned long long)value);
  return copyString(out);
}

MLPROG_EXPORT const char *mlprog_string_from_bool(int32_t value) {
  return value ? "True" : "False";
}

//===--- Strings to numbers -----------------------------------------------===//

MLPROG_EXPORT float mlprog_string_to_f32(const char *text) {
  text = orEmpty(text);
  char *end;
  float value = strtof(text, &end);
  return end == text ? NAN : value;
}

MLPROG_EXPORT double mlprog_string_to_f64(const char *text) {
  text = orEmpty(text);
  char *end;
  double value = strtod(text, &end);
  return end == text ? NAN : value;
}

/** Whether `text` is an integer (sign and digits, white space around). */
static int isIntegerText(const char *text, const char **start) {
  while (isspace((unsigned char)*text))
    ++text;
  *start = text;
  if (*text == '+' || *text == '-')
    ++text;
  if (!isdigit((unsigned char)*text))
    return 0;
  while (isdigit((unsigned char)*text))
    ++text;
  while (isspace((unsigned char)*text))
    ++text;
  return *text == '\0';
}

MLPROG_EXPORT int64_t mlprog_string_to_i64(const char *text) {
  const char *start;
  if (isIntegerText(orEmpty(text), &start))
    return strtoll(start, NULL, 10); // saturates
  double value = mlprog_string_to_f64(text);
  if (isnan(value))
    return 0;
  if (value >= 9223372036854775807.0)
    return INT64_MAX;
  if (value <= -9223372036854775808.0)
    return INT64_MIN;
  return (int64_t)value;
}

MLPROG_EXPORT uint64_t mlprog_string_to_u64(const char *text) {
  const char *start;
  if (isIntegerText(orEmpty(text), &start)) {
    if (*start == '-')
      return 0;
    errno = 0;
    unsigned long long value = strtoull(start, NULL, 10);
    return errno == ERANGE ? UINT64_MAX : value;
  }
  double value = mlprog_string_to_f64(text);
  if (isnan(value) || value <= 0)
    return 0;
  if (value >= 18446744073709551615.0)
    return UINT64_MAX;
  return (uint64_t)value;
}

MLPROG_EXPORT int32_t mlprog_string_to_bool(const char *text) {
  text = orEmpty(text);
  if (!strcmp(text, "True") || !strcmp(text, "true"))
    return 1;
  double value = mlprog_string_to_f64(text);
  return !isnan(value) && value != 0;
}

//===--- Case mapping and comparison --------------------------------------===//

/** The C.UTF-8 locale (set once by createLocale); (locale_t)0 when libc
 *  has none, and then only ASCII letters change case. */
static locale_t theLocale;
static void createLocale(void) {
  theLocale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/** Decodes one UTF-8 code point at `s` into `*cp`; returns its length, or 0
 *  when the bytes are not valid UTF-8. */
static int decodeUTF8(const unsigned char *s, uint32_t *cp) {
  if (s[0] < 0x80) {
    *cp = s[0];
    return 1;
  }
  int length = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
  if (!length || s[0] > 0xF4)
    return 0;
  uint32_t value = s[0] & (0x3F >> (length - 1));
  for (int i = 1; i < length; ++i) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    value = (value << 6) | (s[i] & 0x3F);
  }
  static const uint32_t minimum[] = {0, 0, 0x80, 0x800, 0x10000};
  if (value < minimum[length] || value > 0x10FFFF ||
      (value >= 0xD800 && value <= 0xDFFF))
    return 0;
  *cp = value;
  return length;
}

static int encodeUTF8(uint32_t cp, char *out) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

static const char *changeCase(const char *text, int upper) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, createLocale);
  text = orEmpty(text);
  size_t size = strlen(text);
  // A simple case mapping may lengthen a code point's UTF-8 encoding (ASCII
  // never changes length; U+0250 (2 bytes) uppers to U+2C6F (3 bytes)), but
  // never beyond 4 bytes for one code point, so 4 bytes per input byte bound
  // the result.
  char *out = malloc(4 * size + 1);
  if (!out)
    return NULL;
  size_t n = 0;
  const unsigned char *s = (const unsigned char *)text;
  for (size_t i = 0; i < size;) {
    uint32_t cp;
    int length = decodeUTF8(s + i, &cp);
    if (!length) {
      out[n++] = (char)s[i++];
      continue;
    }
    i += (size_t)length;
    uint32_t mapped = cp;
    if (theLocale)
      mapped = (uint32_t)(upper ? towupper_l((wint_t)cp, theLocale)
                                : towlower_l((wint_t)cp, theLocale));
    else if (cp < 0x80)
      mapped = (uint32_t)(upper ? toupper((int)cp) : tolower((int)cp));
    n += (size_t)encodeUTF8(mapped, out + n);
  }
  const char *result = mlprog_string_copy(out, (int64_t)n);
  free(out);
  return result;
}

MLPROG_EXPORT const char *mlprog_string_lower(const char *text) {
  return changeCase(text, 0);
}

MLPROG_EXPORT const char *mlprog_string_upper(const char *text) {
  return changeCase(text, 1);
}

MLPROG_EXPORT const char *mlprog_string_concat(const char *lhs,
                                               const char *rhs) {
  lhs = orEmpty(lhs);
  rhs = orEmpty(rhs);
  size_t left = strlen(lhs), right = strlen(rhs);
  char *out = allocate(left + right + 1);
  if (!out)
    return NULL;
  memcpy(out, lhs, left);
  memcpy(out + left, rhs, right + 1);
  return out;
}

/** Walks the parts of Python's `text.split(delimiter or None, maxsplit)`:
 *  returns the number of parts and, when `index` names one, sets
 *  `*begin`/`*size` to it. */
static int64_t splitParts(const char *text, const char *delimiter,
                          int64_t maxsplit, int64_t index, const char **begin,
                          size_t *size) {
  text = orEmpty(text);
  delimiter = orEmpty(delimiter);
  size_t delimiterSize = strlen(delimiter);
  int64_t count = 0;
  const char *p = text;
  if (delimiterSize) {
    for (;;) {
      const char *next =
          maxsplit >= 0 && count >= maxsplit ? NULL : strstr(p, delimiter);
      size_t partSize = next ? (size_t)(next - p) : strlen(p);
      if (count == index) {
        *begin = p;
        *size = partSize;
      }
      ++count;
      if (!next)
        return count;
      p = next + delimiterSize;
    }
  }
  // White space: runs separate, the ends are ignored; after maxsplit splits
  // the rest (without its leading white space) is the last part.
  for (;;) {
    while (*p && isspace((unsigned char)*p))
      ++p;
    if (!*p)
      return count;
    const char *end = p;
    if (maxsplit >= 0 && count >= maxsplit)
      end = p + strlen(p);
    else
      while (*end && !isspace((unsigned char)*end))
        ++end;
    if (count == index) {
      *begin = p;
      *size = (size_t)(end - p);
    }
    ++count;
    p = end;
  }
}

MLPROG_EXPORT int64_t mlprog_string_split_count(const char *text,
                                                const char *delimiter,
                                                int64_t maxsplit) {
  const char *begin;
  size_t size;
  return splitParts(text, delimiter, maxsplit, -1, &begin, &size);
}

MLPROG_EXPORT const char *mlprog_string_split_part(const char *text,
                                                   const char *delimiter,
                                                   int64_t maxsplit,
                                                   int64_t index) {
  const char *begin = "";
  size_t size = 0;
  if (index >= 0)
    splitParts(text, delimiter, maxsplit, index, &begin, &size);
  return mlprog_string_copy(begin, (int64_t)size);
}

MLPROG_EXPORT int32_t mlprog_string_equal(const char *lhs, const char *rhs) {
  return strcmp(orEmpty(lhs), orEmpty(rhs)) == 0;
}
