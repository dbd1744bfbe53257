// Every verifier error of dlg.update_row.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics

// an index that is not 0-d
func.func @f(%b: tensor<10x3xf32>, %r: tensor<3xf32>, %i: tensor<1xi64>) {
  // expected-error @+1 {{'dlg.update_row' op index must be a 0-d i64 tensor, got 'tensor<1xi64>'}}
  %0 = dlg.update_row %b[%i], %r : tensor<10x3xf32>[tensor<1xi64>], tensor<3xf32>
  return
}

// -----

// a 0-d buffer has no rows
func.func @f(%b: tensor<f32>, %r: tensor<f32>, %i: tensor<i64>) {
  // expected-error @+1 {{'dlg.update_row' op buffer must have rank 1 or more (rows along dim 0), got 'tensor<f32>'}}
  %0 = dlg.update_row %b[%i], %r : tensor<f32>[tensor<i64>], tensor<f32>
  return
}

// -----

// a row of the wrong shape
func.func @f(%b: tensor<10x3xf32>, %r: tensor<4xf32>, %i: tensor<i64>) {
  // expected-error @+1 {{'dlg.update_row' op row must be 'tensor<3xf32>' (the buffer's type without dim 0), got 'tensor<4xf32>'}}
  %0 = dlg.update_row %b[%i], %r : tensor<10x3xf32>[tensor<i64>], tensor<4xf32>
  return
}

// -----

// a row of another element type
func.func @f(%b: tensor<10x3xf32>, %r: tensor<3xi32>, %i: tensor<i64>) {
  // expected-error @+1 {{'dlg.update_row' op row must be 'tensor<3xf32>' (the buffer's type without dim 0), got 'tensor<3xi32>'}}
  %0 = dlg.update_row %b[%i], %r : tensor<10x3xf32>[tensor<i64>], tensor<3xi32>
  return
}

// -----

// an i32 index
func.func @f(%b: tensor<10x3xf32>, %r: tensor<3xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{'dlg.update_row' op operand #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<i32>'}}
  %0 = dlg.update_row %b[%i], %r : tensor<10x3xf32>[tensor<i32>], tensor<3xf32>
  return
}

// -----

// a result type other than the buffer's
func.func @f(%b: tensor<10x3xf32>, %r: tensor<3xf32>, %i: tensor<i64>) {
  // expected-error @+1 {{'dlg.update_row' op failed to verify that all of {buffer, result} have same type}}
  %0 = "dlg.update_row"(%b, %i, %r) : (tensor<10x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<9x3xf32>
  return
}
