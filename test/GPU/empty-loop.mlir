// A contraction over K = 0 is its initial value. Its empty loop has
// nothing to tile, and transform.structured tiling divides by the extent
// (SEGV in linalg::computeTileSizes, found on the CPU by an ONNX mutation
// campaign, the GPU's schedule alike): the shared schedule driver
// (passes/schedule/driver.c) leaves such an op a plain loop nest.
// RUN: dlc-opt %s --lower-to-nvvm=stop-after=schedule | FileCheck %s
// RUN: dlc-opt %s --lower-to-nvvm=format=isa | FileCheck %s --check-prefix=PTX
// CHECK-LABEL: func.func private @main_kernel0
// CHECK-NOT: scf.forall
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<1x0xf32>, tensor<0x3xf32>)
// PTX: .entry main_kernel
func.func @main(%a: tensor<1x0xf32>, %b: tensor<0x3xf32>) -> tensor<1x3xf32> {
  %0 = dlg.matmul %a, %b : tensor<1x0xf32>, tensor<0x3xf32> -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}
