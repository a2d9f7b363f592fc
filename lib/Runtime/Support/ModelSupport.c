//===- ModelSupport.c - The C ABI of mlprog-compile libraries -------------===//
//
// Linked into every shared library mlprog-compile makes (see
// include/mlprog-c/Model.h). Plain C on libc only: the libraries must load
// on machines without LLVM or MLIR.
//
// The compiler emits one hidden table, __mlprog_model, describing the entry
// points and pointing at their packed wrappers. A packed wrapper takes an
// array of pointers: one per expanded LLVM argument (a memref argument
// expands to allocated pointer, aligned pointer, offset, sizes[rank],
// strides[rank]; a scalar is one value), then one pointer to where the
// result is stored (nothing, the value, or a struct of the results with
// natural alignment), the same convention as mlir::ExecutionEngine's
// `_mlir_<name>` wrappers that lib/Runtime/JitRunner.cpp calls.
//
//===----------------------------------------------------------------------===//

#include "mlprog-c/Model.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#define MLPROG_EXPORT __attribute__((visibility("default")))
#define MLPROG_HIDDEN __attribute__((visibility("hidden")))

/** One entry point: the public description and its packed wrapper. */
typedef struct mlprog_internal_entry {
  mlprog_entry_info info;
  void (*packed)(void **);
} mlprog_internal_entry;

/** One global of the program's state (--mlprog-per-instance-state): the
 *  compiled code reaches its storage through `*slot`, which points at
 *  `storage` (the library's own, the default instance's) except while
 *  mlprog_instance_run runs an instance. */
typedef struct mlprog_internal_state {
  void **slot;
  const void *initial; /**< the initial bytes; NULL: all zeros */
  void *storage;
  int64_t size;      /**< bytes */
  int64_t alignment; /**< bytes, a power of two, at least 16 */
} mlprog_internal_state;

/** The table the compiler emits. For MLPROG_TARGET_CUDA, `prepare` loads
 *  the driver and the kernels, and `alloc`/`release` manage memory that both
 *  the host and the device can access (the compiled code allocates its
 *  buffers the same way); for the CPU they are NULL (malloc/free).
 *  `release_state` (`__mlprog_release_globals`, NULL when the program has
 *  no state of dynamic shape) frees the heap buffers the bound state holds.
 *  `num_shared_state` counts mutable globals that cannot be copied per
 *  instance (external data). */
typedef struct mlprog_internal_model {
  int32_t abi_version;
  int32_t target;
  int32_t num_entries;
  int32_t reserved;
  const mlprog_internal_entry *entries;
  int32_t (*prepare)(char *error, size_t error_size);
  void *(*alloc)(size_t size);
  void (*release)(void *ptr);
  const mlprog_internal_state *state;
  void (*release_state)(void);
  int32_t num_state;
  int32_t num_shared_state;
} mlprog_internal_model;

extern const mlprog_internal_model __mlprog_model MLPROG_HIDDEN;

/** The allocated pointer memref.get_global puts in descriptors of globals;
 *  it must never be freed. */
#define MLPROG_GLOBAL_SENTINEL ((void *)(uintptr_t)0xdeadbeef)

static size_t dtypeSize(int32_t dtype) {
  switch (dtype) {
  case MLPROG_DTYPE_BOOL:
  case MLPROG_DTYPE_I8:
  case MLPROG_DTYPE_U8:
    return 1;
  case MLPROG_DTYPE_I16:
  case MLPROG_DTYPE_U16:
  case MLPROG_DTYPE_F16:
  case MLPROG_DTYPE_BF16:
    return 2;
  case MLPROG_DTYPE_I32:
  case MLPROG_DTYPE_U32:
  case MLPROG_DTYPE_F32:
    return 4;
  case MLPROG_DTYPE_I64:
  case MLPROG_DTYPE_U64:
  case MLPROG_DTYPE_F64:
    return 8;
  default:
    return 1; /* the 8-, 4- and 2-bit types */
  }
}

/* Value bits of an element (4 and 2 for the sub-byte types). */
static unsigned dtypeBits(int32_t dtype) {
  switch (dtype) {
  case MLPROG_DTYPE_F4E2M1FN:
  case MLPROG_DTYPE_I4:
  case MLPROG_DTYPE_U4:
    return 4;
  case MLPROG_DTYPE_I2:
  case MLPROG_DTYPE_U2:
    return 2;
  default:
    return 8 * (unsigned)dtypeSize(dtype);
  }
}

static const char *dtypeName(int32_t dtype) {
  static const char *names[] = {
      "bool",     "i8",       "i16",        "i32",    "i64",        "u8",
      "u16",      "u32",      "u64",        "f16",    "bf16",       "f32",
      "f64",      "f8E4M3FN", "f8E4M3FNUZ", "f8E5M2", "f8E5M2FNUZ", "f8E8M0FNU",
      "f4E2M1FN", "i4",       "u4",         "i2",     "u2"};
  return dtype >= 0 && dtype <= MLPROG_DTYPE_U2 ? names[dtype] : "?";
}

static int32_t fail(char *error, size_t size, const char *format, ...) {
  if (error && size) {
    va_list args;
    va_start(args, format);
    vsnprintf(error, size, format, args);
    va_end(args);
  }
  return 1;
}

MLPROG_EXPORT int32_t mlprog_model_abi_version(void) {
  return __mlprog_model.abi_version;
}

MLPROG_EXPORT int32_t mlprog_model_target(void) {
  return __mlprog_model.target;
}

MLPROG_EXPORT int32_t mlprog_model_num_entries(void) {
  return __mlprog_model.num_entries;
}

MLPROG_EXPORT const mlprog_entry_info *mlprog_model_entry(int32_t index) {
  if (index < 0 || index >= __mlprog_model.num_entries)
    return NULL;
  return &__mlprog_model.entries[index].info;
}

MLPROG_EXPORT int32_t mlprog_model_find_entry(const char *name) {
  for (int32_t i = 0; name && i < __mlprog_model.num_entries; ++i)
    if (strcmp(__mlprog_model.entries[i].info.name, name) == 0)
      return i;
  return -1;
}

MLPROG_EXPORT void mlprog_tensor_release(mlprog_tensor *tensor) {
  if (!tensor)
    return;
  free(tensor->data);
  free(tensor->shape);
  memset(tensor, 0, sizeof(*tensor));
}

static int64_t numElements(int32_t rank, const int64_t *shape) {
  int64_t count = 1;
  for (int32_t i = 0; i < rank; ++i)
    count *= shape[i];
  return count;
}

/* Clears the bits above a 4- or 2-bit result's value bits (LLVM stores an
   i4 as a byte whose upper bits are unspecified). */
static void clearPaddingBits(mlprog_tensor *tensor) {
  unsigned bits = dtypeBits(tensor->dtype);
  if (bits >= 8)
    return;
  uint8_t *data = tensor->data;
  int64_t count = numElements(tensor->rank, tensor->shape);
  for (int64_t i = 0; i < count; ++i)
    data[i] &= (uint8_t)((1u << bits) - 1);
}

static int isCompatible(const mlprog_value_type *type, int32_t dtype) {
  if (type->dtype == dtype)
    return 1;
  if (!(type->flags & MLPROG_VALUE_SIGNLESS))
    return 0;
  /* Signless iN: the same width of the other signedness. */
  int isInt = (dtype >= MLPROG_DTYPE_I8 && dtype <= MLPROG_DTYPE_U64) ||
              (dtype >= MLPROG_DTYPE_I4 && dtype <= MLPROG_DTYPE_U2);
  return isInt && dtypeBits(dtype) == dtypeBits(type->dtype);
}

static int32_t checkInputs(const mlprog_entry_info *info,
                           const mlprog_tensor *inputs, int32_t count,
                           char *error, size_t size) {
  if (count != info->num_inputs)
    return fail(error, size, "@%s expects %d input(s), got %d", info->name,
                info->num_inputs, count);
  for (int32_t i = 0; i < count; ++i) {
    const mlprog_value_type *type = &info->inputs[i];
    const mlprog_tensor *input = &inputs[i];
    int ok = isCompatible(type, input->dtype) && input->rank == type->rank &&
             (input->rank == 0 || input->shape) && input->data;
    for (int32_t d = 0; ok && d < type->rank; ++d)
      ok = input->shape[d] >= 0 &&
           (type->shape[d] < 0 || type->shape[d] == input->shape[d]);
    if (!ok)
      return fail(error, size,
                  "input %d: expected a %s %s of rank %d, got a %s array of "
                  "rank %d (or a mismatching shape)",
                  i, dtypeName(type->dtype),
                  (type->flags & MLPROG_VALUE_TENSOR) ? "tensor" : "scalar",
                  type->rank, dtypeName(input->dtype), input->rank);
  }
  return 0;
}

/** Natural-alignment layout of the result struct; returns its size. */
static size_t layoutResults(const mlprog_entry_info *info, size_t *offsets) {
  size_t size = 0;
  for (int32_t i = 0; i < info->num_results; ++i) {
    const mlprog_value_type *type = &info->results[i];
    int isTensor = type->flags & MLPROG_VALUE_TENSOR;
    size_t fieldSize =
        isTensor ? 8 * (3 + 2 * (size_t)type->rank) : dtypeSize(type->dtype);
    size_t align = isTensor ? 8 : dtypeSize(type->dtype);
    size = (size + align - 1) / align * align;
    offsets[i] = size;
    size += fieldSize;
  }
  return size;
}

/** Copies the elements a memref descriptor describes into a new C-ordered
 *  tensor: one memcpy when the descriptor is C-ordered, else element by
 *  element. With `adopt`, a C-ordered buffer from malloc (its allocated and
 *  aligned pointers equal, offset 0) becomes the tensor's data instead of
 *  being copied, and `*adopted` is set: the caller must not free it. GPT-2's
 *  206 MB of logits at batch 8 took a 206 MB memcpy and a fresh buffer per
 *  call. */
static int32_t readTensor(const int64_t *words, const mlprog_value_type *type,
                          int32_t index, mlprog_tensor *out, char *error,
                          size_t size, int adopt, int *adopted) {
  int32_t rank = type->rank;
  const uint8_t *aligned = (const uint8_t *)(uintptr_t)words[1];
  int64_t offset = words[2];
  const int64_t *sizes = words + 3, *strides = words + 3 + rank;
  for (int32_t d = 0; d < rank; ++d)
    if (sizes[d] < 0 || (type->shape[d] >= 0 && type->shape[d] != sizes[d]))
      return fail(error, size,
                  "result %d: the compiled code returned size %lld for "
                  "dimension %d",
                  index, (long long)sizes[d], d);
  size_t elementSize = dtypeSize(type->dtype);
  int64_t count = numElements(rank, sizes);
  out->dtype = type->dtype;
  out->rank = rank;
  out->shape = malloc(sizeof(int64_t) * (rank ? rank : 1));
  if (!out->shape)
    return fail(error, size, "result %d: out of memory", index);
  memcpy(out->shape, sizes, sizeof(int64_t) * rank);
  size_t bytes = (size_t)count * elementSize;
  /* C-ordered (the usual case; extents of 1 may carry any stride): adopted
     or one memcpy. */
  int contiguous = 1;
  int64_t expected = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    if (sizes[d] != 1 && strides[d] != expected)
      contiguous = 0;
    expected *= sizes[d];
  }
  if (adopt && contiguous && offset == 0 && bytes > 0 && words[0] == words[1]) {
    out->data = (void *)(uintptr_t)words[0];
    *adopted = 1;
    return 0;
  }
  out->data = malloc(bytes > 0 ? bytes : 1);
  if (!out->data)
    return fail(error, size, "result %d: out of memory", index);
  int64_t position[64] = {0};
  if (rank > 64)
    return fail(error, size, "result %d: rank %d is above 64", index, rank);
  uint8_t *dst = out->data;
  if (contiguous) {
    if (bytes > 0)
      memcpy(dst, aligned + offset * (int64_t)elementSize, bytes);
    return 0;
  }
  for (int64_t n = 0; n < count; ++n) {
    int64_t element = offset;
    for (int32_t d = 0; d < rank; ++d)
      element += position[d] * strides[d];
    memcpy(dst + n * elementSize, aligned + element * elementSize, elementSize);
    for (int32_t d = rank - 1; d >= 0 && ++position[d] == sizes[d]; --d)
      position[d] = 0;
  }
  return 0;
}

/* Whether `allocated`, the allocated pointer of a result's memref, is a
 * buffer the compiled code allocated for this call: not null, not a global
 * (MLPROG_GLOBAL_SENTINEL), not an input nor its device copy in `buffers`.
 * Such a buffer is the run's to free or to hand over. */
static int isOwnedBuffer(void *allocated, const mlprog_tensor *inputs,
                         void *const *buffers, int32_t num_inputs) {
  if (!allocated || allocated == MLPROG_GLOBAL_SENTINEL)
    return 0;
  for (int32_t j = 0; j < num_inputs; ++j)
    if (allocated == inputs[j].data || allocated == buffers[j])
      return 0;
  return 1;
}

static int contains(void *const *list, int32_t count, void *ptr) {
  for (int32_t i = 0; i < count; ++i)
    if (list[i] == ptr)
      return 1;
  return 0;
}

/* The compiled code mallocs and frees its activations on every call. With
 * glibc's defaults (a 128 KiB mmap threshold, raised only after a large block
 * is freed, and then to 32 MiB at most) every large buffer is a fresh mmap
 * whose pages fault in again on each call: a quarter of a resnet18 batch-1
 * run, and 95 ms a call for the 206 MB logits of GPT-2 at batch 8 (6 ms
 * when the heap's memory is reused). Serve buffers up to 1 GiB from the heap
 * and keep up to 1 GiB of freed memory, unless the user tuned malloc
 * through the environment. Once per process (a race only sets the same
 * values twice); JitRunner does the same. */
static void tuneAllocator(void) {
#if defined(__GLIBC__)
  static int tuned;
  if (__atomic_exchange_n(&tuned, 1, __ATOMIC_RELAXED))
    return;
  if (getenv("GLIBC_TUNABLES") || getenv("MALLOC_MMAP_THRESHOLD_") ||
      getenv("MALLOC_TRIM_THRESHOLD_"))
    return;
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

/* libomp's, when the library's loops use OpenMP (weak: a library without
 * them does not link libomp). */
extern void omp_set_num_threads(int) __attribute__((weak));

/* Runs the OpenMP loops on MLPROG_NUM_THREADS threads when that is an
 * integer from 1 to 1024 (kMaxNumThreads in JitRunner.h: libomp aborts when
 * it cannot create the threads), as the JIT does; otherwise libomp's
 * default (OMP_NUM_THREADS, else all cores) stays. Read at every call,
 * because OpenMP's thread count belongs to the calling thread. */
static void setNumThreads(void) {
  /* Idle OpenMP threads spin for 1 ms, not libomp's default 200 ms, unless
   * the user chose (KMP_BLOCKTIME, OMP_WAIT_POLICY): long enough to carry
   * them from one parallel loop of a call to the next, short enough not to
   * take the cores from the caller's other thread pools between calls.
   * libomp reads it when it starts, i.e. at the first call of a process
   * that did not start it before (kmp_set_blocktime does not reach the
   * thread team libomp creates later). While they spin they yield
   * (KMP_USE_YIELD=2, unless the user chose): a spinning thread the
   * scheduler left on the caller's core otherwise takes half of it for the
   * whole call (the 2-thread GPT-style decoder: 1.2 ms a call instead of
   * 0.3 ms in runs of calls, on the 2-core benchmark machine). */
  static int blocktimeChosen;
  if (!blocktimeChosen) {
    blocktimeChosen = 1;
    if (!getenv("KMP_BLOCKTIME") && !getenv("OMP_WAIT_POLICY"))
      setenv("KMP_BLOCKTIME", "1", /*overwrite=*/0);
    setenv("KMP_USE_YIELD", "2", /*overwrite=*/0);
  }
  const char *env = getenv("MLPROG_NUM_THREADS");
  if (!env || !omp_set_num_threads)
    return;
  char *end = NULL;
  long value = strtol(env, &end, 10);
  if (end != env && *end == '\0' && value > 0 && value <= 1024)
    omp_set_num_threads((int)value);
}

/** Runs `entry` on the state the slots point at. */
static int32_t runEntry(int32_t entry, const mlprog_tensor *inputs,
                        int32_t num_inputs, mlprog_tensor *results,
                        int32_t num_results, char *error, size_t error_size) {
  const mlprog_internal_model *model = &__mlprog_model;
  tuneAllocator();
  setNumThreads();
  if (results && num_results > 0)
    memset(results, 0, sizeof(*results) * num_results);
  if (entry < 0 || entry >= model->num_entries)
    return fail(error, error_size, "no entry point %d (the library has %d)",
                entry, model->num_entries);
  const mlprog_internal_entry *impl = &model->entries[entry];
  const mlprog_entry_info *info = &impl->info;
  if (num_results != info->num_results || (num_results && !results))
    return fail(error, error_size, "@%s has %d result(s), got room for %d",
                info->name, info->num_results, num_results);
  if (num_inputs && !inputs)
    return fail(error, error_size, "inputs is NULL");
  if (checkInputs(info, inputs, num_inputs, error, error_size))
    return 1;
  if (model->prepare && model->prepare(error, error_size))
    return 1;

  /* Device-accessible copies of the inputs when the model needs them. */
  size_t numSlots = 0;
  for (int32_t i = 0; i < num_inputs; ++i)
    numSlots += (info->inputs[i].flags & MLPROG_VALUE_TENSOR)
                    ? 3 + 2 * (size_t)info->inputs[i].rank
                    : 1;
  void **buffers = calloc(num_inputs + 1, sizeof(void *));
  uint64_t *slots = calloc(numSlots + 1, sizeof(uint64_t));
  void **packed = calloc(numSlots + 2, sizeof(void *));
  size_t *offsets = calloc(info->num_results + 1, sizeof(size_t));
  size_t resultSize = layoutResults(info, offsets);
  uint64_t *resultStorage = calloc(resultSize / 8 + 2, sizeof(uint64_t));
  int32_t status = 0;
  if (!buffers || !slots || !packed || !offsets || !resultStorage) {
    status = fail(error, error_size, "out of memory");
    goto cleanup;
  }

  size_t slot = 0;
  for (int32_t i = 0; i < num_inputs; ++i) {
    const mlprog_value_type *type = &info->inputs[i];
    const mlprog_tensor *input = &inputs[i];
    size_t bytes =
        numElements(input->rank, input->shape) * dtypeSize(input->dtype);
    if (!(type->flags & MLPROG_VALUE_TENSOR)) {
      memcpy(&slots[slot++], input->data, dtypeSize(input->dtype));
      continue;
    }
    void *data = input->data;
    if (model->alloc) {
      data = model->alloc(bytes ? bytes : 1);
      if (!data) {
        status = fail(error, error_size,
                      "input %d: cannot allocate %zu bytes of device memory", i,
                      bytes);
        goto cleanup;
      }
      memcpy(data, input->data, bytes);
      buffers[i] = data;
    }
    slots[slot++] = (uint64_t)(uintptr_t)data;
    slots[slot++] = (uint64_t)(uintptr_t)data;
    slots[slot++] = 0;
    int64_t stride = 1;
    for (int32_t d = 0; d < input->rank; ++d)
      slots[slot + d] = (uint64_t)input->shape[d];
    for (int32_t d = input->rank - 1; d >= 0; --d) {
      slots[slot + input->rank + d] = (uint64_t)stride;
      stride *= input->shape[d];
    }
    slot += 2 * (size_t)input->rank;
  }
  for (size_t i = 0; i < numSlots; ++i)
    packed[i] = &slots[i];
  if (info->num_results)
    packed[numSlots] = resultStorage;

  impl->packed(packed);

  const uint8_t *resultBytes = (const uint8_t *)resultStorage;
  /* The buffers results took over (see readTensor), which are not freed
     below; a buffer is adopted once, by the first result returning it. */
  void **adopted = calloc(info->num_results + 1, sizeof(void *));
  int32_t numAdopted = 0;
  for (int32_t i = 0; i < info->num_results && !status; ++i) {
    const mlprog_value_type *type = &info->results[i];
    if (type->flags & MLPROG_VALUE_TENSOR) {
      const int64_t *words = (const int64_t *)(resultBytes + offsets[i]);
      void *allocated = (void *)(uintptr_t)words[0];
      /* Device buffers (model->release) are copied to the host. */
      int adopt = adopted && !model->release &&
                  isOwnedBuffer(allocated, inputs, buffers, num_inputs) &&
                  !contains(adopted, numAdopted, allocated);
      int took = 0;
      status = readTensor(words, type, i, &results[i], error, error_size, adopt,
                          &took);
      if (took)
        adopted[numAdopted++] = allocated;
      continue;
    }
    size_t bytes = dtypeSize(type->dtype);
    results[i].dtype = type->dtype;
    results[i].rank = 0;
    results[i].shape = malloc(sizeof(int64_t));
    results[i].data = malloc(bytes);
    if (!results[i].data || !results[i].shape)
      status = fail(error, error_size, "out of memory");
    else
      memcpy(results[i].data, resultBytes + offsets[i], bytes);
  }
  for (int32_t i = 0; i < info->num_results && !status; ++i)
    clearPaddingBits(&results[i]);

  /* Free every distinct returned buffer once, never an input's. */
  void **freed = calloc(info->num_results + 1, sizeof(void *));
  int32_t numFreed = 0;
  for (int32_t i = 0; i < info->num_results; ++i) {
    if (!(info->results[i].flags & MLPROG_VALUE_TENSOR))
      continue;
    void *allocated =
        (void *)(uintptr_t)((const int64_t *)(resultBytes + offsets[i]))[0];
    if (!isOwnedBuffer(allocated, inputs, buffers, num_inputs) ||
        (freed && contains(freed, numFreed, allocated)) ||
        (adopted && contains(adopted, numAdopted, allocated)))
      continue;
    if (freed)
      freed[numFreed++] = allocated;
    if (model->release)
      model->release(allocated);
    else
      free(allocated);
  }
  free(freed);
  free(adopted);
  if (status)
    for (int32_t i = 0; i < info->num_results; ++i)
      mlprog_tensor_release(&results[i]);

cleanup:
  for (int32_t i = 0; buffers && i < num_inputs; ++i)
    if (buffers[i])
      model->release(buffers[i]);
  free(buffers);
  free(slots);
  free(packed);
  free(offsets);
  free(resultStorage);
  return status;
}

//===----------------------------------------------------------------------===//
// Model instances: the state slots point at an instance's storage for the
// length of one call, under a lock, so that calls of different instances
// (and of the library's default instance) never see each other's state.
//===----------------------------------------------------------------------===//

struct mlprog_instance {
  void **storage; /**< one buffer per state global */
};

static pthread_mutex_t stateLock = PTHREAD_MUTEX_INITIALIZER;

/** Points every slot at `storage` (NULL: the library's own). */
static void bindState(void **storage) {
  const mlprog_internal_model *model = &__mlprog_model;
  for (int32_t i = 0; i < model->num_state; ++i)
    *model->state[i].slot = storage ? storage[i] : model->state[i].storage;
}

MLPROG_EXPORT int32_t mlprog_model_run(int32_t entry,
                                       const mlprog_tensor *inputs,
                                       int32_t num_inputs,
                                       mlprog_tensor *results,
                                       int32_t num_results, char *error,
                                       size_t error_size) {
  if (__mlprog_model.num_state + __mlprog_model.num_shared_state == 0)
    return runEntry(entry, inputs, num_inputs, results, num_results, error,
                    error_size);
  pthread_mutex_lock(&stateLock);
  int32_t status = runEntry(entry, inputs, num_inputs, results, num_results,
                            error, error_size);
  pthread_mutex_unlock(&stateLock);
  return status;
}

MLPROG_EXPORT int32_t mlprog_model_num_state_globals(void) {
  return __mlprog_model.num_state + __mlprog_model.num_shared_state;
}

MLPROG_EXPORT mlprog_instance *mlprog_instance_create(char *error,
                                                      size_t error_size) {
  const mlprog_internal_model *model = &__mlprog_model;
  if (model->num_shared_state) {
    fail(error, error_size,
         "the library has %d mutable global(s) of external data, which "
         "model instances cannot copy",
         model->num_shared_state);
    return NULL;
  }
  if (model->target != MLPROG_TARGET_CPU && model->num_state) {
    fail(error, error_size, "model instances need a CPU library");
    return NULL;
  }
  mlprog_instance *instance = calloc(1, sizeof(*instance));
  void **storage =
      calloc(model->num_state ? model->num_state : 1, sizeof(void *));
  if (!instance || !storage) {
    free(instance);
    free(storage);
    fail(error, error_size, "out of memory");
    return NULL;
  }
  instance->storage = storage;
  for (int32_t i = 0; i < model->num_state; ++i) {
    const mlprog_internal_state *state = &model->state[i];
    size_t alignment = (size_t)state->alignment;
    size_t size = (size_t)state->size;
    size_t rounded =
        (size ? size + alignment - 1 : alignment) & ~(alignment - 1);
    void *buffer = NULL;
    if (posix_memalign(&buffer, alignment, rounded)) {
      mlprog_instance_destroy(instance);
      fail(error, error_size, "out of memory for %lld bytes of state",
           (long long)size);
      return NULL;
    }
    if (state->initial)
      memcpy(buffer, state->initial, size);
    else
      memset(buffer, 0, rounded);
    storage[i] = buffer;
  }
  return instance;
}

MLPROG_EXPORT void mlprog_instance_destroy(mlprog_instance *instance) {
  const mlprog_internal_model *model = &__mlprog_model;
  if (!instance)
    return;
  int complete = 1;
  for (int32_t i = 0; i < model->num_state; ++i)
    complete &= instance->storage[i] != NULL;
  if (complete && model->release_state) {
    pthread_mutex_lock(&stateLock);
    bindState(instance->storage);
    model->release_state();
    bindState(NULL);
    pthread_mutex_unlock(&stateLock);
  }
  for (int32_t i = 0; i < model->num_state; ++i)
    free(instance->storage[i]);
  free(instance->storage);
  free(instance);
}

MLPROG_EXPORT int32_t mlprog_instance_run(
    mlprog_instance *instance, int32_t entry, const mlprog_tensor *inputs,
    int32_t num_inputs, mlprog_tensor *results, int32_t num_results,
    char *error, size_t error_size) {
  if (!instance)
    return fail(error, error_size, "instance is NULL");
  pthread_mutex_lock(&stateLock);
  bindState(instance->storage);
  int32_t status = runEntry(entry, inputs, num_inputs, results, num_results,
                            error, error_size);
  bindState(NULL);
  pthread_mutex_unlock(&stateLock);
  return status;
}

//===----------------------------------------------------------------------===//
// memrefCopy: memref.copy of non-contiguous memrefs calls it. The JIT
// resolves it from libmlir_c_runner_utils; libraries carry their own copy.
//===----------------------------------------------------------------------===//

typedef struct {
  int64_t rank;
  void *descriptor;
} UnrankedMemRef;

MLPROG_EXPORT void memrefCopy(int64_t elementSize, UnrankedMemRef *src,
                              UnrankedMemRef *dst) {
  int64_t rank = src->rank;
  const int64_t *s = (const int64_t *)src->descriptor;
  const int64_t *d = (const int64_t *)dst->descriptor;
  const char *srcData = (const char *)(uintptr_t)s[1];
  char *dstData = (char *)(uintptr_t)d[1];
  const int64_t *sizes = s + 3;
  const int64_t *srcStrides = s + 3 + rank, *dstStrides = d + 3 + rank;
  int64_t count = numElements((int32_t)rank, sizes);
  int64_t position[64] = {0};
  if (rank > 64 || count == 0)
    return;
  for (int64_t n = 0; n < count; ++n) {
    int64_t srcIndex = s[2], dstIndex = d[2];
    for (int64_t k = 0; k < rank; ++k) {
      srcIndex += position[k] * srcStrides[k];
      dstIndex += position[k] * dstStrides[k];
    }
    memcpy(dstData + dstIndex * elementSize, srcData + srcIndex * elementSize,
           elementSize);
    for (int64_t k = rank - 1; k >= 0 && ++position[k] == sizes[k]; --k)
      position[k] = 0;
  }
}
