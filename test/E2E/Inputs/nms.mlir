// ONNX's suppress_by_IOU_and_scores case in two classes: padded to 6 rows,
// the selection's valid rows counted by result 1 (dlc.count).
func.func @main(%b: tensor<1x6x4xf32>, %s: tensor<1x2x6xf32>) -> (tensor<6x3xi64> {dlc.count = 1 : i64}, tensor<i64>) {
  %sel, %n = dlg.non_max_suppression %b, %s {iou_threshold = 0.5, max_output_boxes_per_class = 3 : i64, score_threshold = 0.4} : tensor<1x6x4xf32>, tensor<1x2x6xf32> -> tensor<6x3xi64>, tensor<i64>
  return %sel, %n : tensor<6x3xi64>, tensor<i64>
}
