
ml_program.global private @global_same_type(dense<4> : tensor<4xi32>) : tensor<4xi32>

ml_program.global private mutable @global_mutable_undef : tensor<?xi32>

ml_program.global private @global_extern(#ml_program.extern : tensor<4xi32>) : tensor<?xi32>

ml_program.global public mutable @global_public(dense<1.0> : tensor<2xf32>) : tensor<2xf32>

ml_program.global @global_default(dense<2> : tensor<i64>) : tensor<i32>

ml_program.func @ssa_accessors() -> tensor<?xi32> {
  %0 = ml_program.global_load_const @global_same_type : tensor<4xi32>  ml_program.output %1 : tensor<?xi32>
}

ml_program.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

ml_program.func @attributes(%arg0: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xf32> {onnx.name = "y"}) attributes {llvm.emit_c_interface} {
  ml_program.return %arg0 : tensor<4xf32>
}

ml_program.func @multiparith.sel(%arg0: i1, %arg1: i32) -> i32 {
  cf.cond_br %arg0, ^bb1, ^bb2
^bb1:
  ml_program.return %arg1 : i32
^bb2:
  %c = arith.constant 0 : i32
  ml_program.return %c : i32
}

ml_program.subgraph @empty_outputs() {
  ml_program.output
}

ml_program.func @calls(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ml_program.call @attributes(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  ml_program.call @empty_outputs() : () -> ()
  ml_program.return %0 : tensor<4xf32>
}

ml_program.global private @stored_in_bundle(#ml_program.extern : tensor<4xf32>) : tensor<4xf32> {ml_program.external_storage = #ml_program.external_storage<file = "model.safetensors", key = "w">}

ml_program.global private mutable @stored_in_blob(#ml_program.extern : tensor<4xf16>) : tensor<?xf16> {ml_program.external_storage = #ml_program.external_storage<file = "weight.bin", offset = 128, length = 8>}