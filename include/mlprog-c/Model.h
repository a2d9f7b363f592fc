//===- mlprog-c/Model.h - C ABI of mlprog-compile libraries -------*- C -*-===//
//
// A model compiled with `mlprog-compile FILE.mlir --target=cpu|cuda -o
// model.so` is a shared library that depends only on libc and libm (and, for
// --target=cuda, on libcuda.so.1 loaded with dlopen at run time). It exports
// the functions below; everything else in it is an implementation detail.
//
// Tensors cross the ABI as dense C-ordered (row-major) arrays. Scalars are
// rank-0 tensors. Inputs are only read. Results are freshly allocated on the
// C heap (malloc or aligned_alloc: the compiled code's own buffer when it is
// C-ordered, else a copy) and released with mlprog_tensor_release.
//
// State: a model's mutable globals (a KV cache, a step counter, the
// `ml_program.global`s that `global_store` writes) keep their values from
// one call to the next. The library holds one copy, used by
// mlprog_model_run (the library's default instance); each
// mlprog_instance_create makes another, used by mlprog_instance_run, so two
// instances of one model in one process never share state. A new instance
// starts from the model's initial values; its `reset` entry point, where the
// model has one, resets only it.
//
// Thread safety: a model without state is reentrant. Calls of a model with
// state (on any of its instances) run one at a time: each takes a lock for
// its whole length.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_C_MODEL_H
#define MLPROG_C_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Version of this ABI; mlprog_model_abi_version returns it. Version 2
 *  added model instances (mlprog_instance_*). */
#define MLPROG_MODEL_ABI_VERSION 2

/** Element types. The numbering equals mlprog::DType (Formats/Npy.h). */
typedef enum mlprog_dtype {
  MLPROG_DTYPE_BOOL = 0, /**< one byte, 0 or 1; MLIR i1 */
  MLPROG_DTYPE_I8 = 1,
  MLPROG_DTYPE_I16 = 2,
  MLPROG_DTYPE_I32 = 3,
  MLPROG_DTYPE_I64 = 4,
  MLPROG_DTYPE_U8 = 5,
  MLPROG_DTYPE_U16 = 6,
  MLPROG_DTYPE_U32 = 7,
  MLPROG_DTYPE_U64 = 8,
  MLPROG_DTYPE_F16 = 9,
  MLPROG_DTYPE_BF16 = 10,
  MLPROG_DTYPE_F32 = 11,
  MLPROG_DTYPE_F64 = 12,
  /* The 8-, 4- and 2-bit types: one byte per element, holding the bit
     pattern (4- and 2-bit values in the low bits, the high bits clear in
     results), as ml_dtypes arrays do. */
  MLPROG_DTYPE_F8E4M3FN = 13,
  MLPROG_DTYPE_F8E4M3FNUZ = 14,
  MLPROG_DTYPE_F8E5M2 = 15,
  MLPROG_DTYPE_F8E5M2FNUZ = 16,
  MLPROG_DTYPE_F8E8M0FNU = 17,
  MLPROG_DTYPE_F4E2M1FN = 18,
  MLPROG_DTYPE_I4 = 19,
  MLPROG_DTYPE_U4 = 20,
  MLPROG_DTYPE_I2 = 21,
  MLPROG_DTYPE_U2 = 22
} mlprog_dtype;

/** Where the compiled code runs. */
typedef enum mlprog_target {
  MLPROG_TARGET_CPU = 0,
  MLPROG_TARGET_CUDA = 1 /**< NVIDIA GPU through the CUDA driver API */
} mlprog_target;

/** Bits of mlprog_value_type::flags. */
enum {
  /** The value is a tensor (else a scalar; then rank is 0). */
  MLPROG_VALUE_TENSOR = 1,
  /** A signless MLIR integer the model did not declare unsigned (intN, or
   *  a hand-written iN): inputs accept both intN and uintN arrays, results
   *  come back as intN. Values declared unsigned have dtype MLPROG_DTYPE_UN
   *  without this bit: they accept only uintN. */
  MLPROG_VALUE_SIGNLESS = 2
};

/** The type of one argument or result of an entry point. */
typedef struct mlprog_value_type {
  int32_t dtype;        /**< an mlprog_dtype (results: the dtype returned):
                             the type the model declares, so a uint8 model
                             input or output is MLPROG_DTYPE_U8 */
  int32_t rank;         /**< number of dimensions; 0 for scalars */
  int32_t flags;        /**< MLPROG_VALUE_* bits */
  int32_t reserved;     /**< zero */
  const int64_t *shape; /**< rank sizes; -1 for a dynamic dimension */
} mlprog_value_type;

/** One entry point (a public function of the compiled module). */
typedef struct mlprog_entry_info {
  const char *name;
  int32_t num_inputs;
  int32_t num_results;
  const mlprog_value_type *inputs;
  const mlprog_value_type *results;
} mlprog_entry_info;

/** A dense C-ordered tensor. For inputs the caller owns everything; for
 *  results, data and shape are allocated on the C heap by the library and
 *  released with mlprog_tensor_release. `data` is never null for results, even
 * when the tensor is empty. */
typedef struct mlprog_tensor {
  void *data;
  int64_t *shape; /**< rank sizes */
  int32_t rank;
  int32_t dtype; /**< an mlprog_dtype */
} mlprog_tensor;

/** MLPROG_MODEL_ABI_VERSION of the library. */
int32_t mlprog_model_abi_version(void);

/** The mlprog_target the library was compiled for. */
int32_t mlprog_model_target(void);

/** Number of entry points. */
int32_t mlprog_model_num_entries(void);

/** Entry point `index` (0 <= index < num_entries), or NULL. */
const mlprog_entry_info *mlprog_model_entry(int32_t index);

/** Index of the entry point called `name`, or -1. */
int32_t mlprog_model_find_entry(const char *name);

/** Runs entry point `entry` on `inputs` and stores its results in
 *  `results[0..num_results)`. Inputs are checked against the entry's types:
 *  count, dtype (a signless iN accepts intN and uintN), rank and static
 *  sizes. Returns 0 on success. On failure returns non-zero, writes a
 *  NUL-terminated message to `error` (at most `error_size` bytes; `error`
 *  may be NULL) and leaves `results` zeroed. For MLPROG_TARGET_CUDA, a
 *  missing driver (libcuda.so.1), no device, or a PTX that the driver cannot
 *  load are reported this way; a CUDA error in the middle of a run (a failed
 *  launch or allocation) prints a message to stderr and exits the process
 *  with status 1, because the compiled code cannot unwind.
 *
 *  A CPU library whose loops run in parallel (OpenMP; the default -O2
 *  pipeline) runs them on MLPROG_NUM_THREADS threads when that environment
 *  variable is a positive integer at the time of the call, else on libomp's
 *  default (OMP_NUM_THREADS, else all cores). Unless KMP_BLOCKTIME or
 *  OMP_WAIT_POLICY is set, the first call sets KMP_BLOCKTIME=1 in the
 *  environment: idle OpenMP threads spin for 1 ms before they sleep (from
 *  one parallel loop to the next, not between calls; libomp's default is
 *  200 ms). Unless KMP_USE_YIELD is set, it sets KMP_USE_YIELD=2: spinning
 *  threads yield, so that one left on the caller's core does not slow the
 *  call down. */
int32_t mlprog_model_run(int32_t entry, const mlprog_tensor *inputs,
                         int32_t num_inputs, mlprog_tensor *results,
                         int32_t num_results, char *error, size_t error_size);

/** Frees a result's data and shape and zeroes it. NULL is ignored. */
void mlprog_tensor_release(mlprog_tensor *tensor);

/** A model instance: its own copy of the model's state. */
typedef struct mlprog_instance mlprog_instance;

/** Number of state globals (mutable globals) of the model; 0 for a
 *  stateless model, whose instances all behave alike. */
int32_t mlprog_model_num_state_globals(void);

/** A new instance whose state holds the model's initial values. Returns NULL
 *  on failure and writes a message to `error` (as mlprog_model_run): out of
 *  memory, a mutable global whose data the library maps from an external
 *  file (it cannot be copied), or a CUDA library with state. */
mlprog_instance *mlprog_instance_create(char *error, size_t error_size);

/** Frees `instance` and every buffer its state holds. NULL is ignored. */
void mlprog_instance_destroy(mlprog_instance *instance);

/** mlprog_model_run on the state of `instance`: the same checks, results
 *  and errors. */
int32_t mlprog_instance_run(mlprog_instance *instance, int32_t entry,
                            const mlprog_tensor *inputs, int32_t num_inputs,
                            mlprog_tensor *results, int32_t num_results,
                            char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* MLPROG_C_MODEL_H */
