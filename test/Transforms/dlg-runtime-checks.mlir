// RUN: dlc-opt --split-input-file --dlg-runtime-checks %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlg-runtime-checks --dlg-runtime-checks %s | FileCheck %s
// RUN: dlc-opt --dlg-runtime-checks=entry=no_gather %s | FileCheck %s --check-prefix=OTHER
// RUN: dlc-opt --split-input-file --dlg-runtime-checks --lower-to-llvm %s -o /dev/null
// RUN: not dlc-opt --dlg-runtime-checks=entry=nope %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPE
// NOPE: error: dlg-runtime-checks: entry 'nope' names no function with a body

// dlg-runtime-checks: each dlg.gather in an entry's body gets a test of
// its indices against [-n, n) as dlg ops; the entry returns, as its last
// result (dlc.status), 0 or the number of the failing check, and lists
// one message per check in dlc.runtime_checks. Running it twice adds
// nothing (second RUN line: the same output).

// CHECK-LABEL: func.func @main
// CHECK-SAME: -> (tensor<2x3x4xf32> {test.kept}, tensor<5x3xf32>, tensor<i32> {dlc.status})
// CHECK-SAME: dlc.runtime_checks = ["dlg.gather at {{.*}}dlg-runtime-checks.mlir:{{[0-9]+}}:8: an index given at run time is outside [-5, 5), the range of axis 0 of its data", "dlg.gather at 'emb': an index given at run time is outside [-4, 4), the range of axis 1 of its data"]
// The first gather: i64 indices against -5 and 5, code 1.
// CHECK:      %[[LO:.*]] = dlg.constant dense<-5> : tensor<i64>
// CHECK-NEXT: %[[BELOW:.*]] = dlg.less %arg1, %[[LO]]
// CHECK-NEXT: %[[HI:.*]] = dlg.constant dense<5> : tensor<i64>
// CHECK-NEXT: %[[ABOVE:.*]] = dlg.greater_equal %arg1, %[[HI]]
// CHECK-NEXT: %[[ONE:.*]] = dlg.constant dense<1> : tensor<i32>
// CHECK-NEXT: %[[ZERO:.*]] = dlg.constant dense<0> : tensor<i32>
// CHECK-NEXT: %[[C1:.*]] = dlg.where %[[BELOW]], %[[ONE]], %[[ZERO]]
// CHECK-NEXT: %[[C2:.*]] = dlg.where %[[ABOVE]], %[[ONE]], %[[C1]]
// CHECK-NEXT: %[[R1:.*]] = dlg.reduce_max %[[C2]] : tensor<2x3xi32> -> tensor<i32>
// No indices at all would give the lowest i32: 0 instead.
// CHECK-NEXT: %[[S1:.*]] = dlg.max %[[R1]], %[[ZERO]]
// CHECK-NEXT: %[[G1:.*]] = dlg.gather %arg0[%arg1]
// The second: i32 indices along axis 1 (4 columns), code 2.
// CHECK:      dlg.constant dense<-4> : tensor<i32>
// CHECK:      dlg.constant dense<2> : tensor<i32>
// CHECK:      dlg.reduce_max %{{.*}} : tensor<3xi32> -> tensor<i32>
// CHECK-NEXT: %[[S2:.*]] = dlg.max
// CHECK-NEXT: %[[G2:.*]] = dlg.gather %arg0[%arg2] {axis = 1 : i64}
// The status: the first code that is not 0 (program order), else 0.
// CHECK-NEXT: %[[Z:.*]] = dlg.constant dense<0> : tensor<i32>
// CHECK-NEXT: %[[SET:.*]] = dlg.not_equal %[[S1]], %[[Z]]
// CHECK-NEXT: %[[M:.*]] = dlg.where %[[SET]], %[[S1]], %[[S2]]
// CHECK-NEXT: return %[[G1]], %[[G2]], %[[M]]
// Only the entry named by entry= is checked (the file as one module).
// OTHER-LABEL: func.func @main
// OTHER-SAME: -> (tensor<2x3x4xf32> {test.kept}, tensor<5x3xf32>) {
// OTHER-NOT: dlg.less
// OTHER-NOT: dlc.status
func.func @main(%t: tensor<5x4xf32>, %i: tensor<2x3xi64>, %j: tensor<3xi32>) -> (tensor<2x3x4xf32> {test.kept}, tensor<5x3xf32>) {
  %0 = dlg.gather %t[%i] : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %1 = dlg.gather %t[%j] {axis = 1 : i64} : (tensor<5x4xf32>, tensor<3xi32>) -> tensor<5x3xf32> loc("emb")
  return %0, %1 : tensor<2x3x4xf32>, tensor<5x3xf32>
}

// -----

// Indices of a dynamic shape are checked too; a function without gathers,
// and a private one, keep their results.
// CHECK-LABEL: func.func @dynamic_ids
// CHECK-SAME: -> (tensor<?x6xf32>, tensor<i32> {dlc.status})
// CHECK: dlg.reduce_max %{{.*}} : tensor<?xi32> -> tensor<i32>
// CHECK-NEXT: %[[ONLY:.*]] = dlg.max
// CHECK: return %{{.*}}, %[[ONLY]]
// CHECK-LABEL: func.func @no_gather
// CHECK-SAME: -> tensor<4xf32> {
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: -> tensor<2x6xf32> {
// CHECK-NOT: dlg.less
func.func @dynamic_ids(%t: tensor<4x6xf32>, %i: tensor<?xi64>) -> tensor<?x6xf32> {
  %0 = dlg.gather %t[%i] : (tensor<4x6xf32>, tensor<?xi64>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}
func.func @no_gather(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = dlg.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @helper(%t: tensor<4x6xf32>, %i: tensor<2xi64>) -> tensor<2x6xf32> {
  %0 = dlg.gather %t[%i] : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}
// OTHER-LABEL: func.func @dynamic_ids
// OTHER-SAME: -> tensor<?x6xf32> {
// OTHER-NOT: dlc.status

// -----

// A verdict the ONNX importer built (GatherElements, GatherND, ...): a 0-d
// i32 whose op carries the message as dlc.check, nonzero when an index is
// out, dead code until this pass returns it as code 1 (where(v > 0, 1, 0)).
// CHECK-LABEL: func.func @imported
// CHECK-SAME: -> (tensor<3x2xf32>, tensor<i32> {dlc.status})
// CHECK-SAME: dlc.runtime_checks = ["GatherElements 'ge': an index given at run time is outside [-4, 4), the range of axis 1 of its data"]
// CHECK:      %[[V:.*]] = dlg.max %{{.*}}, %{{.*}} {dlc.check = "GatherElements 'ge'
// CHECK-NEXT: %[[Z:.*]] = dlg.constant dense<0> : tensor<i32>
// CHECK-NEXT: %[[OUT:.*]] = dlg.greater %[[V]], %[[Z]]
// CHECK-NEXT: %[[K:.*]] = dlg.constant dense<1> : tensor<i32>
// CHECK-NEXT: %[[Z2:.*]] = dlg.constant dense<0> : tensor<i32>
// CHECK-NEXT: %[[CODE:.*]] = dlg.where %[[OUT]], %[[K]], %[[Z2]]
// CHECK: return %{{.*}}, %[[CODE]]
func.func @imported(%x: tensor<3x2xf32>, %v: tensor<i32>) -> tensor<3x2xf32> {
  %z = dlg.constant dense<0> : tensor<i32>
  %c = dlg.max %v, %z {dlc.check = "GatherElements 'ge': an index given at run time is outside [-4, 4), the range of axis 1 of its data"} : tensor<i32>, tensor<i32> -> tensor<i32>
  %y = dlg.relu %x : tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// An axis longer than INT32_MAX: no i32 index can leave [-n, n) (and -n
// would not fit i32), so i32 indices get no check; i64 ones still do.
// CHECK-LABEL: func.func @huge_axis
// CHECK-SAME: -> (tensor<2x1xf32>, tensor<2x1xf32>, tensor<i32> {dlc.status})
// CHECK-SAME: dlc.runtime_checks = ["dlg.gather at {{.*}}: an index given at run time is outside [-3000000000, 3000000000), the range of axis 0 of its data"]
// CHECK-NOT: dense<-3000000000> : tensor<i32>
func.func @huge_axis(%t: tensor<3000000000x1xf32>, %i: tensor<2xi32>, %j: tensor<2xi64>) -> (tensor<2x1xf32>, tensor<2x1xf32>) {
  %0 = dlg.gather %t[%i] : (tensor<3000000000x1xf32>, tensor<2xi32>) -> tensor<2x1xf32>
  %1 = dlg.gather %t[%j] : (tensor<3000000000x1xf32>, tensor<2xi64>) -> tensor<2x1xf32>
  return %0, %1 : tensor<2x1xf32>, tensor<2x1xf32>
}
