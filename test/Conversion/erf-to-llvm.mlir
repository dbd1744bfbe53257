// Exact GELU fused as the epilogue of a GEMM, down to LLVM IR: its erf's 19
// multiply-adds (mulf + addf marked contract in scalar.c, so that LLVM makes
// one FMA of each) keep the contract flag through fusion, vectorisation and
// the LLVM conversion, and nothing divides, calls exp or erf, or expands to
// a libm call.
// RUN: dlc-opt %s --dlg-fuse --lower-to-llvm=target=avx512 | mlir-translate --mlir-to-llvmir | FileCheck %s

// CHECK-LABEL: define void @ffn(
// CHECK-NOT: {{fdiv|@llvm.exp|@erf|@exp|@llvm.fma}}
// CHECK-COUNT-19: fadd contract <{{[0-9]+}} x float>
// CHECK-NOT: {{fdiv|@llvm.exp|@erf|@exp|@llvm.fma|fadd contract}}
// CHECK: ret void
func.func @ffn(%x: tensor<32x64xf32>, %w: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<32x128xf32> {
  %0 = dlg.matmul %x, %w : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  %1 = dlg.add %0, %b : tensor<32x128xf32>, tensor<128xf32> -> tensor<32x128xf32>
  %2 = dlg.gelu %1 : tensor<32x128xf32>
  return %2 : tensor<32x128xf32>
}
