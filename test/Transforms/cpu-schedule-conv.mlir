// The direct and depthwise conv schedules (schedule/conv_direct.h) on the
// AVX-512 target's fixed cache model (32 KiB L1), so the choices do not
// depend on the machine that runs the test.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg{vector-width=16},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx512},canonicalize,cse)' | FileCheck %s

// ResNet's 64-channel 3x3 conv at 56x56: parallel tiles of both 32-channel
// panels by 7 rows of oh (8 in all), which read the input 1.3 times where
// tiles of one panel by 14 rows read it 2.3 times; channel blocks of 8 keep the
// block's Wp panel (8 x 3 x 3 x 32 floats, 9 KiB) and input rows within 3/4
// of this model's 32 KiB L1 (16 would take 29 KiB; a 48 KiB host takes 16); 8
// pixels x 32 channels (16 zmm) per register tile, whose accumulators live
// across the taps and channels (14 x 32, 28 zmm, spilled in the unrolled
// taps); no im2col. The copy back to NCHW reads
// the blocked result in whole vectors along the channels, transposed in
// registers (never 16 single lanes gathered into a vector of pixels): the
// first 48 pixels of each row in 16 x 16 blocks, transposed by the
// unpack/shuffle steps (no vector.transpose left for LLVM's one wide
// shuffle) and written as full 16-float rows, the last 8 in one 8 x 16
// block split off (not 14 x 16 blocks, whose 14-float rows were written
// and read in three pieces each). As the tiles split rows, not panels,
// each pads its own 7 + 2 rows of the input inside the forall (padPerTile),
// not a pad of the whole input before it.
// CHECK-LABEL: func.func private @resnet_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 2, 7, 0, 0, 8, 0, 0], vector = 16, register = [8, 32], parallel = [0, 1, 2]>
// CHECK-NOT: tensor<1x64x3x3x56x56xf32>
// CHECK-NOT: tensor.pad
// CHECK: scf.forall (%{{.*}}) in (8)
// CHECK: tensor.pad %{{.*}} low[0, 0, %{{.*}}, 1] high[0, 0, %{{.*}}, 1]
// CHECK: tensor<1x64x9x58xf32>
// CHECK: scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK: scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK: scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK-COUNT-4: vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK: scf.for {{.*}} = %c0 to %c48 step %c16
// CHECK: vector.transfer_read {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK-NOT: vector.transpose
// CHECK-COUNT-8: vector.shuffle {{.*}} [0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29] : vector<16xf32>, vector<16xf32>
// CHECK-NOT: vector.transpose
// CHECK: vector.transfer_write {{.*}} : vector<16x16xf32>, tensor<16x16xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<8x16xf32>, vector<8x16xf32>
// CHECK-NEXT: vector.transpose {{.*}} : vector<8x16xf32> to vector<16x8xf32>
// CHECK: vector.transfer_write {{.*}} : vector<16x8xf32>
func.func @resnet(%x: tensor<1x64x56x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  %1 = dlg.relu %0 : tensor<1x64x56x56xf32>
  return %1 : tensor<1x64x56x56xf32>
}

// ResNet-50's 1x1 64 -> 256 at 56x56 with bias, residual add and relu fused
// into the copy back: the residual is read in the same 16-channel x
// 16-pixel blocks as the output is written, full vectors along ow in both
// (rows of 16 of one channel), and the bias is one broadcast per channel.
// CHECK-LABEL: func.func private @residual_kernel0
// CHECK: scf.for {{.*}} = %c0 to %c48 step %c16
// CHECK: %[[Y:.*]] = vector.transfer_read {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK: %[[R:.*]] = vector.transfer_read {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK-NOT: vector.transpose
// CHECK: arith.addf {{.*}}, %[[R]] : vector<16x16xf32>
// CHECK: arith.maximumf {{.*}} : vector<16x16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<16x16xf32>, tensor<16x16xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<8x16xf32>, vector<8x16xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<16x8xf32>, vector<16x8xf32>
// CHECK: vector.transfer_write {{.*}} : vector<16x8xf32>
func.func @residual(%x: tensor<1x64x56x56xf32>, %w: tensor<256x64x1x1xf32>, %b: tensor<256xf32>, %r: tensor<1x256x56x56xf32>) -> tensor<1x256x56x56xf32> {
  %0 = dlg.conv2d %x, %w, %b : (tensor<1x64x56x56xf32>, tensor<256x64x1x1xf32>, tensor<256xf32>) -> tensor<1x256x56x56xf32>
  %1 = dlg.add %0, %r : tensor<1x256x56x56xf32>, tensor<1x256x56x56xf32> -> tensor<1x256x56x56xf32>
  %2 = dlg.relu %1 : tensor<1x256x56x56xf32>
  return %2 : tensor<1x256x56x56xf32>
}

// The channel block counts the input rows an output row reads (16 x 3
// rows of 58 floats, 10.9 KiB) with the block's Wp panel (16 x 3 x 3 x 16
// floats, 9 KiB) against 3/4 of L1: 16 channels. The panel alone would
// allow 32 (18 KiB), whose rows take it to 40 KiB, past 3/4 of L1.
// CHECK-LABEL: func.func private @rows_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 3, 7, 0, 0, 16, 0, 0], vector = 16, register = [28, 16], parallel = [0, 1, 2]>
func.func @rows(%x: tensor<1x64x56x56xf32>, %w: tensor<48x64x3x3xf32>) -> tensor<1x48x56x56xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x64x56x56xf32>, tensor<48x64x3x3xf32>) -> tensor<1x48x56x56xf32>
  return %0 : tensor<1x48x56x56xf32>
}

// A 1x1 conv at 7x7 (ResNet-50's last stage): 7-pixel register tiles; 14
// parallel tiles of 2 panels by one row (4 panels by one row would give 7,
// fewer than the 8 that balance two cores).
// CHECK-LABEL: func.func private @pointwise_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 2, 1, 0, 0, 0, 0, 0], vector = 16, register = [7, 32], parallel = [0, 1, 2]>
// CHECK: vector.outerproduct {{.*}} : vector<7xf32>, vector<32xf32>
// Rows narrower than a vector keep one 7 x 16 block, transposed as before.
// CHECK: vector.transfer_read {{.*}} : tensor<7x16xf32>, vector<7x16xf32>
// CHECK-NEXT: vector.transpose {{.*}} : vector<7x16xf32> to vector<16x7xf32>
// CHECK: vector.transfer_write {{.*}} : vector<16x7xf32>
func.func @pointwise(%x: tensor<1x64x7x7xf32>, %w: tensor<128x64x1x1xf32>) -> tensor<1x128x7x7xf32> {
  %0 = dlg.conv2d %x, %w : (tensor<1x64x7x7xf32>, tensor<128x64x1x1xf32>) -> tensor<1x128x7x7xf32>
  return %0 : tensor<1x128x7x7xf32>
}

// Few output channels (MobileNetV2's 1x1 144 -> 24 at 56x56, three 8-channel
// panels): each parallel tile takes all three panels and 7 rows (its 7 x
// 144 input rows, 226 KiB, then serve the three panels from L2), so the
// 1.8 MB input is read once, and two cores read disjoint rows. Tiles of one
// panel each read it three times, both cores reading the same rows.
// Channel blocks of 72 (72 rows of 56 floats and 72 x 8 weights, 18 KiB).
// CHECK-LABEL: func.func private @few_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 3, 7, 0, 0, 72, 0, 0], vector = 16, register = [28, 8], parallel = [0, 1, 2]>
// CHECK: scf.forall (%{{.*}}) in (8)
func.func @few(%x: tensor<1x144x56x56xf32>, %w: tensor<24x144x1x1xf32>) -> tensor<1x24x56x56xf32> {
  %0 = dlg.conv2d %x, %w : (tensor<1x144x56x56xf32>, tensor<24x144x1x1xf32>) -> tensor<1x24x56x56xf32>
  return %0 : tensor<1x24x56x56xf32>
}

// Large weights (3x3, 512 channels at 7x7: 9 MiB) keep whole rows, since
// every row block reads all the weights again: 8 tiles of 2 panels by all
// 7 rows; channel blocks of 16 (18 KiB of Wp). Every tile reads the whole
// input, so it is padded once, before the forall.
// CHECK-LABEL: func.func private @big_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 2, 7, 0, 0, 16, 0, 0], vector = 16, register = [7, 32], parallel = [0, 1, 2]>
// CHECK: tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: scf.forall (%{{.*}}) in (8)
// CHECK-NOT: tensor.pad
// CHECK: scf.forall.in_parallel
func.func @big(%x: tensor<1x512x7x7xf32>, %w: tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
  return %0 : tensor<1x512x7x7xf32>
}

// A kernel's own #dlk.schedule overrides the model: 8-pixel tiles, one
// row per parallel tile, all 64 channels in one block. Rows of 16
// pixels copy back in 16 x 16 blocks, transposed by shuffles.
// CHECK-LABEL: func.func private @given_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 1, 1, 0, 0, 0, 0, 0], vector = 16, register = [8, 32], parallel = [0, 1, 2]>
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (2, 16)
// CHECK: vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK-NOT: vector.transpose
// CHECK: vector.shuffle
// CHECK-NOT: vector.transpose
// CHECK: vector.transfer_write {{.*}} : vector<16x16xf32>, tensor<16x16xf32>
func.func @given(%x: tensor<1x64x16x16xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x16x16xf32> {
  %0 = dlk.kernel "contraction" schedule #dlk.schedule<tile = [1, 1, 1, 0, 0, 0, 0, 0], vector = 16, register = [8, 32], parallel = [0, 1, 2]> (%x, %w) : (tensor<1x64x16x16xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x16x16xf32> {
  ^bb0(%a: tensor<1x64x16x16xf32>, %b: tensor<64x64x3x3xf32>):
    %c = dlg.conv2d %a, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x64x16x16xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x16x16xf32>
    dlk.yield %c : tensor<1x64x16x16xf32>
  }
  return %0 : tensor<1x64x16x16xf32>
}

// Depthwise (MobileNet's 3x3, 96 channels at 28x28): chunks of 4
// channels (4 output planes, 12 KiB, within half of L1) in parallel, 24
// in all; 4 output rows at a time (independent FMA chains), each in whole
// vectors (16 lanes) and power-of-two pieces of what is left (8, then 4:
// 28 = 16 + 8 + 4), each one FMA per tap with the weight broadcast (the
// multiply-add marked contractible), the 9 taps unrolled with the
// accumulators in registers. Never one 28-lane
// vector carried by a loop, which LLVM legalises lane by lane (the zero
// fill, which no loop carries, may store 28 lanes at once).
// CHECK-LABEL: func.func private @depthwise_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 4, 0, 0, 0, 0], vector = 16, parallel = [0, 1]>
// CHECK: scf.forall (%{{.*}}) in (24)
// CHECK-NOT: -> (vector<
// CHECK-COUNT-9: arith.addf {{.*}} fastmath<contract> : vector<4x16xf32>
// CHECK-NOT: -> (vector<
// CHECK-COUNT-9: arith.addf {{.*}} fastmath<contract> : vector<4x8xf32>
// CHECK-NOT: -> (vector<
// CHECK-COUNT-9: arith.addf {{.*}} fastmath<contract> : vector<4x4xf32>
// CHECK-NOT: -> (vector<
// CHECK: return
func.func @depthwise(%x: tensor<1x96x28x28xf32>, %w: tensor<96x1x3x3xf32>) -> tensor<1x96x28x28xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 96} : (tensor<1x96x28x28xf32>, tensor<96x1x3x3xf32>) -> tensor<1x96x28x28xf32>
  return %0 : tensor<1x96x28x28xf32>
}

// Few channels under a tall kernel (6 channels, 7x4 taps: the 7x7
// stride-2 stem after a horizontal phase split): half of L1 fits only 2
// channels' Wp panel and input rows, but a block of one channel step
// left the 7 x 4 taps as the innermost reduction, unrolled into one chain
// of outer products whose operands spilled (2.1x slower). All 6
// channels form one block; the accumulators stay in registers across a
// channel loop in steps of 3.
// CHECK-LABEL: func.func private @tall_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 2, 14, 0, 0, 0, 0, 0], vector = 16, register = [8, 32], parallel = [0, 1, 2]>
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c3 iter_args({{.*}}) -> (vector<8x32xf32>)
func.func @tall(%x: tensor<1x6x112x115xf32>, %w: tensor<64x6x7x4xf32>) -> tensor<1x64x112x112xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 3, 0, 3, 0>} : (tensor<1x6x112x115xf32>, tensor<64x6x7x4xf32>) -> tensor<1x64x112x112xf32>
  return %0 : tensor<1x64x112x112xf32>
}

// ResNet-50's 3x3 stride-2 conv on 128 channels at 56x56 runs as a GEMM
// on im2col's 784 pixels, 49 panels of 16 (32 does not divide 784). 49
// cannot be halved, and M (128 output channels) stays whole: tiles of 7
// panels, the next smaller divisor, so both cores get work (one tile of
// all 49 ran the GEMM on one core).
// CHECK-LABEL: func.func private @odd_panels_kernel0
// CHECK-SAME: tile = [1, 7, 0, 0,
// CHECK-SAME: register = [16, 16], parallel = [0, 1]>
// CHECK: scf.forall (%{{.*}}) in (7)
func.func @odd_panels(%x: tensor<1x128x56x56xf32>, %w: tensor<128x128x3x3xf32>) -> tensor<1x128x28x28xf32> {
  %0 = dlg.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x128x56x56xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x28x28xf32>
  return %0 : tensor<1x128x28x28xf32>
}
