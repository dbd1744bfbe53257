// Long rows and few of them: a block a row. reduce_sum [4, 32768] would be
// 4 warps on 132 SMs as a warp a row; the cost model gives each row 1024
// lanes (thread tile 32 of the row loop), one row a block. dlc-gpu-rows
// combines each warp by shuffles, then the 32 warps through a shared-memory
// buffer (a workgroup attribution) after a barrier.
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=schedule' | FileCheck %s --check-prefix=SCHED
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// RUN: %python %dlc_src/test/GPU/print_ptx.py %s | FileCheck %s --check-prefix=PTX

// SCHED: dlk.schedule = #dlk.schedule<vector = 4, workgroup = [1, 0], thread = [1, 32]>
// SCHED: dlc.row_lanes = array<i64: 1024, 32768>

// LAUNCH: gpu.launch blocks({{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c1024{{[_0-9]*}}, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%[[BUF:.*]] : memref<32xf32, #gpu.address_space<workgroup>>)
// LAUNCH: %[[TID:.*]] = gpu.thread_id x
// LAUNCH: %[[LANE:.*]] = arith.remui %[[TID]], %c1024
// LAUNCH: %[[WARP:.*]] = arith.divui %[[LANE]], %c32
// LAUNCH: vector.reduction <add>
// LAUNCH-COUNT-5: gpu.shuffle xor
// LAUNCH: memref.store %{{.*}}, %[[BUF]][%[[WARP]]]
// LAUNCH-NEXT: gpu.barrier
// LAUNCH: memref.load %[[BUF]][%c0
// LAUNCH: memref.load %[[BUF]][%c31]

// PTX: .maxntid 1024, 1, 1
// PTX: .shared .align 4 .b8 __wg_main_kernel_0[128];
// PTX: shfl.sync.bfly.b32
// PTX: st.shared.b32
// PTX: bar.sync 0;
// PTX: ld.shared

func.func @main(%x: tensor<4x32768xf32>) -> tensor<4xf32> {
  %0 = dlg.reduce_sum %x {axes = array<i64: 1>} : tensor<4x32768xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
