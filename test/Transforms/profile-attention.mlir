// dlc-profile on a fused attention (dlc-cpu-attention replaced three
// kernels by one call): the call is timed as one row of its own, named
// after its callee, kind "attention", with both GEMMs' flops
// (2 x 12 x 128 x 128 x (64 + 64)) and its operands' and result's bytes;
// the kernel after it keeps the name dlk-to-linalg gives it. Without the
// row, its time fell into "(outside kernels)".
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-cpu-attention{min-keys=0 vector-width=16},dlc-profile)' | FileCheck %s
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-cpu-attention{min-keys=0 vector-width=16},dlc-profile,dlk-to-linalg)' | FileCheck %s --check-prefix=NAMES
// The hooks survive lowering around the attention's code (inlined: its
// two parallel nests), before the injective kernel's:
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-cpu-attention{min-keys=0 vector-width=16})' | dlc-opt --lower-to-llvm=profile=true | FileCheck %s --check-prefix=LLVM

// CHECK: module attributes {dlc.profile = [
// CHECK-SAME: {bytes = 1638400 : i64, flops = 50331648 : i64, kind = "attention", name = "dlc_attention_0", root = "attention 12x128x64 keys 128 dv 64"},
// CHECK-SAME: {bytes = 786432 : i64, flops = 0 : i64, kind = "injective", name = "bert_kernel0", root = "reshape 128x12x64"}]}
// CHECK-LABEL: func.func @bert
// CHECK: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @dlcProfileEnter(%[[C0]]) : (i64) -> ()
// CHECK-NEXT: %[[O:.*]] = call @dlc_attention_0(%arg0, %arg1, %arg2, %arg3) {dlc.profile_flops = 50331648 : i64, dlc.profile_root = "attention 12x128x64 keys 128 dv 64"}
// CHECK-NEXT: %[[E0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @dlcProfileExit(%[[E0]])
// CHECK: call @dlcProfileEnter(%{{.*}})
// CHECK-NEXT: dlk.kernel "injective"(%[[O]])

// NAMES: func.func private @bert_kernel0({{.*}} attributes {dlk.kind = "injective"

// LLVM-LABEL: llvm.func @bert(
// LLVM: llvm.call @dlcProfileEnter(%[[A:[0-9]+]])
// LLVM: llvm.call @bert_nest0(
// LLVM: llvm.call @bert_nest1(
// LLVM-NEXT: llvm.call @dlcProfileExit(%[[A]])
// LLVM-NEXT: llvm.call @dlcProfileEnter(
// LLVM: llvm.call @bert_nest2(
// LLVM-NEXT: llvm.call @dlcProfileExit(
func.func @bert(%q: tensor<128x768xf32>, %k: tensor<128x768xf32>, %v: tensor<128x768xf32>, %mask: tensor<128x128xf32>) -> tensor<128x768xf32> {
  %scale = dlg.constant dense<0.125> : tensor<f32>
  %q2 = dlg.reshape %q : tensor<128x768xf32> -> tensor<128x12x64xf32>
  %qt = dlg.transpose %q2 perm = [1, 0, 2] : tensor<128x12x64xf32> -> tensor<12x128x64xf32>
  %k2 = dlg.reshape %k : tensor<128x768xf32> -> tensor<128x12x64xf32>
  %kt = dlg.transpose %k2 perm = [1, 2, 0] : tensor<128x12x64xf32> -> tensor<12x64x128xf32>
  %v2 = dlg.reshape %v : tensor<128x768xf32> -> tensor<128x12x64xf32>
  %vt = dlg.transpose %v2 perm = [1, 0, 2] : tensor<128x12x64xf32> -> tensor<12x128x64xf32>
  %s0 = dlg.matmul %qt, %kt : tensor<12x128x64xf32>, tensor<12x64x128xf32> -> tensor<12x128x128xf32>
  %s1 = dlg.mul %s0, %scale : tensor<12x128x128xf32>, tensor<f32> -> tensor<12x128x128xf32>
  %s2 = dlg.add %s1, %mask : tensor<12x128x128xf32>, tensor<128x128xf32> -> tensor<12x128x128xf32>
  %p = dlg.softmax %s2 {axis = -1 : i64} : tensor<12x128x128xf32>
  %c = dlg.matmul %p, %vt : tensor<12x128x128xf32>, tensor<12x128x64xf32> -> tensor<12x128x64xf32>
  %c1 = dlg.transpose %c perm = [1, 0, 2] : tensor<12x128x64xf32> -> tensor<128x12x64xf32>
  %y = dlg.reshape %c1 : tensor<128x12x64xf32> -> tensor<128x768xf32>
  return %y : tensor<128x768xf32>
}
