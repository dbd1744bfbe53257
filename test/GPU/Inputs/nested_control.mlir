// dlg.if inside dlg.while (gpu_check.py --control): both levels on the host,
// one condition read back per trip and per branch decision.
func.func @main(%x: tensor<64xf32>, %n: tensor<i64>) -> (tensor<64xf32>, tensor<i64>) {
  %i0 = dlg.constant dense<0> : tensor<i64>
  %r:2 = dlg.while (%x, %i0) : (tensor<64xf32>, tensor<i64>) -> (tensor<64xf32>, tensor<i64>) {
  ^bb0(%a: tensor<64xf32>, %i: tensor<i64>):
    %lt = dlg.less %i, %n : tensor<i64>, tensor<i64> -> tensor<i1>
    dlg.condition(%lt : tensor<i1>) %a, %i : tensor<64xf32>, tensor<i64>
  } do {
  ^bb0(%a: tensor<64xf32>, %i: tensor<i64>):
    %s = dlg.reduce_sum %a {axes = array<i64>} : tensor<64xf32> -> tensor<f32>
    %z = dlg.constant dense<0.0> : tensor<f32>
    %pos = dlg.greater %s, %z : tensor<f32>, tensor<f32> -> tensor<i1>
    %b = dlg.if %pos : tensor<i1> -> tensor<64xf32> {
      %h = dlg.constant dense<0.5> : tensor<f32>
      %m = dlg.mul %a, %h : tensor<64xf32>, tensor<f32> -> tensor<64xf32>
      %c = dlg.sub %m, %h : tensor<64xf32>, tensor<f32> -> tensor<64xf32>
      dlg.yield %c : tensor<64xf32>
    } else {
      %e = dlg.exp %a : tensor<64xf32>
      dlg.yield %e : tensor<64xf32>
    }
    %one = dlg.constant dense<1> : tensor<i64>
    %j = dlg.add %i, %one : tensor<i64>, tensor<i64> -> tensor<i64>
    dlg.yield %b, %j : tensor<64xf32>, tensor<i64>
  }
  return %r#0, %r#1 : tensor<64xf32>, tensor<i64>
}
