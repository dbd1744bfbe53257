// RUN: dlc-opt %s --dlk-to-linalg | FileCheck %s
// RUN: dlc-opt %s --lower-to-llvm -o /dev/null

// dlg.non_zero becomes a call of a private function of loops on tensors,
// one per input type (two equal ops share one); the pipeline's `inline`
// pass puts the loops back before bufferization (the second RUN line
// lowers it all the way).

// CHECK-LABEL: func.func @three
// CHECK: %[[A:.*]]:2 = call @[[F:dlc_nonzero_2x3xf32]](%arg0) : (tensor<2x3xf32>) -> (tensor<2x6xi64>, tensor<i64>)
// CHECK: %[[B:.*]]:2 = call @[[F]](%arg0)
// CHECK: %[[C:.*]]:2 = call @dlc_nonzero_4xi1(%arg1) : (tensor<4xi1>) -> (tensor<1x4xi64>, tensor<i64>)
// CHECK: %[[D:.*]]:2 = call @dlc_nonzero_3x1x2xi8(%arg2) : (tensor<3x1x2xi8>) -> (tensor<3x6xi64>, tensor<i64>)
// CHECK: return %[[A]]#0, %[[A]]#1, %[[B]]#0, %[[C]]#0, %[[D]]#0

// The padding is -1; one loop over the elements with the count carried;
// the linear index split by the static dims, the last fastest; a float
// is nonzero when unordered-or-unequal to 0.0 (NaN yes, -0.0 no); its
// index goes in column `count`, one row per dim.
// CHECK-LABEL: func.func private @dlc_nonzero_2x3xf32
// CHECK: linalg.fill ins(%c-1_i64 : i64) outs(%{{.*}} : tensor<2x6xi64>)
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c1 iter_args(%{{.*}} = %{{.*}}, %[[K:.*]] = %c0) -> (tensor<2x6xi64>, index)
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[X1:.*]] = arith.remui %{{.*}}, %[[C3]] : index
// CHECK: %[[T1:.*]] = arith.divui %{{.*}}, %[[C3]] : index
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[X0:.*]] = arith.remui %[[T1]], %[[C2]] : index
// CHECK: %[[V:.*]] = tensor.extract %arg0[%[[X0]], %[[X1]]] : tensor<2x3xf32>
// CHECK: %[[NZ:.*]] = arith.cmpf une, %[[V]], %{{.*}} : f32
// CHECK: scf.if %[[NZ]] -> (tensor<2x6xi64>, index)
// CHECK: %[[Y0:.*]] = arith.index_cast %[[X0]] : index to i64
// CHECK: tensor.insert %[[Y0]] into %{{.*}}[%{{.*}}, %[[K]]] : tensor<2x6xi64>
// CHECK: %[[Y1:.*]] = arith.index_cast %[[X1]] : index to i64
// CHECK: tensor.insert %[[Y1]] into %{{.*}}[%{{.*}}, %[[K]]] : tensor<2x6xi64>
// CHECK: arith.addi %[[K]], %c1 : index
// CHECK: tensor.from_elements %{{.*}} : tensor<i64>

// Booleans and integers: unequal to 0.
// CHECK-LABEL: func.func private @dlc_nonzero_4xi1
// CHECK: arith.cmpi ne, %{{.*}}, %false : i1
// CHECK-LABEL: func.func private @dlc_nonzero_3x1x2xi8
// CHECK: arith.cmpi ne, %{{.*}}, %c0_i8 : i8
func.func @three(%x: tensor<2x3xf32>, %m: tensor<4xi1>, %q: tensor<3x1x2xi8>) -> (tensor<2x6xi64>, tensor<i64>, tensor<2x6xi64>, tensor<1x4xi64>, tensor<3x6xi64>) {
  %i, %n = dlg.non_zero %x : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
  %j, %o = dlg.non_zero %x : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
  %k, %p = dlg.non_zero %m : tensor<4xi1> -> tensor<1x4xi64>, tensor<i64>
  %l, %r = dlg.non_zero %q : tensor<3x1x2xi8> -> tensor<3x6xi64>, tensor<i64>
  return %i, %n, %j, %k, %l : tensor<2x6xi64>, tensor<i64>, tensor<2x6xi64>, tensor<1x4xi64>, tensor<3x6xi64>
}
