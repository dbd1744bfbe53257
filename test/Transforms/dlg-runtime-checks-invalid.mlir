// RUN: dlc-opt --split-input-file --dlg-runtime-checks --verify-diagnostics %s
// RUN: not dlc-compile %s -o %t --name k --entry computed_in_kernel 2>&1 | FileCheck %s --check-prefix=AOT
// RUN: not dlc-run %s --entry computed_in_kernel --random-inputs 2>&1 | FileCheck %s --check-prefix=AOT
// AOT: error: dlg-runtime-checks: dlg.gather at {{.*}}:{{[0-9]+}}:10 inside a dlk.kernel checks indices the kernel computes, which cannot be checked at run time from there; compute them outside the kernel

// A gather inside a hand-written dlk.kernel whose indices the kernel
// computes: the check cannot be built before the kernel, and a status
// cannot leave it, so the pass refuses it rather than leave the gather's
// marker unchecked.
func.func @computed_in_kernel(%t: tensor<5x4xf32>, %i: tensor<2xi64>) -> tensor<2x4xf32> {
  %y = dlk.kernel "elementwise" (%t, %i) : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<2x4xf32> {
  ^bb0(%a: tensor<5x4xf32>, %b: tensor<2xi64>):
    %j = dlg.add %b, %b : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
    // expected-error @+1 {{inside a dlk.kernel checks indices the kernel computes, which cannot be checked at run time from there; compute them outside the kernel}}
    %g = dlg.gather %a[%j] : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
    dlk.yield %g : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}

// -----

// The same for a verdict an importer built (an op marked dlc.check) that
// sits inside a kernel.
func.func @verdict_in_kernel(%x: tensor<3xf32>, %v: tensor<i32>) -> tensor<3xf32> {
  %y = dlk.kernel "elementwise" (%x, %v) : (tensor<3xf32>, tensor<i32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>, %w: tensor<i32>):
    %z = dlg.constant dense<0> : tensor<i32>
    // expected-error @+1 {{inside a dlk.kernel checks indices the kernel computes}}
    %c = dlg.max %w, %z {dlc.check = "GatherND 'n': out of range"} : tensor<i32>, tensor<i32> -> tensor<i32>
    %r = dlg.relu %a : tensor<3xf32>
    dlk.yield %r : tensor<3xf32>
  }
  return %y : tensor<3xf32>
}
