// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlk-to-linalg
// RUN: not dlc-opt %s --split-input-file --lower-to-nvvm 2>&1 | FileCheck %s --check-prefix=NVVM

// The loops of dlg.non_max_suppression run on the host: the GPU pipeline
// (host-loops=false) refuses the op by name.
// NVVM: error: dlk-to-linalg: 'dlg.non_max_suppression' (its loops run on the host) is not supported by this pipeline (host-loops=false: the GPU pipeline)

// Dynamic shapes: the padded size and the loops' bounds would be run-time
// values; refused by name (the ONNX importer compiles per input shape).
func.func @dynamic(%b: tensor<1x?x4xf32>, %s: tensor<1x1x?xf32>) -> (tensor<?x3xi64>, tensor<i64>) {
  // expected-error @+1 {{dlk-to-linalg: 'dlg.non_max_suppression' needs static shapes (boxes and scores have a dynamic dim)}}
  %sel, %n = dlg.non_max_suppression %b, %s {max_output_boxes_per_class = 2 : i64} : tensor<1x?x4xf32>, tensor<1x1x?xf32> -> tensor<?x3xi64>, tensor<i64>
  return %sel, %n : tensor<?x3xi64>, tensor<i64>
}

// -----

func.func @gpu(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) -> (tensor<2x3xi64>, tensor<i64>) {
  %sel, %n = dlg.non_max_suppression %b, %s {max_output_boxes_per_class = 2 : i64} : tensor<1x6x4xf32>, tensor<1x1x6xf32> -> tensor<2x3xi64>, tensor<i64>
  return %sel, %n : tensor<2x3xi64>, tensor<i64>
}

// -----

// A function of the module already has the name of the op's loops: named,
// never called in their place.
func.func private @dlc_nms_1x1x6_k2_corner_iou00000000_all(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) -> (tensor<2x3xi64>, tensor<i64>)

func.func @clash(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) -> (tensor<2x3xi64>, tensor<i64>) {
  // expected-error @+1 {{dlk-to-linalg: the module already has a symbol @dlc_nms_1x1x6_k2_corner_iou00000000_all, the name of this op's loops}}
  %sel, %n = dlg.non_max_suppression %b, %s {max_output_boxes_per_class = 2 : i64} : tensor<1x6x4xf32>, tensor<1x1x6xf32> -> tensor<2x3xi64>, tensor<i64>
  return %sel, %n : tensor<2x3xi64>, tensor<i64>
}
