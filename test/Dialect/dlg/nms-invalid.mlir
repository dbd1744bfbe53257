// Every verifier error of dlg.non_max_suppression: its shape rule
// (dialects/shape/nms.c), its attribute checks (DlgNms.cpp) and the ODS
// type constraints.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics

func.func @f(%b: tensor<6x4xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op boxes must be [batch, num_boxes, 4], got rank 2}}
  %sel, %n = dlg.non_max_suppression %b, %s : tensor<6x4xf32>, tensor<1x1x6xf32> -> tensor<0x3xi64>, tensor<i64>
  return
}

// -----

func.func @f(%b: tensor<1x6x4xf32>, %s: tensor<1x6xf32>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op scores must be [batch, num_classes, num_boxes], got rank 2}}
  %sel, %n = dlg.non_max_suppression %b, %s : tensor<1x6x4xf32>, tensor<1x6xf32> -> tensor<0x3xi64>, tensor<i64>
  return
}

// -----

func.func @f(%b: tensor<1x6x5xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op boxes dim 2 must be 4 (a box's coordinates), got 5}}
  %sel, %n = dlg.non_max_suppression %b, %s : tensor<1x6x5xf32>, tensor<1x1x6xf32> -> tensor<0x3xi64>, tensor<i64>
  return
}

// -----

func.func @f(%b: tensor<2x6x4xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op batch sizes differ: boxes has 2 (dim 0), scores has 1 (dim 0)}}
  %sel, %n = dlg.non_max_suppression %b, %s : tensor<2x6x4xf32>, tensor<1x1x6xf32> -> tensor<0x3xi64>, tensor<i64>
  return
}

// -----

func.func @f(%b: tensor<1x6x4xf32>, %s: tensor<1x1x7xf32>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op box counts differ: boxes has 6 (dim 1), scores has 7 (dim 2)}}
  %sel, %n = dlg.non_max_suppression %b, %s : tensor<1x6x4xf32>, tensor<1x1x7xf32> -> tensor<0x3xi64>, tensor<i64>
  return
}

// -----

func.func @f(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op 'max_output_boxes_per_class' must not be negative, got -1}}
  %sel, %n = dlg.non_max_suppression %b, %s {max_output_boxes_per_class = -1 : i64} : tensor<1x6x4xf32>, tensor<1x1x6xf32> -> tensor<0x3xi64>, tensor<i64>
  return
}

// -----

// The padded size overflows: 1 x 4 x 2^58 rows of 24 bytes.
func.func @f(%b: tensor<1x288230376151711744x4xf32>, %s: tensor<1x4x288230376151711744xf32>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op the padded result (1 x 4 x 288230376151711744 rows of 3 i64) has more than 9223372036854775807 bytes}}
  %sel, %n = dlg.non_max_suppression %b, %s {max_output_boxes_per_class = 288230376151711744 : i64} : tensor<1x288230376151711744x4xf32>, tensor<1x4x288230376151711744xf32> -> tensor<?x3xi64>, tensor<i64>
  return
}

// -----

func.func @f(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op 'iou_threshold' must be in [0, 1], got 1.5}}
  %sel, %n = dlg.non_max_suppression %b, %s {iou_threshold = 1.5, max_output_boxes_per_class = 2 : i64} : tensor<1x6x4xf32>, tensor<1x1x6xf32> -> tensor<2x3xi64>, tensor<i64>
  return
}

// -----

func.func @f(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op 'iou_threshold' must be in [0, 1], got nan}}
  %sel, %n = dlg.non_max_suppression %b, %s {iou_threshold = 0x7FF8000000000000 : f64, max_output_boxes_per_class = 2 : i64} : tensor<1x6x4xf32>, tensor<1x1x6xf32> -> tensor<2x3xi64>, tensor<i64>
  return
}

// -----

func.func @f(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op 'score_threshold' must not be NaN}}
  %sel, %n = dlg.non_max_suppression %b, %s {score_threshold = 0x7FF8000000000000 : f64, max_output_boxes_per_class = 2 : i64} : tensor<1x6x4xf32>, tensor<1x1x6xf32> -> tensor<2x3xi64>, tensor<i64>
  return
}

// -----

// A declared padded size other than the rule's.
func.func @f(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op declared result type}}
  %sel, %n = dlg.non_max_suppression %b, %s {max_output_boxes_per_class = 2 : i64} : tensor<1x6x4xf32>, tensor<1x1x6xf32> -> tensor<3x3xi64>, tensor<i64>
  return
}

// -----

// ONNX's NonMaxSuppression is f32 only.
func.func @f(%b: tensor<1x6x4xf16>, %s: tensor<1x1x6xf16>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op operand #0 must be ranked tensor of 32-bit float values}}
  %sel, %n = "dlg.non_max_suppression"(%b, %s) {max_output_boxes_per_class = 2 : i64} : (tensor<1x6x4xf16>, tensor<1x1x6xf16>) -> (tensor<2x3xi64>, tensor<i64>)
  return
}

// -----

func.func @f(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{'dlg.non_max_suppression' op has no attribute 'iou' (its attributes: center_point_box, iou_threshold, max_output_boxes_per_class, score_threshold)}}
  %sel, %n = dlg.non_max_suppression %b, %s {iou = 0.5} : tensor<1x6x4xf32>, tensor<1x1x6xf32> -> tensor<0x3xi64>, tensor<i64>
  return
}
