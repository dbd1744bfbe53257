// The CPU pipeline gives the same module with the context's threads as
// without (--mlir-disable-threading): its nested func.func pipelines, and
// dlc-cpu-schedule's scripts applied on the threads (dlcParallelFor), change
// the time it takes, nothing else. A conv block and an attention-like chain
// here, the MLP block of the examples, on both targets.
// RUN: dlc-opt %s --lower-to-llvm=target=avx2 --mlir-disable-threading -o %t.serial
// RUN: dlc-opt %s --lower-to-llvm=target=avx2 -o %t.threaded
// RUN: diff %t.serial %t.threaded
// RUN: FileCheck %s --input-file=%t.threaded
// RUN: dlc-opt %s --lower-to-llvm=target=avx512 --mlir-disable-threading -o %t.serial512
// RUN: dlc-opt %s --lower-to-llvm=target=avx512 -o %t.threaded512
// RUN: diff %t.serial512 %t.threaded512
// RUN: dlc-opt %dlc_src/examples/mlp_block.mlir --lower-to-llvm --mlir-disable-threading -o %t.mlp.serial
// RUN: dlc-opt %dlc_src/examples/mlp_block.mlir --lower-to-llvm -o %t.mlp.threaded
// RUN: diff %t.mlp.serial %t.mlp.threaded

// Each kernel's loop nest ends as a function of its own, in LLVM.
// CHECK-DAG: llvm.func @conv_block(
// CHECK-DAG: llvm.func @scores(
// CHECK-DAG: llvm.func {{.*}}nest
// CHECK-NOT: func.func
// CHECK-NOT: vector.transfer_read

func.func @conv_block(%x: tensor<1x16x14x14xf32>, %w: tensor<32x16x3x3xf32>, %b: tensor<32xf32>,
                      %w2: tensor<32x32x1x1xf32>) -> tensor<1x32x14x14xf32> {
  %0 = dlg.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x14x14xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x14x14xf32>
  %1 = dlg.relu %0 : tensor<1x32x14x14xf32>
  %2 = dlg.conv2d %1, %w2 : (tensor<1x32x14x14xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x14x14xf32>
  %3 = dlg.add %2, %1 : tensor<1x32x14x14xf32>, tensor<1x32x14x14xf32> -> tensor<1x32x14x14xf32>
  return %3 : tensor<1x32x14x14xf32>
}

func.func @scores(%q: tensor<64x32xf32>, %k: tensor<64x32xf32>, %v: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = dlg.matmul %q, %k {transpose_b = true} : tensor<64x32xf32>, tensor<64x32xf32> -> tensor<64x64xf32>
  %1 = dlg.softmax %0 : tensor<64x64xf32>
  %2 = dlg.matmul %1, %v : tensor<64x64xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %2 : tensor<64x32xf32>
}
