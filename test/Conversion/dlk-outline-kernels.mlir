// RUN: dlc-opt %s --dlk-outline-kernels | FileCheck %s
// RUN: dlc-opt %s --dlk-to-linalg=outline=false | FileCheck %s --check-prefix=INLINE

// Each dlk.kernel becomes a private function @<func>_kernel<i> (i counting
// the function's kernels in order) called in its place, with the kernel's
// kind and schedule as dlk.kind / dlk.schedule; the body moves unchanged
// (here still dlg ops: outlining does not lower), dlk.yield becoming
// func.return. Each new function follows its caller.

// CHECK-LABEL: func.func @f(
// CHECK: %[[K0:.*]] = call @f_kernel0(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[K1:.*]] = call @f_kernel1(%[[K0]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: return %[[K1]] : tensor<4x16xf32>
// CHECK: func.func private @f_kernel1(%[[A:.*]]: tensor<4x16xf32>) -> tensor<4x16xf32> attributes {dlk.kind = "elementwise"}
// CHECK: %[[R:.*]] = dlg.relu %[[A]] : tensor<4x16xf32>
// CHECK: return %[[R]] : tensor<4x16xf32>
// CHECK: func.func private @f_kernel0(%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<8x16xf32>) -> tensor<4x16xf32> attributes {dlk.kind = "contraction", dlk.schedule = #dlk.schedule<tile = [4, 16, 8], vector = 8>}
// CHECK: %[[M:.*]] = dlg.matmul %[[X]], %[[Y]]
// CHECK: return %[[M]] : tensor<4x16xf32>
// CHECK-LABEL: func.func @g(
// CHECK: call @g_kernel0(%arg0)
// CHECK: func.func private @g_kernel0
// CHECK-NOT: dlk.kernel
// CHECK-NOT: dlk.yield

// Lowering without outlining keeps the kernels, their bodies lowered.
// INLINE-LABEL: func.func @f(
// INLINE: dlk.kernel "contraction"
// INLINE: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// INLINE: dlk.yield
// INLINE: dlk.kernel "elementwise"
// INLINE: arith.maximumf
// INLINE: dlk.yield
// INLINE-NOT: call @
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [4, 16, 8], vector = 8> (%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>):
    %m = dlg.matmul %x, %y : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    dlk.yield %m : tensor<4x16xf32>
  }
  %1 = dlk.kernel "elementwise" (%0) : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%z: tensor<4x16xf32>):
    %r = dlg.relu %z : tensor<4x16xf32>
    dlk.yield %r : tensor<4x16xf32>
  }
  return %1 : tensor<4x16xf32>
}

func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = dlk.kernel "elementwise" (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%z: tensor<4xf32>):
    %r = dlg.neg %z : tensor<4xf32>
    dlk.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
