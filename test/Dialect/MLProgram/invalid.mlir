// RUN: mlprog-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{immutable global must have an initial value}}
ml_program.global private @no_value : tensor<4xi32>

// -----

// expected-error @+1 {{initial value of type 'tensor<3xi32>' is not compatible with the bounding type 'tensor<4xi32>'}}
ml_program.global private @wrong_shape(dense<1> : tensor<3xi32>) : tensor<4xi32>

// -----

// expected-error @+1 {{initial value of type 'tensor<4xf32>' is not compatible with the bounding type 'tensor<?xi32>'}}
ml_program.global private @wrong_element_type(dense<1.0> : tensor<4xf32>) : tensor<?xi32>

// -----

// expected-error @+1 {{initial value of type 'tensor<4xi32>' is not compatible with the bounding type 'tensor<?x?xi32>'}}
ml_program.global private @wrong_rank(#ml_program.extern : tensor<4xi32>) : tensor<?x?xi32>

// -----

// expected-error @+1 {{initial value must be a typed attribute}}
ml_program.global private mutable @untyped("hello") : tensor<4xi32>

// -----

ml_program.func @undefined_global() -> tensor<4xi32> {
  // expected-error @+1 {{symbol @missing does not reference an 'ml_program.global'}}
  %0 = ml_program.global_load_const @missing : tensor<4xi32>
  ml_program.return %0 : tensor<4xi32>
}

// -----

ml_program.global private mutable @m : tensor<4xi32>
ml_program.func @const_load_of_mutable() -> tensor<4xi32> {
  // expected-error @+1 {{cannot load a mutable global @m as a constant}}
  %0 = ml_program.global_load_const @m : tensor<4xi32>
  ml_program.return %0 : tensor<4xi32>
}

// -----

ml_program.global private @c(dense<1> : tensor<4xi32>) : tensor<4xi32>
ml_program.func @store_to_immutable(%arg0: tensor<4xi32>) {
  // expected-error @+1 {{cannot store to immutable global @c}}
  ml_program.global_store @c = %arg0 : tensor<4xi32>
  ml_program.return
}

// -----

ml_program.global private mutable @m : tensor<?xi32>
ml_program.func @load_wrong_type() -> tensor<4xi32> {
  // expected-error @+1 {{result type 'tensor<4xi32>' does not match the bounding type 'tensor<?xi32>' of @m}}
  %0 = ml_program.global_load @m : tensor<4xi32>
  ml_program.return %0 : tensor<4xi32>
}

// -----

ml_program.global private mutable @m : tensor<4xi32>
ml_program.func @store_incompatible(%arg0: tensor<5xi32>) {
  // expected-error @+1 {{stored type 'tensor<5xi32>' is not compatible with the bounding type 'tensor<4xi32>' of @m}}
  ml_program.global_store @m = %arg0 : tensor<5xi32>
  ml_program.return
}

// -----

ml_program.global private @c(dense<1> : tensor<4xi32>) : tensor<4xi32>
ml_program.subgraph @graph_store_to_immutable(%arg0: tensor<4xi32>) {
  // expected-error @+1 {{cannot store to immutable global @c}}
  %t = ml_program.global_store_graph @c = %arg0 ordering(() -> !ml_program.token) : tensor<4xi32>
  ml_program.output
}

// -----

ml_program.global private mutable @m : tensor<4xi32>
ml_program.subgraph @graph_load_wrong_type() {
  // expected-error @+1 {{result type 'tensor<?xi32>' does not match the bounding type 'tensor<4xi32>' of @m}}
  %0, %t = ml_program.global_load_graph @m ordering(() -> !ml_program.token) : tensor<?xi32>
  ml_program.output
}

// -----

// expected-error @+1 {{declaration (no body) must not be public}}
ml_program.func @public_declaration(tensor<4xf32>) -> tensor<4xf32>

// -----

// expected-error @+1 {{declaration (no body) must not be public}}
ml_program.subgraph @public_subgraph_declaration(tensor<4xf32>)

// -----

ml_program.func @return_count(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{has 0 operands, but enclosing 'ml_program.func' @return_count returns 1}}
  ml_program.return
}

// -----

ml_program.func @return_type(%arg0: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 has type 'tensor<4xf32>', but the enclosing callable returns 'tensor<4xi32>'}}
  ml_program.return %arg0 : tensor<4xf32>
}

// -----

ml_program.subgraph @output_type(%arg0: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 has type 'tensor<4xf32>', but the enclosing callable returns 'tensor<4xi32>'}}
  ml_program.output %arg0 : tensor<4xf32>
}

// -----

ml_program.func @output_in_func() {
  // expected-error @+1 {{expects parent op 'ml_program.subgraph'}}
  ml_program.output
}

// -----

ml_program.subgraph @return_in_subgraph() {
  // expected-error @+1 {{expects parent op 'ml_program.func'}}
  ml_program.return
}

// -----

ml_program.global private mutable @m : tensor<4xi32>
ml_program.subgraph @non_token_ordering(%arg0: i32) {
  // expected-error @+1 {{must be variadic of Token that orders side effects in a graph region}}
  %0, %t = "ml_program.global_load_graph"(%arg0) {global = @m} : (i32) -> (tensor<4xi32>, !ml_program.token)
  ml_program.output
}

// -----

ml_program.global private mutable @m : tensor<4xi32>
ml_program.subgraph @plain_load_in_subgraph() {
  // expected-error @+1 {{'ml_program.global_load' op is not allowed in 'ml_program.subgraph', whose side effects are ordered by tokens; use 'ml_program.global_load_graph'}}
  %0 = ml_program.global_load @m : tensor<4xi32>
  ml_program.output
}

// -----

ml_program.global private mutable @m : tensor<4xi32>
ml_program.subgraph @plain_store_in_subgraph(%arg0: tensor<4xi32>) {
  // expected-error @+1 {{'ml_program.global_store' op is not allowed in 'ml_program.subgraph', whose side effects are ordered by tokens; use 'ml_program.global_store_graph'}}
  ml_program.global_store @m = %arg0 : tensor<4xi32>
  ml_program.output
}

// -----

ml_program.global private mutable @m : tensor<4xi32>
ml_program.func @graph_load_in_func() {
  // expected-error @+1 {{'ml_program.global_load_graph' op is not allowed in 'ml_program.func', whose side effects are ordered by program order; use 'ml_program.global_load'}}
  %0, %t = ml_program.global_load_graph @m ordering(() -> !ml_program.token) : tensor<4xi32>
  ml_program.return
}

// -----

ml_program.global private mutable @m : tensor<4xi32>
ml_program.func @graph_store_in_func(%arg0: tensor<4xi32>) {
  // expected-error @+1 {{'ml_program.global_store_graph' op is not allowed in 'ml_program.func', whose side effects are ordered by program order; use 'ml_program.global_store'}}
  %t = ml_program.global_store_graph @m = %arg0 ordering(() -> !ml_program.token) : tensor<4xi32>
  ml_program.return
}

// -----

ml_program.global private @g(dense<1> : tensor<4xi32>) : tensor<4xi32>
ml_program.func @call_non_callable() {
  // expected-error @+1 {{@g does not reference an 'ml_program.func' or 'ml_program.subgraph'}}
  ml_program.call @g() : () -> ()
  ml_program.return
}

// -----

ml_program.func private @callee(tensor<4xf32>) -> tensor<4xf32>
ml_program.func @call_wrong_type(%arg0: tensor<4xi32>) {
  // expected-error @+1 {{type '(tensor<4xi32>) -> tensor<4xf32>' does not match the callee's type '(tensor<4xf32>) -> tensor<4xf32>'}}
  %0 = ml_program.call @callee(%arg0) : (tensor<4xi32>) -> tensor<4xf32>
  ml_program.return
}

// -----

// expected-error @+1 {{external storage needs exactly one of 'key' and 'offset'}}
ml_program.global private @both(#ml_program.extern : tensor<4xf32>) : tensor<4xf32> {ml_program.external_storage = #ml_program.external_storage<file = "w.bin", key = "w", offset = 0>}

// -----

// expected-error @+1 {{external storage needs exactly one of 'key' and 'offset'}}
ml_program.global private @neither(#ml_program.extern : tensor<4xf32>) : tensor<4xf32> {ml_program.external_storage = #ml_program.external_storage<file = "w.bin">}

// -----

// expected-error @+1 {{external storage needs a non-empty 'file'}}
ml_program.global private @no_file(#ml_program.extern : tensor<4xf32>) : tensor<4xf32> {ml_program.external_storage = #ml_program.external_storage<file = "", key = "w">}

// -----

// expected-error @+1 {{external storage 'length' needs an 'offset'}}
ml_program.global private @length_without_offset(#ml_program.extern : tensor<4xf32>) : tensor<4xf32> {ml_program.external_storage = #ml_program.external_storage<file = "w.bin", key = "w", length = 16>}

// -----

// expected-error @+1 {{'ml_program.external_storage' is only valid on an ml_program.global initialized with #ml_program.extern}}
ml_program.global private @inline_value(dense<1.0> : tensor<4xf32>) : tensor<4xf32> {ml_program.external_storage = #ml_program.external_storage<file = "w.bin", offset = 0>}

// -----

// expected-error @+1 {{'ml_program.external_storage' must be an #ml_program.external_storage}}
ml_program.global private @wrong_kind(#ml_program.extern : tensor<4xf32>) : tensor<4xf32> {ml_program.external_storage = "w.bin"}

// -----

// expected-error @+1 {{unknown ml_program attribute 'ml_program.unknown'}}
ml_program.global private @unknown_attr(#ml_program.extern : tensor<4xf32>) : tensor<4xf32> {ml_program.unknown = 1}

// -----

// Parameterless attributes and types take no `<...>`: MLIR would drop it.
// expected-error @+1 {{unexpected parameters after '#ml_program.extern' (it takes none)}}
ml_program.global private @extern_garbage(#ml_program.extern<garbage 1 2> : tensor<4xf32>) : tensor<4xf32>

// -----

// expected-error @+1 {{unexpected parameters after '!ml_program.token' (it takes none)}}
func.func private @token_garbage(!ml_program.token<junk 3>)

// -----

// expected-error @+1 {{unknown attribute '#ml_program.nonsense'}}
ml_program.global private @unknown_attr(#ml_program.nonsense : tensor<4xf32>) : tensor<4xf32>

// -----

// expected-error @+1 {{unknown type '!ml_program.nonsense'}}
func.func private @unknown_type(!ml_program.nonsense)

// -----

// expected-error @+1 {{expected '>'}}
ml_program.global private @storage_garbage(#ml_program.extern : tensor<4xf32>) : tensor<4xf32> {ml_program.external_storage = #ml_program.external_storage<file = "a", key = "w" junk>}

// -----

// expected-error @+1 {{'ml_program.unsigned' on argument 0 of type 'tensor<4xf32>' needs a signless integer wider than 1 bit}}
ml_program.func @unsigned_float(%x: tensor<4xf32> {ml_program.unsigned}) {
  ml_program.return
}

// -----

// expected-error @+1 {{'ml_program.unsigned' on result 0 of type 'tensor<4xi1>' needs a signless integer wider than 1 bit}}
ml_program.func @unsigned_bool(%x: tensor<4xi1>) -> (tensor<4xi1> {ml_program.unsigned}) {
  ml_program.return %x : tensor<4xi1>
}

// -----

// expected-error @+1 {{'ml_program.unsigned' on argument 0 of type 'ui8' needs a signless integer wider than 1 bit}}
func.func private @unsigned_twice(ui8 {ml_program.unsigned})

// -----

// expected-error @+1 {{'ml_program.unsigned' must be a unit attribute}}
ml_program.func @unsigned_value(%x: tensor<4xi8> {ml_program.unsigned = 1 : i32}) {
  ml_program.return
}

// -----

// expected-error @+1 {{unknown ml_program argument attribute 'ml_program.signed'}}
ml_program.func @signed_marker(%x: tensor<4xi8> {ml_program.signed}) {
  ml_program.return
}
