// RUN: mlprog-opt %s -split-input-file -verify-diagnostics

func.func @nul_byte() {
  // expected-error @+1 {{value must not contain a NUL byte}}
  %c = ml_program.string_constant "a\00b"
  return
}

// -----

func.func @wide_number(%x: i128) {
  // expected-error @+1 {{operand #0 must be}}
  %s = ml_program.string_from_number %x : i128
  return
}

// -----

// expected-error @+1 {{'!ml_program.string'}}
func.func @string_type_parameters(%s: !ml_program.string<4>) {
  return
}
