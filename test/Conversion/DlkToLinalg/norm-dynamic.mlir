// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s

// A dynamic batch dim: the row statistics and the result take it from x.

// CHECK-LABEL: func.func @softmax
// CHECK: %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x5xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<?xf32>)
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
// CHECK: linalg.map ins(%{{.*}} : tensor<?xf32>) outs(%{{.*}} : tensor<?xf32>)
// CHECK: %[[D2:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x5xf32>
// CHECK: tensor.empty(%[[D2]]) : tensor<?x5xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
func.func @softmax(%x: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %0 = dlg.softmax %x : tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// CHECK-LABEL: func.func @log_softmax
// CHECK: tensor.dim %arg0
// CHECK: linalg.map { math.log } ins(%{{.*}} : tensor<?xf32>)
// CHECK: tensor.empty(%{{.*}}) : tensor<?x5xf32>
func.func @log_softmax(%x: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %0 = dlg.log_softmax %x : tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: linalg.map ins(%{{.*}} : tensor<?xf32>)
// CHECK: linalg.map ins(%{{.*}} : tensor<?xf32>)
// CHECK: math.rsqrt
// CHECK: tensor.empty(%{{.*}}) : tensor<?x16xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%arg0, %{{.*}}, %{{.*}}, %arg1 : tensor<?x16xf32>, tensor<?xf32>, tensor<?xf32>, tensor<16xf32>)
func.func @layer_norm(%x: tensor<?x16xf32>, %g: tensor<16xf32>) -> tensor<?x16xf32> {
  %0 = dlg.layer_norm %x gamma %g : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// CHECK-LABEL: func.func @rms_norm
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK: linalg.map ins(%{{.*}} : tensor<?xf32>)
// CHECK: math.rsqrt
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<?x16xf32>, tensor<?xf32>) outs(%{{.*}} : tensor<?x16xf32>)
func.func @rms_norm(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = dlg.rms_norm %x : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// CHECK-LABEL: func.func @batch_norm
// CHECK: %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x4x3x3xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x4x3x3xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: math.rsqrt
func.func @batch_norm(%x: tensor<?x4x3x3xf32>, %c: tensor<4xf32>) -> tensor<?x4x3x3xf32> {
  %0 = dlg.batch_norm %x, %c, %c, %c, %c : (tensor<?x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x3x3xf32>
  return %0 : tensor<?x4x3x3xf32>
}
