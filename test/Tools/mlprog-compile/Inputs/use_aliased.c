/* Runs Inputs/aliased_results.mlir through the C ABI: results that share
 * the compiled code's buffer (one is handed over, the others are copies)
 * and a result that is the input (a copy); each is released once. Run
 * twice, so that a buffer freed while a result still held it would show
 * (and AddressSanitizer reports it in the ASan build). */
#include "mlprog-c/Model.h"

#include <stdio.h>

int main(void) {
  float x[6] = {1, -2, 3, 4, -5, 6};
  int64_t shape[2] = {3, 2};
  mlprog_tensor input = {x, shape, 2, MLPROG_DTYPE_F32};
  int32_t entry = mlprog_model_find_entry("main");
  for (int run = 0; run < 2; ++run) {
    mlprog_tensor results[4];
    char error[256];
    if (mlprog_model_run(entry, &input, 1, results, 4, error, sizeof(error))) {
      printf("error: %s\n", error);
      return 1;
    }
    x[0] += 1; /* results must not see later changes of the input */
    for (int r = 0; r < 4; ++r) {
      const float *data = results[r].data;
      int64_t count = results[r].shape[0] * results[r].shape[1];
      printf("run %d result %d:", run, r);
      for (int64_t i = 0; i < count; ++i)
        printf(" %g", data[i]);
      printf("\n");
    }
    printf("distinct %d %d %d\n", results[0].data != results[1].data,
           results[0].data != results[2].data, results[3].data != (void *)x);
    for (int r = 0; r < 4; ++r)
      mlprog_tensor_release(&results[r]);
  }
  return 0;
}
