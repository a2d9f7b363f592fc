//===- CudaRuntime.c - mgpu* entry points over the CUDA driver API --------===//
//
// MLIR's GPU-to-LLVM lowering (gpu.launch_func, gpu.alloc, gpu.memcpy, ...)
// emits calls to `mgpu*` functions that upstream implements in
// libmlir_cuda_runtime, which Debian does not ship and which needs the CUDA
// toolkit to build. This is our own implementation: plain C on libc, with
// the driver (libcuda.so.1) loaded by dlopen on first use and the few driver
// types and functions declared here, so nothing of CUDA is needed at build
// time. The signatures are those MLIR 22's lowering declares (see
// docs/gpu.md and test/Tools/mlprog-compile/cuda-runtime.test).
//
// Errors. mlprog_cuda_prepare reports a missing driver, no device, or kernels
// the driver could not load, as a message. Errors inside the compiled code
// (a launch or an allocation failing) cannot be returned through MLIR's
// void-returning calls: they print "mlprog cuda runtime: error: ..." and
// exit the process with status 1.
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MLPROG_EXPORT __attribute__((visibility("default")))

/* The driver's opaque handles and result codes (cuda.h). */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;
enum { CUDA_SUCCESS = 0 };
/* CUjit_option values. */
enum {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7
};
enum { CU_MEM_ATTACH_GLOBAL = 1, CU_STREAM_NON_BLOCKING = 1 };
enum { CU_EVENT_DISABLE_TIMING = 2 };

/* The driver functions we use, by their exported (versioned) names. */
#define MLPROG_CUDA_FUNCTIONS(X)                                               \
  X(cuInit, "cuInit", CUresult, (unsigned))                                    \
  X(cuGetErrorString, "cuGetErrorString", CUresult, (CUresult, const char **)) \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult, (int *))                   \
  X(cuDeviceGet, "cuDeviceGet", CUresult, (CUdevice *, int))                   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult,            \
    (CUcontext *, CUdevice))                                                   \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext))                 \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", CUresult,                        \
    (CUmodule *, const void *, unsigned, int *, void **))                      \
  X(cuModuleUnload, "cuModuleUnload", CUresult, (CUmodule))                    \
  X(cuModuleGetFunction, "cuModuleGetFunction", CUresult,                      \
    (CUfunction *, CUmodule, const char *))                                    \
  X(cuLaunchKernel, "cuLaunchKernel", CUresult,                                \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,   \
     unsigned, CUstream, void **, void **))                                    \
  X(cuStreamCreate, "cuStreamCreate", CUresult, (CUstream *, unsigned))        \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream))               \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream))          \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", CUresult,                          \
    (CUstream, CUevent, unsigned))                                             \
  X(cuEventCreate, "cuEventCreate", CUresult, (CUevent *, unsigned))           \
  X(cuEventDestroy, "cuEventDestroy_v2", CUresult, (CUevent))                  \
  X(cuEventSynchronize, "cuEventSynchronize", CUresult, (CUevent))             \
  X(cuEventRecord, "cuEventRecord", CUresult, (CUevent, CUstream))             \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr *, size_t))            \
  X(cuMemAllocManaged, "cuMemAllocManaged", CUresult,                          \
    (CUdeviceptr *, size_t, unsigned))                                         \
  X(cuMemFree, "cuMemFree_v2", CUresult, (CUdeviceptr))                        \
  X(cuMemcpyAsync, "cuMemcpyAsync", CUresult,                                  \
    (CUdeviceptr, CUdeviceptr, size_t, CUstream))                              \
  X(cuMemsetD32Async, "cuMemsetD32Async", CUresult,                            \
    (CUdeviceptr, unsigned, size_t, CUstream))                                 \
  X(cuMemsetD16Async, "cuMemsetD16Async", CUresult,                            \
    (CUdeviceptr, unsigned short, size_t, CUstream))                           \
  X(cuMemHostRegister, "cuMemHostRegister_v2", CUresult,                       \
    (void *, size_t, unsigned))                                                \
  X(cuMemHostUnregister, "cuMemHostUnregister", CUresult, (void *))            \
  X(cuCtxSynchronize, "cuCtxSynchronize", CUresult, (void))

#define DECLARE_POINTER(name, symbol, ret, params) static ret(*p_##name) params;
MLPROG_CUDA_FUNCTIONS(DECLARE_POINTER)
#undef DECLARE_POINTER

static pthread_once_t initOnce = PTHREAD_ONCE_INIT;
static char initError[512];
static CUcontext context;
/* The first kernel module that failed to load, reported by prepare. */
static char loadError[4096];

static const char *errorString(CUresult result) {
  const char *text = NULL;
  if (p_cuGetErrorString && p_cuGetErrorString(result, &text) == CUDA_SUCCESS &&
      text)
    return text;
  return "unknown CUDA error";
}

static void initialize(void) {
  const char *override = getenv("MLPROG_CUDA_DRIVER");
  const char *library = override && *override ? override : "libcuda.so.1";
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    snprintf(initError, sizeof(initError),
             "cannot load the CUDA driver (%s): %s; a CUDA target needs an "
             "NVIDIA driver and GPU",
             library, dlerror());
    return;
  }
#define LOAD_POINTER(name, symbol, ret, params)                                \
  p_##name = (ret(*) params)dlsym(handle, symbol);                             \
  if (!p_##name) {                                                             \
    snprintf(initError, sizeof(initError),                                     \
             "the CUDA driver %s lacks %s; is it too old?", library, symbol);  \
    return;                                                                    \
  }
  MLPROG_CUDA_FUNCTIONS(LOAD_POINTER)
#undef LOAD_POINTER
  CUresult result = p_cuInit(0);
  if (result != CUDA_SUCCESS) {
    snprintf(initError, sizeof(initError), "cuInit failed: %s",
             errorString(result));
    return;
  }
  int count = 0;
  result = p_cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS || count == 0) {
    snprintf(initError, sizeof(initError), "no CUDA device found%s%s",
             result == CUDA_SUCCESS ? "" : ": ",
             result == CUDA_SUCCESS ? "" : errorString(result));
    return;
  }
  const char *ordinal = getenv("MLPROG_CUDA_DEVICE");
  int index = ordinal ? atoi(ordinal) : 0;
  CUdevice device;
  if ((result = p_cuDeviceGet(&device, index)) != CUDA_SUCCESS ||
      (result = p_cuDevicePrimaryCtxRetain(&context, device)) != CUDA_SUCCESS ||
      (result = p_cuCtxSetCurrent(context)) != CUDA_SUCCESS) {
    snprintf(initError, sizeof(initError),
             "cannot use CUDA device %d (of %d): %s", index, count,
             errorString(result));
    return;
  }
}

/** Loads the driver and makes device 0 (or $MLPROG_CUDA_DEVICE) current on
 *  the calling thread. Returns the error message, or NULL. */
static const char *ensureInitialized(void) {
  pthread_once(&initOnce, initialize);
  if (initError[0])
    return initError;
  if (p_cuCtxSetCurrent(context) != CUDA_SUCCESS)
    return "cannot make the CUDA context current";
  return NULL;
}

static void fatal(const char *what, const char *detail) {
  fprintf(stderr, "mlprog cuda runtime: error: %s: %s\n", what, detail);
  exit(1);
}

static void check(CUresult result, const char *what) {
  if (result != CUDA_SUCCESS)
    fatal(what, errorString(result));
}

static void requireDriver(const char *what) {
  const char *error = ensureInitialized();
  if (error)
    fatal(what, error);
}

/*===----------------------------------------------------------------------===*/
/* Used by ModelSupport.c through the table mlprog-compile emits.             */
/*===----------------------------------------------------------------------===*/

/** Succeeds (0) when the driver is loaded, a device is current and every
 *  kernel module of the library loaded; else writes the reason. */
MLPROG_EXPORT int32_t mlprog_cuda_prepare(char *error, size_t size) {
  const char *message = ensureInitialized();
  if (!message && loadError[0])
    message = loadError;
  if (!message)
    return 0;
  if (error && size)
    snprintf(error, size, "%s", message);
  return 1;
}

/** Host-and-device accessible (managed) memory for inputs and results. */
MLPROG_EXPORT void *mlprog_cuda_alloc_shared(size_t size) {
  if (ensureInitialized())
    return NULL;
  CUdeviceptr ptr = 0;
  if (p_cuMemAllocManaged(&ptr, size, CU_MEM_ATTACH_GLOBAL) != CUDA_SUCCESS)
    return NULL;
  return (void *)(uintptr_t)ptr;
}

MLPROG_EXPORT void mlprog_cuda_free(void *ptr) {
  if (ptr && !ensureInitialized())
    p_cuMemFree((CUdeviceptr)(uintptr_t)ptr);
}

/*===----------------------------------------------------------------------===*/
/* The mgpu* entry points of MLIR's GPU-to-LLVM lowering.                     */
/*===----------------------------------------------------------------------===*/

static CUmodule loadModule(const void *data, int optLevel, bool jit) {
  const char *error = ensureInitialized();
  if (error)
    return NULL; /* reported by mlprog_cuda_prepare before any launch */
  char infoLog[4096] = "", errorLog[4096] = "";
  int options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {infoLog, (void *)(uintptr_t)sizeof(infoLog), errorLog,
                    (void *)(uintptr_t)sizeof(errorLog),
                    (void *)(uintptr_t)(optLevel < 0   ? 0
                                        : optLevel > 4 ? 4
                                                       : optLevel)};
  CUmodule module = NULL;
  CUresult result =
      p_cuModuleLoadDataEx(&module, data, jit ? 5 : 0, options, values);
  if (result != CUDA_SUCCESS) {
    if (!loadError[0])
      snprintf(loadError, sizeof(loadError),
               "the CUDA driver cannot load the kernels: %s%s%s",
               errorString(result), errorLog[0] ? "\n" : "", errorLog);
    return NULL;
  }
  return module;
}

/** PTX or a cubin/fatbin image (gpu.binary with format=bin/fatbin). */
MLPROG_EXPORT CUmodule mgpuModuleLoad(void *data, size_t size) {
  (void)size;
  return loadModule(data, 0, false);
}

/** NUL-terminated PTX (gpu.binary with format=isa), JIT-compiled by the
 *  driver at `optLevel`. */
MLPROG_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  return loadModule(data, optLevel, true);
}

MLPROG_EXPORT void mgpuModuleUnload(CUmodule module) {
  if (module && !ensureInitialized())
    p_cuModuleUnload(module);
}

MLPROG_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                               const char *name) {
  requireDriver("mgpuModuleGetFunction");
  if (!module)
    fatal("mgpuModuleGetFunction",
          loadError[0] ? loadError : "kernel module not loaded");
  CUfunction function = NULL;
  check(p_cuModuleGetFunction(&function, module, name), name);
  return function;
}

MLPROG_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                    intptr_t gridY, intptr_t gridZ,
                                    intptr_t blockX, intptr_t blockY,
                                    intptr_t blockZ, int32_t smem,
                                    CUstream stream, void **params,
                                    void **extra, size_t paramsCount) {
  (void)paramsCount;
  requireDriver("mgpuLaunchKernel");
  /* An empty grid (a zero-sized tensor) launches nothing. */
  if (gridX <= 0 || gridY <= 0 || gridZ <= 0)
    return;
  check(p_cuLaunchKernel(function, (unsigned)gridX, (unsigned)gridY,
                         (unsigned)gridZ, (unsigned)blockX, (unsigned)blockY,
                         (unsigned)blockZ, (unsigned)smem, stream, params,
                         extra),
        "kernel launch");
}

MLPROG_EXPORT CUstream mgpuStreamCreate(void) {
  requireDriver("mgpuStreamCreate");
  CUstream stream = NULL;
  check(p_cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  return stream;
}

MLPROG_EXPORT void mgpuStreamDestroy(CUstream stream) {
  requireDriver("mgpuStreamDestroy");
  check(p_cuStreamDestroy(stream), "cuStreamDestroy");
}

MLPROG_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  requireDriver("mgpuStreamSynchronize");
  check(p_cuStreamSynchronize(stream), "kernel execution");
}

MLPROG_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  requireDriver("mgpuStreamWaitEvent");
  check(p_cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

MLPROG_EXPORT CUevent mgpuEventCreate(void) {
  requireDriver("mgpuEventCreate");
  CUevent event = NULL;
  check(p_cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event;
}

MLPROG_EXPORT void mgpuEventDestroy(CUevent event) {
  requireDriver("mgpuEventDestroy");
  check(p_cuEventDestroy(event), "cuEventDestroy");
}

MLPROG_EXPORT void mgpuEventSynchronize(CUevent event) {
  requireDriver("mgpuEventSynchronize");
  check(p_cuEventSynchronize(event), "cuEventSynchronize");
}

MLPROG_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  requireDriver("mgpuEventRecord");
  check(p_cuEventRecord(event, stream), "cuEventRecord");
}

/** gpu.alloc: device memory, or managed memory for `host_shared`. The
 *  allocation is synchronous; `stream` orders nothing here. */
MLPROG_EXPORT void *mgpuMemAlloc(uint64_t size, CUstream stream,
                                 bool isHostShared) {
  (void)stream;
  requireDriver("mgpuMemAlloc");
  CUdeviceptr ptr = 0;
  if (size == 0)
    size = 1;
  if (isHostShared)
    check(p_cuMemAllocManaged(&ptr, size, CU_MEM_ATTACH_GLOBAL),
          "cuMemAllocManaged");
  else
    check(p_cuMemAlloc(&ptr, size), "cuMemAlloc");
  return (void *)(uintptr_t)ptr;
}

/** gpu.dealloc. Waits for the device first: a kernel may still use it. */
MLPROG_EXPORT void mgpuMemFree(void *ptr, CUstream stream) {
  (void)stream;
  requireDriver("mgpuMemFree");
  if (!ptr)
    return;
  check(p_cuCtxSynchronize(), "kernel execution");
  check(p_cuMemFree((CUdeviceptr)(uintptr_t)ptr), "cuMemFree");
}

MLPROG_EXPORT void mgpuMemcpy(void *dst, void *src, size_t size,
                              CUstream stream) {
  requireDriver("mgpuMemcpy");
  check(p_cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst,
                        (CUdeviceptr)(uintptr_t)src, size, stream),
        "cuMemcpyAsync");
}

MLPROG_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                                CUstream stream) {
  requireDriver("mgpuMemset32");
  check(p_cuMemsetD32Async((CUdeviceptr)(uintptr_t)dst, value, count, stream),
        "cuMemsetD32Async");
}

MLPROG_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                CUstream stream) {
  requireDriver("mgpuMemset16");
  check(p_cuMemsetD16Async((CUdeviceptr)(uintptr_t)dst, value, count, stream),
        "cuMemsetD16Async");
}

/** gpu.host_register: pins host memory and maps it for the device. */
MLPROG_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t size) {
  requireDriver("mgpuMemHostRegister");
  check(p_cuMemHostRegister(ptr, size, 0), "cuMemHostRegister");
}

MLPROG_EXPORT void mgpuMemHostUnregister(void *ptr) {
  requireDriver("mgpuMemHostUnregister");
  check(p_cuMemHostUnregister(ptr), "cuMemHostUnregister");
}

/* A ranked memref descriptor viewed through its first fields. */
typedef struct {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizes[];
} StridedMemRef;

static uint64_t memrefBytes(int64_t rank, StridedMemRef *desc,
                            int64_t elementSize) {
  uint64_t count = 1;
  for (int64_t i = 0; i < rank; ++i)
    count *= (uint64_t)desc->sizes[i];
  return count * (uint64_t)elementSize;
}

/** gpu.host_register of an unranked memref (dense layouts). */
MLPROG_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank, StridedMemRef *desc,
                                             int64_t elementSize) {
  uint64_t bytes = memrefBytes(rank, desc, elementSize);
  if (bytes)
    mgpuMemHostRegister(desc->aligned + desc->offset * elementSize, bytes);
}

MLPROG_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank,
                                               StridedMemRef *desc,
                                               int64_t elementSize) {
  if (memrefBytes(rank, desc, elementSize))
    mgpuMemHostUnregister(desc->aligned + desc->offset * elementSize);
}

MLPROG_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  (void)device; /* chosen once, from $MLPROG_CUDA_DEVICE */
}

/** memref.dealloc of a buffer from gpu.alloc host_shared (the GPU pipeline
 *  calls this instead of the async-only gpu.dealloc lowering). */
MLPROG_EXPORT void mlprog_cuda_dealloc(int64_t ptr) {
  mgpuMemFree((void *)(uintptr_t)ptr, NULL);
}
