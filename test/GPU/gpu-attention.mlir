// Scaled-dot-product attention on the GPU as one kernel (dlc-gpu-attention,
// docs/gpu.md "Attention"): BERT's head split (reshape + transpose of Q, K,
// V), scale, an additive mask, softmax over the keys, times V. The pattern
// becomes a call of one kernel function that reads Q, K and V in place
// (flat views of the projections: no layout copies) and keeps the scores
// in registers, so no [heads, s, s] tensor or buffer exists anywhere.
// RUN: dlc-opt %s --dlc-gpu-attention | FileCheck %s --check-prefix=PASS
// PASS-LABEL: func.func @main
// PASS-NOT: dlg.transpose
// PASS: %[[Q:.*]] = dlg.reshape %{{.*}} : tensor<64x2x32xf32> -> tensor<4096xf32>
// PASS: %[[K:.*]] = dlg.reshape %{{.*}} : tensor<64x2x32xf32> -> tensor<4096xf32>
// PASS: %[[V:.*]] = dlg.reshape %{{.*}} : tensor<64x2x32xf32> -> tensor<4096xf32>
// PASS: %[[O:.*]] = call @dlc_attention_0(%[[Q]], %[[K]], %[[V]], %arg3) : (tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<64x64xf32>) -> tensor<2x64x32xf32>
// PASS: dlg.transpose %[[O]] perm = [1, 0, 2]
// PASS-NOT: dlg.softmax
// PASS-NOT: dlg.matmul
// PASS: func.func private @dlc_attention_0({{.*}}) -> tensor<2x64x32xf32> attributes {dlc.attention = array<i64: 32, 32>, dlk.schedule = #dlk.schedule<workgroup = [1, 32, 32, 0], thread = [1, 1, 0, 0]>}
// Blocks over (head, query block), a thread a query row:
// PASS: scf.forall (%[[B:.*]], %{{.*}}) in (2, 2)
// PASS: scf.forall (%{{.*}}) in (32)
// The q row of head b, row r at b * 32 + r * 64 (the projection's layout):
// PASS: %[[QRS:.*]] = arith.constant 64 : index
// PASS: vector.transfer_read %arg0[%{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<4096xf32>, vector<32xf32>
// The key loop carries the running max, the running sum and the accumulator:
// PASS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32, vector<32xf32>)
// PASS: vector.reduction <add>, %{{.*}} fastmath<contract> : vector<32xf32> into f32
// PASS: vector.transfer_read %arg3[%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<64x64xf32>, vector<32xf32>
// PASS: arith.maximumf
// PASS: math.exp
// PASS: vector.fma
// PASS: scf.yield
// PASS: arith.divf
// PASS: } {mapping = [#gpu.thread<x>]}
// PASS: } {dlc.block_dims = array<i64: 32, 1, 1>, mapping = [#gpu.block<y>, #gpu.block<x>]}
//
// Through the GPU pipeline: the schedule is shown at the schedule stage, and
// after bufferisation no buffer of the scores' shape is allocated.
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=schedule' | FileCheck %s --check-prefix=SCHED
// SCHED: dlk.schedule = #dlk.schedule<workgroup = [1, 32, 32, 0], thread = [1, 1, 0, 0]>
// SCHED-NOT: 2x64x64xf32
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH-NOT: 2x64x64xf32
// LAUNCH: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c2{{.*}}, %{{.*}} = %c2{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// LAUNCH-NOT: 2x64x64xf32
//
// In the PTX, two kernels (attention, then the heads merged back); the
// attention kernel's arithmetic is FFMA and ex2, its only global stores are
// its output row (128-bit), nothing goes to local memory.
// RUN: %python %dlc_src/test/GPU/print_ptx.py %s | FileCheck %s --check-prefix=PTX
// PTX: .visible .entry main_kernel(
// PTX: .maxntid 32, 1, 1
// PTX-NOT: st.global
// PTX-NOT: .local
// PTX: ld.global.v4.b32
// PTX: fma.rn.f32
// PTX: ex2.approx
// PTX-COUNT-8: st.global.v4.b32
// PTX-NOT: st.global
// PTX: ret;
// PTX: .visible .entry main_kernel(
// PTX-NOT: .extern
func.func @main(%q: tensor<64x64xf32>, %k: tensor<64x64xf32>, %v: tensor<64x64xf32>, %mask: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %scale = dlg.constant dense<0.17677669> : tensor<f32>
  %q2 = dlg.reshape %q : tensor<64x64xf32> -> tensor<64x2x32xf32>
  %qt = dlg.transpose %q2 perm = [1, 0, 2] : tensor<64x2x32xf32> -> tensor<2x64x32xf32>
  %k2 = dlg.reshape %k : tensor<64x64xf32> -> tensor<64x2x32xf32>
  %kt = dlg.transpose %k2 perm = [1, 2, 0] : tensor<64x2x32xf32> -> tensor<2x32x64xf32>
  %v2 = dlg.reshape %v : tensor<64x64xf32> -> tensor<64x2x32xf32>
  %vt = dlg.transpose %v2 perm = [1, 0, 2] : tensor<64x2x32xf32> -> tensor<2x64x32xf32>
  %s0 = dlg.matmul %qt, %kt : tensor<2x64x32xf32>, tensor<2x32x64xf32> -> tensor<2x64x64xf32>
  %s1 = dlg.mul %s0, %scale : tensor<2x64x64xf32>, tensor<f32> -> tensor<2x64x64xf32>
  %s2 = dlg.add %s1, %mask : tensor<2x64x64xf32>, tensor<64x64xf32> -> tensor<2x64x64xf32>
  %p = dlg.softmax %s2 {axis = -1 : i64} : tensor<2x64x64xf32>
  %c = dlg.matmul %p, %vt : tensor<2x64x64xf32>, tensor<2x64x32xf32> -> tensor<2x64x32xf32>
  %c1 = dlg.transpose %c perm = [1, 0, 2] : tensor<2x64x32xf32> -> tensor<64x2x32xf32>
  %y = dlg.reshape %c1 : tensor<64x2x32xf32> -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
