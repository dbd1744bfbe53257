// Debian's own mlir-opt loads dlc as a plugin; MLIR is not duplicated.

// Both plugins: dlg parses and dlg-simplify runs.
// RUN: %mlir_opt --load-dialect-plugin=%dlc_plugin --load-pass-plugin=%dlc_plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(dlg-simplify))' %s | FileCheck %s --check-prefix=BOTH
// BOTH-LABEL: func @plugin
// BOTH-NEXT: %[[K:.*]] = dlk.kernel "elementwise"
// BOTH: dlg.exp
// BOTH: return %[[K]]

// The dialect plugin alone: dlg and dlk round-trip; upstream passes run.
// RUN: %mlir_opt --load-dialect-plugin=%dlc_plugin %s --canonicalize | \
// RUN:   %mlir_opt --load-dialect-plugin=%dlc_plugin | FileCheck %s --check-prefix=DIALECT
// DIALECT: dlk.kernel "elementwise"
// DIALECT: dlg.neg

// ... and verifiers report as in dlc-opt.
// RUN: not %mlir_opt --load-dialect-plugin=%dlc_plugin %S/Inputs/bad.mlir 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: error: 'dlg.matmul' op contracting dimensions differ: a has 64 (dim 1), b has 32 (dim 0)

// The pass plugin alone registers the passes (a pass plugin has no dialect
// registry, so dlg input needs the dialect plugin as well).
// RUN: %mlir_opt --load-pass-plugin=%dlc_plugin --pass-pipeline='builtin.module(func.func(dlg-simplify{max-iterations=2}))' \
// RUN:   %S/Inputs/upstream.mlir --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=PASS
// PASS: dlg-simplify{max-iterations=2 top-down=true}
// PASS: func.func @upstream

func.func @plugin(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = dlk.kernel "elementwise" (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    %0 = dlg.exp %a : tensor<8xf32>
    %1 = dlg.neg %0 : tensor<8xf32>
    %2 = dlg.neg %1 : tensor<8xf32>
    dlk.yield %2 : tensor<8xf32>
  }
  %n = dlg.neg %r : tensor<8xf32>
  %m = dlg.neg %n : tensor<8xf32>
  return %m : tensor<8xf32>
}
