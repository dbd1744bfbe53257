// A #dlk.schedule that cannot tile its kernel statically is an error at the kernel.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(dlk-to-linalg,dlc-cpu-schedule{vector-width=8})' -o /dev/null

func.func @not_dividing(%a: tensor<30x16xf32>, %b: tensor<16x128xf32>) -> tensor<30x128xf32> {
  // expected-error @+1 {{#dlk.schedule does not fit the kernel's root loops: it needs one tile per loop, each 0 or dividing the loop's extent; the root's loops are [30, 128, 16]}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [16, 64, 0], vector = 8, parallel = [0, 1]> (%a, %b) : (tensor<30x16xf32>, tensor<16x128xf32>) -> tensor<30x128xf32> {
  ^bb0(%x: tensor<30x16xf32>, %y: tensor<16x128xf32>):
    %m = dlg.matmul %x, %y : tensor<30x16xf32>, tensor<16x128xf32> -> tensor<30x128xf32>
    dlk.yield %m : tensor<30x128xf32>
  }
  return %0 : tensor<30x128xf32>
}

// -----

func.func @wrong_rank(%a: tensor<32x16xf32>, %b: tensor<16x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{#dlk.schedule does not fit the kernel's root loops}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [16, 64], vector = 8> (%a, %b) : (tensor<32x16xf32>, tensor<16x128xf32>) -> tensor<32x128xf32> {
  ^bb0(%x: tensor<32x16xf32>, %y: tensor<16x128xf32>):
    %m = dlg.matmul %x, %y : tensor<32x16xf32>, tensor<16x128xf32> -> tensor<32x128xf32>
    dlk.yield %m : tensor<32x128xf32>
  }
  return %0 : tensor<32x128xf32>
}

// -----

func.func @register_too_wide(%a: tensor<32x16xf32>, %b: tensor<16x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{#dlk.schedule register tile does not fit: MR must not exceed the M tile and NR must divide the N tile of a contraction on packed panels, or not exceed it}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [16, 64, 0], vector = 8, register = [4, 128], parallel = [0, 1]> (%a, %b) : (tensor<32x16xf32>, tensor<16x128xf32>) -> tensor<32x128xf32> {
  ^bb0(%x: tensor<32x16xf32>, %y: tensor<16x128xf32>):
    %m = dlg.matmul %x, %y : tensor<32x16xf32>, tensor<16x128xf32> -> tensor<32x128xf32>
    dlk.yield %m : tensor<32x128xf32>
  }
  return %0 : tensor<32x128xf32>
}

// -----

// A dot-product GEMM (transpose_b, few rows; cpu-schedule-dot.mlir): MR
// must divide the rows, as the dot tiles split off no rows.
func.func @dot_rows(%a: tensor<4x64xf32>, %b: tensor<128x64xf32>) -> tensor<4x128xf32> {
  // expected-error @+1 {{#dlk.schedule does not fit this dot-product GEMM: MR must divide the M tile, NR must not exceed the N tile, and the vector width must divide K}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [0, 0, 0], vector = 8, register = [3, 8]> (%a, %b) : (tensor<4x64xf32>, tensor<128x64xf32>) -> tensor<4x128xf32> {
  ^bb0(%x: tensor<4x64xf32>, %y: tensor<128x64xf32>):
    %m = dlg.matmul %x, %y {transpose_b = true} : tensor<4x64xf32>, tensor<128x64xf32> -> tensor<4x128xf32>
    dlk.yield %m : tensor<4x128xf32>
  }
  return %0 : tensor<4x128xf32>
}

// -----

func.func @dot_vector(%a: tensor<4x60xf32>, %b: tensor<128x60xf32>) -> tensor<4x128xf32> {
  // expected-error @+1 {{#dlk.schedule does not fit this dot-product GEMM}}
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [0, 0, 0], vector = 8, register = [4, 2]> (%a, %b) : (tensor<4x60xf32>, tensor<128x60xf32>) -> tensor<4x128xf32> {
  ^bb0(%x: tensor<4x60xf32>, %y: tensor<128x60xf32>):
    %m = dlg.matmul %x, %y {transpose_b = true} : tensor<4x60xf32>, tensor<128x60xf32> -> tensor<4x128xf32>
    dlk.yield %m : tensor<4x128xf32>
  }
  return %0 : tensor<4x128xf32>
}
