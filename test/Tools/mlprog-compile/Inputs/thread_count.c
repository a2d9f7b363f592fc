/* Runs `main` of parallel-matmul.mlir once per argument with
 * MLPROG_NUM_THREADS set to it ("unset": removed) and prints the OpenMP
 * thread count the calling thread is left with (omp_get_max_threads of the
 * libomp the model library loaded), then the libomp settings the library
 * left in the environment. */
#define _GNU_SOURCE
#include "mlprog-c/Model.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float a[256 * 96], b[96 * 320];

int main(int argc, char **argv) {
  int64_t shapeA[2] = {256, 96}, shapeB[2] = {96, 320};
  mlprog_tensor inputs[2] = {{a, shapeA, 2, MLPROG_DTYPE_F32},
                             {b, shapeB, 2, MLPROG_DTYPE_F32}};
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "unset") == 0)
      unsetenv("MLPROG_NUM_THREADS");
    else
      setenv("MLPROG_NUM_THREADS", argv[i], 1);
    mlprog_tensor result;
    char error[256];
    if (mlprog_model_run(0, inputs, 2, &result, 1, error, sizeof(error))) {
      printf("error: %s\n", error);
      return 1;
    }
    mlprog_tensor_release(&result);
    int (*maxThreads)(void) =
        (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    if (!maxThreads) {
      printf("libomp is not loaded\n");
      return 1;
    }
    printf("MLPROG_NUM_THREADS=%s: %d threads\n", argv[i], maxThreads());
  }
  const char *blocktime = getenv("KMP_BLOCKTIME");
  const char *yield = getenv("KMP_USE_YIELD");
  printf("KMP_BLOCKTIME=%s KMP_USE_YIELD=%s\n", blocktime ? blocktime : "unset",
         yield ? yield : "unset");
  return 0;
}
