// Row kernels (softmax, layer_norm, reduce_*) spread each row over the lanes
// of a warp: the cost model records the lanes as the thread tile of the
// row's innermost loop (extent / lanes), dlc-gpu-rows spreads the row's
// loops over them and combines partial reductions with gpu.shuffle xor
// (shfl.sync.bfly in the PTX); short rows keep one thread per row.
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=schedule' | FileCheck %s --check-prefix=SCHED
// RUN: dlc-opt %s --lower-to-nvvm='stop-after=launch' | FileCheck %s --check-prefix=LAUNCH
// RUN: %python %dlc_src/test/GPU/print_ptx.py %s | FileCheck %s --check-prefix=PTX

// 64 rows of 768: a warp a row (768 / 32 = 24 elements a lane), a row a
// block; layer_norm over 256: 16 lanes a row (each reads one chunk of 16),
// two rows a block; rows of 8: one thread a row, no lane tile.
// SCHED-DAG: @main_kernel0{{.*}}dlk.schedule = #dlk.schedule<vector = 4, workgroup = [1, 0], thread = [1, 24]>
// SCHED-DAG: @main_kernel1{{.*}}dlk.schedule = #dlk.schedule<vector = 4, workgroup = [2, 0], thread = [1, 16]>
// SCHED-DAG: @main_kernel2{{.*}}dlk.schedule = #dlk.schedule<vector = 4, workgroup = [32, 0], thread = [1, 0]>

// The softmax launch: 32 threads, row = tid / 32, lane = tid % 32; each loop
// over the row starts at lane * 16 and steps by 32 * 16; the row max is the
// lanes' partial maxima combined in five butterfly rounds, then with the
// reduction's initial value.
// LAUNCH: gpu.launch blocks({{.*}}) in (%{{.*}} = %c64, {{.*}}) threads({{.*}}) in (%{{.*}} = %c32{{[_0-9]*}}, %{{.*}} = %c1, %{{.*}} = %c1)
// LAUNCH: %[[TID:.*]] = gpu.thread_id x
// LAUNCH: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// LAUNCH: %[[FIRST:.*]] = arith.muli %[[LANE]], %c16
// LAUNCH: %[[STRIDE:.*]] = arith.constant 512 : index
// LAUNCH: scf.for %{{.*}} = %[[FIRST]] to %c768 step %[[STRIDE]]
// LAUNCH: arith.maximumf {{.*}} : vector<16xf32>
// LAUNCH: %[[P:.*]] = vector.reduction <maximumf>, %{{.*}} : vector<16xf32> into f32
// LAUNCH: %[[S16:.*]], %{{.*}} = gpu.shuffle xor %[[P]], %c16_i32, %c32_i32 : f32
// LAUNCH: %[[M16:.*]] = arith.maximumf %[[P]], %[[S16]] : f32
// LAUNCH-COUNT-4: gpu.shuffle xor
// LAUNCH: arith.maximumf %cst{{.*}}, %{{.*}} : f32
// LAUNCH: scf.for %{{.*}} = %[[FIRST]] to %c768 step %[[STRIDE]]
// LAUNCH: vector.reduction <add>
// LAUNCH-COUNT-5: gpu.shuffle xor

// PTX: // gpu.binary @main_kernel
// PTX: .maxntid 32, 1, 1
// PTX: shfl.sync.bfly.b32
// PTX: // gpu.binary @main_kernel_0
// PTX: .maxntid 32, 1, 1
// PTX: shfl.sync.bfly.b32
// PTX: // gpu.binary @main_kernel_1
// PTX-NOT: shfl.sync

func.func @main(%x: tensor<64x768xf32>, %y: tensor<32x256xf32>, %g: tensor<256xf32>,
                %z: tensor<512x8xf32>)
    -> (tensor<64x768xf32>, tensor<32x256xf32>, tensor<512xf32>) {
  %0 = dlg.softmax %x : tensor<64x768xf32>
  %1 = dlg.layer_norm %y gamma %g : (tensor<32x256xf32>, tensor<256xf32>) -> tensor<32x256xf32>
  %2 = dlg.reduce_sum %z {axes = array<i64: 1>} : tensor<512x8xf32> -> tensor<512xf32>
  return %0, %1, %2 : tensor<64x768xf32>, tensor<32x256xf32>, tensor<512xf32>
}
