// A row kernel's lane tile (the thread tile of the row's innermost loop:
// extent / tile lanes a row) that the row strategy cannot run is an error
// at the kernel's function.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(dlk-to-linalg{pack=false},dlc-gpu-schedule)' -o /dev/null

func.func @lanes_not_power_of_two(%a: tensor<8x96xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{#dlk.schedule thread tile 32 of a row's innermost loop (extent 96) gives 3 lanes a row; lanes must be a power of two up to 1024 dividing the extent}}
  %0 = dlk.kernel "reduction" schedule #dlk.schedule<workgroup = [8, 0], thread = [1, 32]> (%a) : (tensor<8x96xf32>) -> tensor<8xf32> {
  ^bb0(%x: tensor<8x96xf32>):
    %r = dlg.reduce_sum %x {axes = array<i64: 1>} : tensor<8x96xf32> -> tensor<8xf32>
    dlk.yield %r : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

func.func @lanes_over_a_block(%a: tensor<2x4096xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{#dlk.schedule thread tile 2 of a row's innermost loop (extent 4096) gives 2048 lanes a row; lanes must be a power of two up to 1024 dividing the extent}}
  %0 = dlk.kernel "reduction" schedule #dlk.schedule<workgroup = [1, 0], thread = [1, 2]> (%a) : (tensor<2x4096xf32>) -> tensor<2xf32> {
  ^bb0(%x: tensor<2x4096xf32>):
    %r = dlg.reduce_sum %x {axes = array<i64: 1>} : tensor<2x4096xf32> -> tensor<2xf32>
    dlk.yield %r : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

func.func @block_rows_with_two_rows(%a: tensor<8x4096xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{#dlk.schedule gives 64 lanes a row, more than a warp: the block must hold one row (its 128 threads are 2 rows)}}
  %0 = dlk.kernel "reduction" schedule #dlk.schedule<workgroup = [2, 0], thread = [1, 64]> (%a) : (tensor<8x4096xf32>) -> tensor<8xf32> {
  ^bb0(%x: tensor<8x4096xf32>):
    %r = dlg.reduce_sum %x {axes = array<i64: 1>} : tensor<8x4096xf32> -> tensor<8xf32>
    dlk.yield %r : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}
