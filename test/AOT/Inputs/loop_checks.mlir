// A gather before a dlg.while and one in each of its regions (test/AOT/checks.test).
func.func @loop(%t: tensor<5x4xf32>, %i: tensor<2xi64>, %x: tensor<2x4xf32>, %n: tensor<i64>) -> (tensor<4xf32>, tensor<2x4xf32>) {
  %zero = dlg.constant dense<0> : tensor<i64>
  %one = dlg.constant dense<1> : tensor<i64>
  %first = dlg.gather %t[%zero] : (tensor<5x4xf32>, tensor<i64>) -> tensor<4xf32> loc("before_loop")
  %r:2 = dlg.while (%zero, %x) : (tensor<i64>, tensor<2x4xf32>) -> (tensor<i64>, tensor<2x4xf32>) {
  ^bb0(%k: tensor<i64>, %a: tensor<2x4xf32>):
    %e = dlg.gather %t[%k] : (tensor<5x4xf32>, tensor<i64>) -> tensor<4xf32> loc("in_condition")
    %s = dlg.reduce_sum %e {axes = array<i64>} : tensor<4xf32> -> tensor<f32>
    %lim = dlg.constant dense<100.0> : tensor<f32>
    %c0 = dlg.less %s, %lim : tensor<f32>, tensor<f32> -> tensor<i1>
    %c1 = dlg.less %k, %n : tensor<i64>, tensor<i64> -> tensor<i1>
    %c = dlg.where %c0, %c1, %c0 : tensor<i1>, tensor<i1>, tensor<i1> -> tensor<i1>
    dlg.condition(%c : tensor<i1>) %k, %a : tensor<i64>, tensor<2x4xf32>
  } do {
  ^bb0(%k: tensor<i64>, %a: tensor<2x4xf32>):
    %j = dlg.add %i, %k : tensor<2xi64>, tensor<i64> -> tensor<2xi64>
    %g = dlg.gather %t[%j] : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<2x4xf32> loc("in_body")
    %s = dlg.add %a, %g : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
    %k1 = dlg.add %k, %one : tensor<i64>, tensor<i64> -> tensor<i64>
    dlg.yield %k1, %s : tensor<i64>, tensor<2x4xf32>
  }
  return %first, %r#1 : tensor<4xf32>, tensor<2x4xf32>
}
