// Which convs the direct conv takes with AVX2's 16 vector registers, and
// their register tiles (schedule/conv_direct.c, kDirectRate; cost_model.c,
// dlcConvRegisterRows), on the AVX2 target's fixed cache model.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlk-to-linalg{vector-width=8},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,dlc-cpu-schedule{target=avx2},canonicalize,cse)' | FileCheck %s

// Rows of 7 pixels fit a 1 x 16 tile (7 x 8 with one vector): ResNet-50's
// 7x7 stage goes as a GEMM over its 49 flattened pixels instead, 6 x 16
// tiles and a row left over, W packed into channel panels (5-dim loops,
// not the direct conv's 8).
// CHECK-LABEL: func.func private @big_kernel0
// CHECK-SAME: #dlk.schedule<tile = [8, 0, 0, 0, 288], vector = 8, register = [6, 16], parallel = [0]>
// CHECK: vector.outerproduct {{.*}} : vector<6xf32>, vector<16xf32>
// CHECK: vector.outerproduct {{.*}} : vector<16xf32>, f32
// CHECK-LABEL: func.func @mid
func.func @big(%x: tensor<1x512x7x7xf32>, %w: tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
  return %0 : tensor<1x512x7x7xf32>
}

// Rows of 14: 2 x 16 tiles, so the GEMM too (196 pixels).
// CHECK-LABEL: func.func private @mid_kernel0
// CHECK-SAME: #dlk.schedule<tile = [4, 0, 0, 0, 384], vector = 8, register = [6, 16], parallel = [0]>
// CHECK-LABEL: func.func @rows28
func.func @mid(%x: tensor<1x256x14x14xf32>, %w: tensor<256x256x3x3xf32>) -> tensor<1x256x14x14xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x256x14x14xf32>, tensor<256x256x3x3xf32>) -> tensor<1x256x14x14xf32>
  return %0 : tensor<1x256x14x14xf32>
}

// Rows of 28: 4 x 16 tiles (80% of the FMA rate in the model), direct.
// CHECK-LABEL: func.func private @rows28_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 4, 7, 0, 0, 16, 0, 0], vector = 8, register = [4, 16], parallel = [0, 1, 2]>
// W's 8 panels are packed once, before the forall: fused into its 8 tiles
// (2 halves of the panels by 4 blocks of rows), each half was packed 4 times.
// CHECK-NOT: scf.forall
// CHECK: scf.for {{.*}} -> (tensor<8x128x3x3x16xf32>)
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (2, 4)
// CHECK: vector.outerproduct {{.*}} : vector<4xf32>, vector<16xf32>
// CHECK-LABEL: func.func @batch
func.func @rows28(%x: tensor<1x128x28x28xf32>, %w: tensor<128x128x3x3xf32>) -> tensor<1x128x28x28xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x128x28x28xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x28x28xf32>
  return %0 : tensor<1x128x28x28xf32>
}

// Two images of 14x14 have no GEMM to go to (196 pixels are no multiple of
// a panel, the transposed GEMM takes one image): direct, with one-vector
// panels, whose 7 x 8 tile beats 2 x 16.
// CHECK-LABEL: func.func private @batch_kernel0
// CHECK-SAME: #dlk.schedule<tile = [1, 2, 14, 0, 0, 32, 0, 0], vector = 8, register = [7, 8], parallel = [0, 1, 2]>
// CHECK: vector.outerproduct {{.*}} : vector<7xf32>, vector<8xf32>
// CHECK-LABEL: func.func @few
func.func @batch(%x: tensor<2x64x14x14xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<2x64x14x14xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x64x14x14xf32>, tensor<64x64x3x3xf32>) -> tensor<2x64x14x14xf32>
  return %0 : tensor<2x64x14x14xf32>
}

// 24 output channels (MobileNetV2) give 8-channel panels; a tile of 14
// pixels would hold all 16 ymm (14 accumulators, W and a broadcast) and
// spill, so 8 x 8, keeping one register spare.
// CHECK-LABEL: func.func private @few_kernel0
// CHECK-SAME: register = [8, 8]
// CHECK: vector.outerproduct {{.*}} : vector<8xf32>, vector<8xf32>
// CHECK-LABEL: func.func @taps5
func.func @few(%x: tensor<1x144x56x56xf32>, %w: tensor<24x144x1x1xf32>) -> tensor<1x24x56x56xf32> {
  %0 = dlg.conv2d %x, %w : (tensor<1x144x56x56xf32>, tensor<24x144x1x1xf32>) -> tensor<1x24x56x56xf32>
  return %0 : tensor<1x24x56x56xf32>
}

// The taps stay loops, carrying the hoisted accumulators, with the channel
// steps inside (emitDirectConvGroup): a 5 x 5 filter's taps unrolled by
// four were one block whose weights LLVM hoisted out of the pixel loop
// onto the stack while it spilled accumulators, at half the speed.
// CHECK-LABEL: func.func private @taps5_kernel0
// CHECK-SAME: register = [4, 16]
// CHECK: scf.forall
// CHECK: scf.for %{{.*}} = %c0 to %c5 step %c1 iter_args(%{{.*}}) -> (vector<4x16xf32>)
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c5 step %c1 iter_args(%{{.*}}) -> (vector<4x16xf32>)
// CHECK-NOT: scf.yield
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c4 iter_args(%{{.*}}) -> (vector<4x16xf32>)
// CHECK-COUNT-4: vector.outerproduct {{.*}} : vector<4xf32>, vector<16xf32>
// CHECK-NEXT: scf.yield %{{.*}} : vector<4x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %{{.*}} : vector<4x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %{{.*}} : vector<4x16xf32>
func.func @taps5(%x: tensor<1x64x28x28xf32>, %w: tensor<64x64x5x5xf32>) -> tensor<1x64x28x28xf32> {
  %0 = dlg.conv2d %x, %w {padding = array<i64: 2, 2, 2, 2>} : (tensor<1x64x28x28xf32>, tensor<64x64x5x5xf32>) -> tensor<1x64x28x28xf32>
  return %0 : tensor<1x64x28x28xf32>
}

// 21 output channels (a segmentation head's classes), no multiple of half
// a vector: W padded with 3 zero channels to 24, the direct conv's 8-wide
// panels, and the padded NCHW result sliced back to 21 channels. It went
// through im2col before: 2.5 ms against 1.5-1.7 (Zen 3, 1 thread).
// CHECK-LABEL: func.func private @classes21_kernel0
// CHECK-SAME: register = [8, 8]
// CHECK: tensor.pad %arg1 low[0, 0, 0, 0] high[3, 0, 0, 0]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 21, 56, 56] [1, 1, 1, 1] : tensor<1x24x56x56xf32> to tensor<1x21x56x56xf32>
func.func @classes21(%x: tensor<1x64x56x56xf32>, %w: tensor<21x64x3x3xf32>) -> tensor<1x21x56x56xf32> {
  %y = dlg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x64x56x56xf32>, tensor<21x64x3x3xf32>) -> tensor<1x21x56x56xf32>
  return %y : tensor<1x21x56x56xf32>
}

// YOLOv3's 13x13 head, 1024 -> 255 channels 1x1: neither direct (Wo = 13)
// nor a GEMM (169 pixels, 255 channels: no whole panels) took it, and it
// ran plain loops (46.9 ms against 1.2 for 256 channels). W is padded with
// one zero channel to 256, the channel-panel GEMM runs, the result is
// sliced back to 255 channels.
// CHECK-LABEL: func.func private @yolo13_kernel0
// CHECK-SAME: register = [6, 16]
// CHECK: tensor.pad %arg1 low[0, 0, 0, 0] high[1, 0, 0, 0]
// CHECK: tensor<1x256x13x13xf32> to tensor<1x255x13x13xf32>
func.func @yolo13(%x: tensor<1x1024x13x13xf32>, %w: tensor<255x1024x1x1xf32>) -> tensor<1x255x13x13xf32> {
  %y = dlg.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1024x13x13xf32>, tensor<255x1024x1x1xf32>) -> tensor<1x255x13x13xf32>
  return %y : tensor<1x255x13x13xf32>
}
