/* Two model instances of one library keep separate state: the counter of
 * test/Integration/repeat-counter.mlir (`main` adds 1 to a mutable global
 * and returns it) and the history of dynamic-mutable-global.mlir (`append`
 * concatenates the input to a mutable global of dynamic shape, whose
 * buffers the instance frees when destroyed; run under ASan in the
 * sanitizer job). Usage: instances counter|history */
#include "mlprog-c/Model.h"

#include <stdio.h>
#include <string.h>

static float counter(mlprog_instance *instance) {
  mlprog_tensor result;
  char error[256];
  int32_t entry = mlprog_model_find_entry("main");
  int32_t status =
      instance
          ? mlprog_instance_run(instance, entry, NULL, 0, &result, 1, error,
                                sizeof(error))
          : mlprog_model_run(entry, NULL, 0, &result, 1, error, sizeof(error));
  if (status) {
    printf("error: %s\n", error);
    return -1;
  }
  float value = ((const float *)result.data)[0];
  mlprog_tensor_release(&result);
  return value;
}

static long long append(mlprog_instance *instance, float x) {
  int64_t shape[1] = {1};
  mlprog_tensor input = {&x, shape, 1, MLPROG_DTYPE_F32}, result;
  char error[256];
  if (mlprog_instance_run(instance, mlprog_model_find_entry("append"), &input,
                          1, &result, 1, error, sizeof(error))) {
    printf("error: %s\n", error);
    return -1;
  }
  long long length = (long long)result.shape[0];
  const float *data = result.data;
  printf("  [");
  for (long long i = 0; i < length; ++i)
    printf(i ? " %g" : "%g", data[i]);
  printf("]\n");
  mlprog_tensor_release(&result);
  return length;
}

int main(int argc, char **argv) {
  char error[256];
  printf("abi %d state globals %d\n", mlprog_model_abi_version(),
         mlprog_model_num_state_globals());
  mlprog_instance *a = mlprog_instance_create(error, sizeof(error));
  mlprog_instance *b = mlprog_instance_create(error, sizeof(error));
  if (!a || !b) {
    printf("error: %s\n", error);
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "history") == 0) {
    printf("a:\n");
    append(a, 5);
    append(a, 6);
    printf("b:\n");
    append(b, 7);
    printf("a:\n");
    append(a, 8);
  } else {
    float a1 = counter(a), a2 = counter(a), b1 = counter(b);
    float d1 = counter(NULL), a3 = counter(a);
    printf("a %g %g, b %g, default %g, a %g\n", a1, a2, b1, d1, a3);
    mlprog_instance_destroy(b);
    b = mlprog_instance_create(error, sizeof(error));
    printf("fresh b %g, default %g\n", counter(b), counter(NULL));
  }
  mlprog_instance_destroy(a);
  mlprog_instance_destroy(b);
  mlprog_instance_destroy(NULL);
  return 0;
}
