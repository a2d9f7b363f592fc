/* A C program using a model library through include/mlprog-c/Model.h only:
 * lists the entry points and runs `main` of test/Integration/two-results
 * (x*x and the row sums of a 3x2 f32 input), then an input error. */
#include "mlprog-c/Model.h"

#include <stdio.h>

int main(void) {
  printf("abi %d target %d entries %d\n", mlprog_model_abi_version(),
         mlprog_model_target(), mlprog_model_num_entries());
  for (int32_t i = 0; i < mlprog_model_num_entries(); ++i) {
    const mlprog_entry_info *info = mlprog_model_entry(i);
    printf("entry %s: %d input(s), %d result(s)\n", info->name,
           info->num_inputs, info->num_results);
    for (int32_t r = 0; r < info->num_results; ++r) {
      printf("  result %d: dtype %d rank %d shape", r, info->results[r].dtype,
             info->results[r].rank);
      for (int32_t d = 0; d < info->results[r].rank; ++d)
        printf(" %lld", (long long)info->results[r].shape[d]);
      printf("\n");
    }
  }
  float x[6] = {1, -2, 3, 4, -5, 6};
  int64_t shape[2] = {3, 2};
  mlprog_tensor input = {x, shape, 2, MLPROG_DTYPE_F32};
  mlprog_tensor results[2];
  char error[256];
  int32_t entry = mlprog_model_find_entry("main");
  if (mlprog_model_run(entry, &input, 1, results, 2, error, sizeof(error))) {
    printf("error: %s\n", error);
    return 1;
  }
  const float *squares = results[0].data, *sums = results[1].data;
  printf("squares");
  for (int i = 0; i < 6; ++i)
    printf(" %g", squares[i]);
  printf("\nsums %g %g %g\n", sums[0], sums[1], sums[2]);
  mlprog_tensor_release(&results[0]);
  mlprog_tensor_release(&results[1]);

  int64_t wrong[2] = {2, 2};
  input.shape = wrong;
  if (mlprog_model_run(entry, &input, 1, results, 2, error, sizeof(error)))
    printf("error: %s\n", error);
  printf("find missing: %d\n", mlprog_model_find_entry("nope"));
  return 0;
}
