// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; open('%t/blob.bin','wb').write(b'\0'*8 + np.array([1.5, -2.5], dtype=np.float32).tobytes())"
// RUN: mlprog-opt %s --mlprog-internalize-globals="weights-dir=%t" --split-input-file -verify-diagnostics | FileCheck %s

// A raw blob at an offset.
// CHECK: ml_program.global private @blob(dense<[1.500000e+00, -2.500000e+00]> : tensor<2xf32>) : tensor<2xf32>{{$}}
ml_program.global private @blob(#ml_program.extern : tensor<2xf32>) : tensor<2xf32> {ml_program.external_storage = #ml_program.external_storage<file = "blob.bin", offset = 8, length = 8>}
// Without external storage and without a bundle option: left alone.
// CHECK: ml_program.global private @by_name(#{{.*}}) : tensor<2xf32>
ml_program.global private @by_name(#ml_program.extern : tensor<2xf32>) : tensor<2xf32>

// -----

// expected-error @+1 {{blob.bin holds fewer than the 16 bytes of its type at offset 8}}
ml_program.global private @short(#ml_program.extern : tensor<4xf32>) : tensor<4xf32> {ml_program.external_storage = #ml_program.external_storage<file = "blob.bin", offset = 8>}

// -----

// expected-error-re @+1 {{external storage of global @missing: 'missing.bin' cannot be opened ('{{.*}}missing.bin'): No such file or directory}}
ml_program.global private @missing(#ml_program.extern : tensor<2xf32>) : tensor<2xf32> {ml_program.external_storage = #ml_program.external_storage<file = "missing.bin", offset = 0>}

// -----

// expected-error-re @+1 {{{{.*}}blob.bin: header is not valid JSON}}
ml_program.global private @not_bundle(#ml_program.extern : tensor<2xf32>) : tensor<2xf32> {ml_program.external_storage = #ml_program.external_storage<file = "blob.bin", key = "x">}
