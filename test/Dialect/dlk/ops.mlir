// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --mlir-print-op-generic | dlc-opt | FileCheck %s

// CHECK-LABEL: func @mlp_layer
func.func @mlp_layer(%x: tensor<32x784xf32>, %w: tensor<784x512xf32>, %b: tensor<512xf32>) -> tensor<32x512xf32> {
  // CHECK: dlk.kernel "contraction" schedule #dlk.schedule<tile = [64, 256, 0], vector = 16, parallel = [0]>(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<32x784xf32>, tensor<784x512xf32>, tensor<512xf32>) -> tensor<32x512xf32> {
  // CHECK: ^bb0(%{{.*}}: tensor<32x784xf32>, %{{.*}}: tensor<784x512xf32>, %{{.*}}: tensor<512xf32>):
  // CHECK:   dlg.matmul
  // CHECK:   dlg.add
  // CHECK:   dlg.relu
  // CHECK:   dlk.yield %{{.*}} : tensor<32x512xf32>
  %y = dlk.kernel "contraction" schedule #dlk.schedule<tile = [64, 256, 0], vector = 16, parallel = [0]> (%x, %w, %b)
      : (tensor<32x784xf32>, tensor<784x512xf32>, tensor<512xf32>) -> tensor<32x512xf32> {
  ^bb0(%a: tensor<32x784xf32>, %c: tensor<784x512xf32>, %d: tensor<512xf32>):
    %0 = dlg.matmul %a, %c : tensor<32x784xf32>, tensor<784x512xf32> -> tensor<32x512xf32>
    %1 = dlg.add %0, %d : tensor<32x512xf32>, tensor<512xf32> -> tensor<32x512xf32>
    %2 = dlg.relu %1 : tensor<32x512xf32>
    dlk.yield %2 : tensor<32x512xf32>
  }
  return %y : tensor<32x512xf32>
}

// CHECK-LABEL: func @two_results_no_schedule
func.func @two_results_no_schedule(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  // CHECK: %{{.*}}:2 = dlk.kernel "elementwise"(%{{.*}}) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  %r:2 = dlk.kernel "elementwise" (%x) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: tensor<8xf32>):
    %0 = dlg.exp %a : tensor<8xf32>
    %1 = dlg.neg %0 : tensor<8xf32>
    dlk.yield %0, %1 : tensor<8xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}

// Schedule fields are optional; defaults are not printed.
// CHECK-LABEL: func @schedules
func.func @schedules() attributes {
    // CHECK-SAME: a = #dlk.schedule<>
    a = #dlk.schedule<>,
    // CHECK-SAME: b = #dlk.schedule<vector = 8>
    b = #dlk.schedule<vector = 8>,
    // CHECK-SAME: c = #dlk.schedule<tile = [32, 32], parallel = [1]>
    c = #dlk.schedule<parallel = [1], tile = [32, 32], vector = 1>,
    // lanes that are no power of two, as the cost model picks for a row of
    // 100 (25) or 10 columns (5):
    // CHECK-SAME: d = #dlk.schedule<tile = [50, 0], vector = 25, parallel = [0]>
    d = #dlk.schedule<tile = [50, 0], vector = 25, parallel = [0]>} {
  return
}
