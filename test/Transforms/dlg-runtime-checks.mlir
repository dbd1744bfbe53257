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

// -----

// A gather in a dlg.if region: each region yields its status (0 where it
// has no checks) as one more result, the if's status.
// CHECK-LABEL: func.func @branch
// CHECK-SAME: -> (tensor<2x4xf32>, tensor<i32> {dlc.status})
// CHECK-SAME: dlc.runtime_checks = ["dlg.gather at 'then_lookup': {{.*}}[-5, 5), the range of axis 0 of its data"]
// CHECK:      %[[IF:.*]]:2 = dlg.if %arg2 : tensor<i1> -> tensor<2x4xf32>, tensor<i32> {
// CHECK:        %[[S:.*]] = dlg.max
// CHECK-NEXT:   %[[G:.*]] = dlg.gather %arg0[%arg1]
// CHECK-NEXT:   dlg.yield %[[G]], %[[S]] : tensor<2x4xf32>, tensor<i32>
// CHECK-NEXT: } else {
// CHECK-NEXT:   %[[E:.*]] = dlg.constant dense<0.000000e+00> : tensor<2x4xf32>
// CHECK-NEXT:   %[[NONE:.*]] = dlg.constant dense<0> : tensor<i32>
// CHECK-NEXT:   dlg.yield %[[E]], %[[NONE]] : tensor<2x4xf32>, tensor<i32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[IF]]#0, %[[IF]]#1
func.func @branch(%t: tensor<5x4xf32>, %i: tensor<2xi64>, %c: tensor<i1>) -> tensor<2x4xf32> {
  %r = dlg.if %c : tensor<i1> -> tensor<2x4xf32> {
    %g = dlg.gather %t[%i] : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<2x4xf32> loc("then_lookup")
    dlg.yield %g : tensor<2x4xf32>
  } else {
    %z = dlg.constant dense<0.0> : tensor<2x4xf32>
    dlg.yield %z : tensor<2x4xf32>
  }
  return %r : tensor<2x4xf32>
}

// -----

// Gathers in both regions of a dlg.while (an ONNX Loop body), numbered in
// program order after the one before the loop: the status is one more
// carried value, 0 at first, that each region passes on while it is not
// 0 (the first failure in time) and replaces by its own otherwise.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: -> (tensor<4xf32>, tensor<2x4xf32>, tensor<i32> {dlc.status})
// CHECK-SAME: dlc.runtime_checks = ["dlg.gather at 'before_loop': {{.*}}", "dlg.gather at 'in_condition': {{.*}}", "dlg.gather at 'in_body': {{.*}}"]
// CHECK:      %[[S1:.*]] = dlg.max
// CHECK-NEXT: %[[FIRST:.*]] = dlg.gather
// CHECK-NEXT: %[[INIT:.*]] = dlg.constant dense<0> : tensor<i32>
// CHECK-NEXT: %[[W:.*]]:3 = dlg.while(%{{.*}}, %arg2, %[[INIT]]) : (tensor<i64>, tensor<2x4xf32>, tensor<i32>) -> (tensor<i64>, tensor<2x4xf32>, tensor<i32>) {
// CHECK-NEXT: ^bb0(%[[K:.*]]: tensor<i64>, %[[A:.*]]: tensor<2x4xf32>, %[[ST:.*]]: tensor<i32>):
// CHECK:        %[[TWO:.*]] = dlg.constant dense<2> : tensor<i32>
// CHECK:        %[[S2:.*]] = dlg.max
// CHECK:        %[[Z:.*]] = dlg.constant dense<0> : tensor<i32>
// CHECK-NEXT:   %[[SET:.*]] = dlg.not_equal %[[ST]], %[[Z]]
// CHECK-NEXT:   %[[PASS:.*]] = dlg.where %[[SET]], %[[ST]], %[[S2]]
// CHECK-NEXT:   dlg.condition(%{{.*}} : tensor<i1>) %[[K]], %[[A]], %[[PASS]] : tensor<i64>, tensor<2x4xf32>, tensor<i32>
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<2x4xf32>, %[[ST2:.*]]: tensor<i32>):
// CHECK:        dlg.constant dense<3> : tensor<i32>
// CHECK:        %[[S3:.*]] = dlg.max
// CHECK:        %[[Z2:.*]] = dlg.constant dense<0> : tensor<i32>
// CHECK-NEXT:   %[[SET2:.*]] = dlg.not_equal %[[ST2]], %[[Z2]]
// CHECK-NEXT:   %[[NEXT:.*]] = dlg.where %[[SET2]], %[[ST2]], %[[S3]]
// CHECK-NEXT:   dlg.yield %{{.*}}, %{{.*}}, %[[NEXT]] : tensor<i64>, tensor<2x4xf32>, tensor<i32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[Z3:.*]] = dlg.constant dense<0> : tensor<i32>
// CHECK-NEXT: %[[SET3:.*]] = dlg.not_equal %[[S1]], %[[Z3]]
// CHECK-NEXT: %[[ALL:.*]] = dlg.where %[[SET3]], %[[S1]], %[[W]]#2
// CHECK-NEXT: return %[[FIRST]], %[[W]]#1, %[[ALL]]
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

// -----

// Nested: a loop inside an if branch, its status through both; a region
// without checks, and a loop without them, are left as they were.
// CHECK-LABEL: func.func @nested
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32>, tensor<i32> {dlc.status})
// CHECK:      %[[IF:.*]]:2 = dlg.if %arg2 : tensor<i1> -> tensor<4xf32>, tensor<i32> {
// CHECK:        %[[W:.*]]:3 = dlg.while
// CHECK:        dlg.yield %[[W]]#1, %[[W]]#2 : tensor<4xf32>, tensor<i32>
// CHECK:      } else {
// CHECK:        dlg.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<i32>
// CHECK:      %[[PLAIN:.*]]:2 = dlg.while(%{{.*}}, %arg3) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>)
// CHECK:      return %[[IF]]#0, %[[PLAIN]]#1, %[[IF]]#1
func.func @nested(%t: tensor<5x4xf32>, %n: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = dlg.constant dense<0> : tensor<i64>
  %one = dlg.constant dense<1> : tensor<i64>
  %r = dlg.if %c : tensor<i1> -> tensor<4xf32> {
    %w:2 = dlg.while (%zero, %x) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) {
    ^bb0(%k: tensor<i64>, %a: tensor<4xf32>):
      %go = dlg.less %k, %n : tensor<i64>, tensor<i64> -> tensor<i1>
      dlg.condition(%go : tensor<i1>) %k, %a : tensor<i64>, tensor<4xf32>
    } do {
    ^bb0(%k: tensor<i64>, %a: tensor<4xf32>):
      %g = dlg.gather %t[%k] : (tensor<5x4xf32>, tensor<i64>) -> tensor<4xf32>
      %s = dlg.add %a, %g : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
      %k1 = dlg.add %k, %one : tensor<i64>, tensor<i64> -> tensor<i64>
      dlg.yield %k1, %s : tensor<i64>, tensor<4xf32>
    }
    dlg.yield %w#1 : tensor<4xf32>
  } else {
    dlg.yield %x : tensor<4xf32>
  }
  %p:2 = dlg.while (%zero, %x) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) {
  ^bb0(%k: tensor<i64>, %a: tensor<4xf32>):
    %go = dlg.less %k, %n : tensor<i64>, tensor<i64> -> tensor<i1>
    dlg.condition(%go : tensor<i1>) %k, %a : tensor<i64>, tensor<4xf32>
  } do {
  ^bb0(%k: tensor<i64>, %a: tensor<4xf32>):
    %s = dlg.add %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %k1 = dlg.add %k, %one : tensor<i64>, tensor<i64> -> tensor<i64>
    dlg.yield %k1, %s : tensor<i64>, tensor<4xf32>
  }
  return %r, %p#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A dlk.kernel written by hand (the pipeline fuses only after this pass):
// its gather's indices are a kernel operand, so the check is built before
// the kernel on that operand.
// CHECK-LABEL: func.func @kernel
// CHECK-SAME: -> (tensor<2x4xf32>, tensor<i32> {dlc.status})
// CHECK-SAME: dlc.runtime_checks = ["dlg.gather at 'in_kernel': an index given at run time is outside [-5, 5), the range of axis 0 of its data"]
// CHECK:      dlg.less %arg1,
// CHECK:      %[[S:.*]] = dlg.max
// CHECK-NEXT: %[[K:.*]] = dlk.kernel "elementwise"(%arg0, %arg1)
// CHECK:        dlg.gather
// CHECK-NOT:    dlg.less
// CHECK:        dlk.yield
// CHECK:      return %[[K]], %[[S]]
func.func @kernel(%t: tensor<5x4xf32>, %i: tensor<2xi64>) -> tensor<2x4xf32> {
  %y = dlk.kernel "elementwise" (%t, %i) : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<2x4xf32> {
  ^bb0(%a: tensor<5x4xf32>, %b: tensor<2xi64>):
    %g = dlg.gather %a[%b] : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<2x4xf32> loc("in_kernel")
    dlk.yield %g : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}
