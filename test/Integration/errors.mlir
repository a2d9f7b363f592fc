// Input errors exit with status 1, name the file, and write no outputs.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/f32.npy', np.zeros((2, 4), np.float32)); np.save('%t/f64.npy', np.zeros((2, 4), np.float64)); np.save('%t/bad.npy', np.zeros((2, 5), np.float32)); np.save('%t/fortran.npy', np.asfortranarray(np.zeros((2, 4), np.float32))); open('%t/junk.npy', 'wb').write(b'junk')"

// RUN: not mlprog-run %s --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: mlprog-run: error: {{.*}}errors.mlir: @main expects 1 input(s), got 0

// RUN: not mlprog-run %s --input %t/f64.npy --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: mlprog-run: error: {{.*}}errors.mlir: input 0: expected tensor<?x4xf32>, got f64 array of shape (2,4)

// RUN: not mlprog-run %s --input %t/bad.npy --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: mlprog-run: error: {{.*}}errors.mlir: input 0: expected tensor<?x4xf32>, got f32 array of shape (2,5)

// RUN: not mlprog-run %s --input %t/missing.npy --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=NPY
// NPY: mlprog-run: error: {{.*}}missing.npy: cannot open: No such file or directory

// RUN: not mlprog-run %t/missing.mlir --input %t/f32.npy 2>&1 | FileCheck %s --check-prefix=MLIR
// MLIR: mlprog-run: error: {{.*}}missing.mlir: cannot open input file '{{.*}}missing.mlir': No such file or directory

// RUN: not mlprog-run %s --input %t/junk.npy 2>&1 | FileCheck %s --check-prefix=JUNK
// JUNK: mlprog-run: error: {{.*}}junk.npy: not a .npy file (bad magic)

// RUN: not mlprog-run %s --input %t/fortran.npy 2>&1 | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: mlprog-run: error: {{.*}}fortran.npy: Fortran-ordered arrays are not supported

// RUN: not mlprog-run %s --entry nope --input %t/f32.npy 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: mlprog-run: error: {{.*}}errors.mlir: no function @nope with a body (functions: @main)

// RUN: not mlprog-run %s --input %t/f32.npy --repeat 0 2>&1 | FileCheck %s --check-prefix=REPEAT
// REPEAT: mlprog-run: error: --repeat must be at least 1

// No partial outputs were written by any failing run.
// RUN: not ls %t/out

ml_program.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  ml_program.return %x : tensor<?x4xf32>
}
