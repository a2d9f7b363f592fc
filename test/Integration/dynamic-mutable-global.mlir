// A mutable global whose bounding type has a dynamic extent changes shape
// with every store: each call appends the input to the history, so after N
// calls it holds the initial value followed by N copies of the input. The
// lowering keeps the value in a heap buffer of the stored shape and frees
// the previous one on the next store.
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.array([5, 6, 7], np.float32))"
// RUN: mlprog-run %s --entry append --input %t.x.npy --repeat 3 --print | FileCheck %s
// RUN: mlprog-run %s --entry append --input %t.x.npy --print | FileCheck %s --check-prefix=ONCE
// RUN: mlprog-run %s --entry read_log --repeat 2 --print | FileCheck %s --check-prefix=EMPTY
// RUN: mlprog-run %s --entry log_twice --input %t.x.npy --repeat 2 --print | FileCheck %s --check-prefix=LOG

// CHECK: output 0: shape (11,) dtype float32
// CHECK-NEXT: [1, 2, 5, 6, 7, 5, 6, 7, 5, 6, 7]
// ONCE: output 0: shape (5,) dtype float32
// ONCE-NEXT: [1, 2, 5, 6, 7]

ml_program.global private mutable @history(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<?xf32>

ml_program.func @append(%x: tensor<?xf32>) -> tensor<?xf32> {
  %h = ml_program.global_load @history : tensor<?xf32>
  %new = tensor.concat dim(0) %h, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  ml_program.global_store @history = %new : tensor<?xf32>
  ml_program.return %new : tensor<?xf32>
}

// An uninitialized dynamic global reads as an empty tensor until stored.
// EMPTY: output 0: shape (0,2) dtype int32
// EMPTY-NEXT: []
ml_program.global private mutable @log : tensor<?x2xi32>

ml_program.func @read_log() -> tensor<?x2xi32> {
  %l = ml_program.global_load @log : tensor<?x2xi32>
  ml_program.return %l : tensor<?x2xi32>
}

// Two stores in one call (the first one's buffer is freed by the second),
// and a load between them sees the first; the result is the load taken
// before the second store, so the second call sees 3 + 3 rows.
// LOG: output 0: shape (6,) dtype float32
// LOG-NEXT: [5, 6, 7, 5, 6, 7]
ml_program.global private mutable @scratch : tensor<?xf32>

ml_program.func @log_twice(%x: tensor<?xf32>) -> tensor<?xf32> {
  ml_program.global_store @scratch = %x : tensor<?xf32>
  %a = ml_program.global_load @scratch : tensor<?xf32>
  %b = tensor.concat dim(0) %a, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  ml_program.global_store @scratch = %b : tensor<?xf32>
  ml_program.return %b : tensor<?xf32>
}
