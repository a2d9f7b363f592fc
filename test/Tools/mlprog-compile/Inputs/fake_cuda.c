/* A stand-in for libcuda.so.1 that lets the host side of CUDA libraries run
 * on machines without a GPU: managed memory is calloc'ed host memory, kernel
 * launches do nothing, and every call is logged to stderr ("fake-cuda: ...")
 * so tests can check what the runtime asked the driver for. With
 * FAKE_CUDA_DEVICES=0 it reports no device. Never computes anything. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
#define LOG(...) fprintf(stderr, "fake-cuda: " __VA_ARGS__)

CUresult cuInit(unsigned flags) { LOG("cuInit\n"); return 0; }
CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = r == 100 ? "no CUDA-capable device is detected" : "fake error";
  return 0;
}
CUresult cuDeviceGetCount(int *n) {
  const char *env = getenv("FAKE_CUDA_DEVICES");
  *n = env ? atoi(env) : 1;
  return 0;
}
CUresult cuDeviceGet(int *d, int i) { *d = i; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)1; return 0; }
CUresult cuCtxSetCurrent(void *c) { return 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuModuleLoadDataEx(void **m, const void *image, unsigned n, int *o,
                            void **v) {
  const char *ptx = image;
  const char *target = strstr(ptx, ".target ");
  int entries = 0;
  for (const char *p = ptx; (p = strstr(p, ".entry ")); ++p)
    ++entries;
  LOG("cuModuleLoadDataEx %.*s entries=%d jit-options=%u\n",
      target ? (int)strcspn(target, "\n") : 0, target ? target : "", entries,
      n);
  *m = strdup(ptx);
  return 0;
}
CUresult cuModuleUnload(void *m) { free(m); return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
  /* Handles live in static storage (like a driver's, owned by it), so the
     fake leaks nothing under LeakSanitizer. */
  static char names[256][128];
  static unsigned count;
  LOG("cuModuleGetFunction %s\n", name);
  char *slot = names[count++ % 256];
  snprintf(slot, sizeof names[0], "%s", name);
  *f = slot;
  return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        void *stream, void **params, void **extra) {
  LOG("cuLaunchKernel %s grid=(%u,%u,%u) block=(%u,%u,%u) smem=%u\n",
      (const char *)f, gx, gy, gz, bx, by, bz, smem);
  return 0;
}
CUresult cuStreamCreate(void **s, unsigned f) { *s = malloc(1); return 0; }
CUresult cuStreamDestroy_v2(void *s) { free(s); return 0; }
CUresult cuStreamSynchronize(void *s) { return 0; }
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) { return 0; }
CUresult cuEventCreate(void **e, unsigned f) { *e = malloc(1); return 0; }
CUresult cuEventDestroy_v2(void *e) { free(e); return 0; }
CUresult cuEventSynchronize(void *e) { return 0; }
CUresult cuEventRecord(void *e, void *s) { return 0; }
CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) {
  LOG("cuMemAlloc %zu\n", n);
  *p = (unsigned long long)calloc(1, n);
  return 0;
}
CUresult cuMemAllocManaged(unsigned long long *p, size_t n, unsigned f) {
  LOG("cuMemAllocManaged %zu\n", n);
  *p = (unsigned long long)calloc(1, n);
  return 0;
}
CUresult cuMemFree_v2(unsigned long long p) {
  LOG("cuMemFree\n");
  free((void *)p);
  return 0;
}
CUresult cuMemcpyAsync(unsigned long long d, unsigned long long s, size_t n,
                       void *st) {
  memcpy((void *)d, (void *)s, n);
  return 0;
}
CUresult cuMemsetD32Async(unsigned long long d, unsigned v, size_t n,
                          void *s) { return 0; }
CUresult cuMemsetD16Async(unsigned long long d, unsigned short v, size_t n,
                          void *s) { return 0; }
CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned f) { return 0; }
CUresult cuMemHostUnregister(void *p) { return 0; }
