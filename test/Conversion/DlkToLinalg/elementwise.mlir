// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlk-to-linalg | FileCheck %s --check-prefix=ERF

// Every elementwise dlg op becomes one linalg.generic over the result's
// dims, all loops parallel, NumPy broadcasting in the operands' indexing
// maps, and the op's scalar meaning in the body.

// CHECK-LABEL: func.func @neg
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.negf
// CHECK: linalg.yield
func.func @neg(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.neg %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @abs
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.absf
// CHECK: linalg.yield
func.func @abs(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.abs %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @exp
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.exp
// CHECK: linalg.yield
func.func @exp(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.exp %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @log
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.log
// CHECK: linalg.yield
func.func @log(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.log %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @sqrt
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.sqrt
// CHECK: linalg.yield
func.func @sqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.sqrt %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @rsqrt
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.rsqrt
// CHECK: linalg.yield
func.func @rsqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.rsqrt %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @tanh
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.tanh
// CHECK: linalg.yield
func.func @tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.tanh %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @sigmoid
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: linalg.yield
func.func @sigmoid(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.sigmoid %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @relu
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.constant 0.0
// CHECK: arith.maximumf
// CHECK: linalg.yield
func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.relu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @silu
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.mulf
// CHECK: linalg.yield
func.func @silu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.silu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// erf is two Horner chains of fused multiply-adds (mulf + addf marked
// contract): |x| < 1: x + x P(x^2), P of degree 5; else copysign(Q(min(|x|,
// 3.84) - 2.42), x), Q of degree 12; a select picks. No divide, no exp, no
// libm call anywhere in the body.
// CHECK-LABEL: func.func @erf
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NOT: {{arith.divf|math.exp|math.erf|math.fma}}
// CHECK: linalg.yield
// ERF-LABEL: func.func @erf
// ERF: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// ERF-NEXT: %[[A:.*]] = math.absf %[[IN]] : f32
// ERF-NEXT: %[[U:.*]] = arith.mulf %[[IN]], %[[IN]] : f32
// ERF-COUNT-5: arith.mulf %{{.*}}, %[[U]] fastmath<contract> : f32{{[[:space:]].*}}arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// ERF-NEXT: %[[XP:.*]] = arith.mulf %[[IN]], %{{.*}} fastmath<contract> : f32
// ERF-NEXT: %[[S:.*]] = arith.addf %[[XP]], %[[IN]] fastmath<contract> : f32
// ERF-NEXT: %[[C:.*]] = arith.constant 3.840000e+00 : f32
// ERF-NEXT: %[[OVER:.*]] = arith.cmpf ogt, %[[A]], %[[C]] : f32
// ERF-NEXT: %[[AC:.*]] = arith.select %[[OVER]], %[[C]], %[[A]] : f32
// ERF-NEXT: %[[M:.*]] = arith.constant 2.420000e+00 : f32
// ERF-NEXT: %[[T:.*]] = arith.subf %[[AC]], %[[M]] : f32
// ERF-COUNT-12: arith.mulf %{{.*}}, %[[T]] fastmath<contract> : f32{{[[:space:]].*}}arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// ERF-NEXT: %[[L:.*]] = math.copysign %{{.*}}, %[[IN]] : f32
// ERF-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// ERF-NEXT: %[[SMALL:.*]] = arith.cmpf olt, %[[A]], %[[ONE]] : f32
// ERF-NEXT: %[[Y:.*]] = arith.select %[[SMALL]], %[[S]], %[[L]] : f32
// ERF-NEXT: linalg.yield %[[Y]] : f32
func.func @erf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.erf %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Exact GELU: x/2 + x/2 erf(x / sqrt 2), the same erf, the last step fused.
// CHECK-LABEL: func.func @gelu
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NOT: {{arith.divf|math.exp|math.erf|math.fma}}
// CHECK: linalg.yield
// ERF-LABEL: func.func @gelu
// ERF: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// ERF: %[[Z:.*]] = arith.mulf %[[IN]], %{{.*}} : f32
// ERF-NEXT: math.absf %[[Z]] : f32
// ERF: math.copysign
// ERF: arith.cmpf olt
// ERF-NEXT: %[[E:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// ERF-NEXT: %[[HALF_C:.*]] = arith.constant 5.000000e-01 : f32
// ERF-NEXT: %[[HALF:.*]] = arith.mulf %[[IN]], %[[HALF_C]] : f32
// ERF-NEXT: %[[P:.*]] = arith.mulf %[[HALF]], %[[E]] fastmath<contract> : f32
// ERF-NEXT: %[[R:.*]] = arith.addf %[[P]], %[[HALF]] fastmath<contract> : f32
// ERF-NEXT: linalg.yield %[[R]] : f32
func.func @gelu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.gelu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @sin
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.sin
// CHECK: linalg.yield
func.func @sin(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.sin %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @cos
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.cos
// CHECK: linalg.yield
func.func @cos(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.cos %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @tan
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.tan
// CHECK: linalg.yield
func.func @tan(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.tan %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @asin
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.asin
// CHECK: linalg.yield
func.func @asin(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.asin %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @acos
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.acos
// CHECK: linalg.yield
func.func @acos(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.acos %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @atan
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.atan
// CHECK: linalg.yield
func.func @atan(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.atan %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @sinh
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.sinh
// CHECK: linalg.yield
func.func @sinh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.sinh %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @cosh
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.cosh
// CHECK: linalg.yield
func.func @cosh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.cosh %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @asinh
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.asinh
// CHECK: linalg.yield
func.func @asinh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.asinh %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @acosh
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.acosh
// CHECK: linalg.yield
func.func @acosh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.acosh %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @atanh
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: math.atanh
// CHECK: linalg.yield
func.func @atanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.atanh %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.addf %[[A]], %[[B]] : f32
func.func @add(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.add %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @sub
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.subf %[[A]], %[[B]] : f32
func.func @sub(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.sub %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @mul
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.mulf %[[A]], %[[B]] : f32
func.func @mul(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.mul %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @div
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.divf %[[A]], %[[B]] : f32
func.func @div(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.div %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @max
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.maximumf %[[A]], %[[B]] : f32
func.func @max(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.max %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @min
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.minimumf %[[A]], %[[B]] : f32
func.func @min(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.min %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @pow
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: math.powf %[[A]], %[[B]] : f32
func.func @pow(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.pow %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// dlg.fmod is C's fmod: arith.remf on floats, arith.remsi on integers.
// CHECK-LABEL: func.func @fmod
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.remf %[[A]], %[[B]] : f32
// CHECK-LABEL: func.func @fmod_i32
// CHECK: ^bb0(%[[C:.*]]: i32, %[[D:.*]]: i32, %{{.*}}: i32):
// CHECK: arith.remsi %[[C]], %[[D]] : i32
func.func @fmod(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.fmod %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
func.func @fmod_i32(%x: tensor<4x8xi32>, %y: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = dlg.fmod %x, %y : tensor<4x8xi32>, tensor<4x8xi32> -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @equal
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x1xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xi1>)
// CHECK: arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.yield %{{.*}} : i1
func.func @equal(%x: tensor<4x1xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xi1> {
  %0 = dlg.equal %x, %y : tensor<4x1xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
  return %0 : tensor<4x8xi1>
}

// -----

// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @not_equal
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x1xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xi1>)
// CHECK: arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.yield %{{.*}} : i1
func.func @not_equal(%x: tensor<4x1xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xi1> {
  %0 = dlg.not_equal %x, %y : tensor<4x1xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
  return %0 : tensor<4x8xi1>
}

// -----

// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @less
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x1xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xi1>)
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.yield %{{.*}} : i1
func.func @less(%x: tensor<4x1xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xi1> {
  %0 = dlg.less %x, %y : tensor<4x1xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
  return %0 : tensor<4x8xi1>
}

// -----

// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @less_equal
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x1xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xi1>)
// CHECK: arith.cmpf ole, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.yield %{{.*}} : i1
func.func @less_equal(%x: tensor<4x1xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xi1> {
  %0 = dlg.less_equal %x, %y : tensor<4x1xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
  return %0 : tensor<4x8xi1>
}

// -----

// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @greater
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x1xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xi1>)
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.yield %{{.*}} : i1
func.func @greater(%x: tensor<4x1xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xi1> {
  %0 = dlg.greater %x, %y : tensor<4x1xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
  return %0 : tensor<4x8xi1>
}

// -----

// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @greater_equal
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x1xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xi1>)
// CHECK: arith.cmpf oge, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.yield %{{.*}} : i1
func.func @greater_equal(%x: tensor<4x1xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xi1> {
  %0 = dlg.greater_equal %x, %y : tensor<4x1xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
  return %0 : tensor<4x8xi1>
}

// -----

// CHECK-LABEL: func.func @add_i32
// CHECK: linalg.generic
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
func.func @add_i32(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %0 = dlg.add %x, %y : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @greater_i64
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW]], #{{.*}}]
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
func.func @greater_i64(%x: tensor<3x1xi64>, %y: tensor<5xi64>) -> tensor<3x5xi1> {
  %0 = dlg.greater %x, %y : tensor<3x1xi64>, tensor<5xi64> -> tensor<3x5xi1>
  return %0 : tensor<3x5xi1>
}

// -----

// CHECK-LABEL: func.func @clamp
// CHECK: linalg.generic
// CHECK: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[M:.*]] = arith.maximumf %{{.*}}, %[[LO]] : f32
// CHECK: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: arith.minimumf %[[M]], %[[HI]] : f32
func.func @clamp(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.clamp %x {min = 0.0, max = 6.0} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @where
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW]], #[[SCALAR]], #{{.*}}]
// CHECK: ^bb0(%[[C:.*]]: i1, %[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.select %[[C]], %[[A]], %[[B]] : f32
func.func @where(%m: tensor<4x1xi1>, %a: tensor<8xf32>, %b: tensor<f32>) -> tensor<4x8xf32> {
  %0 = dlg.where %m, %a, %b : tensor<4x1xi1>, tensor<8xf32>, tensor<f32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @cast
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<8xf16>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
func.func @cast(%x: tensor<8xf16>) -> tensor<8xf32> {
  %0 = dlg.cast %x : tensor<8xf16> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
