// --dlc-external-weights: constant globals with at least min-bytes of
// non-splat int/float data become external declarations; their data moves
// to the module's dlc.weights dictionary, which the JIT binds by symbol and
// the AOT compiler embeds as flat bytes.
// RUN: dlc-opt %s --dlc-external-weights=min-bytes=16 | FileCheck %s
// RUN: dlc-opt %s --dlc-external-weights | FileCheck %s --check-prefix=DEFAULT

// CHECK: module attributes {dlc.weights = {
// CHECK-SAME: big = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<8xf32>
// CHECK-SAME: ints = dense<[1, 2, 3, 4, 5]> : tensor<5xi32>
// CHECK-SAME: res = dense_resource<blob> : tensor<2x2xf32>
// The defaults keep everything below 4096 bytes.
// DEFAULT-NOT: dlc.weights
// DEFAULT: llvm.mlir.global private constant @big(dense<

// CHECK: llvm.mlir.global external constant @big() {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<8 x f32>
llvm.mlir.global private constant @big(dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<8 x f32>
// CHECK: llvm.mlir.global external constant @ints()
llvm.mlir.global private constant @ints(dense<[1, 2, 3, 4, 5]> : tensor<5xi32>) {addr_space = 0 : i32} : !llvm.array<5 x i32>
// CHECK: llvm.mlir.global external constant @res()
llvm.mlir.global private constant @res(dense_resource<blob> : tensor<2x2xf32>) {addr_space = 0 : i32} : !llvm.array<2 x array<2 x f32>>
// Below min-bytes: stays.
// CHECK: llvm.mlir.global private constant @small(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>)
llvm.mlir.global private constant @small(dense<[1.0, 2.0]> : tensor<2xf32>) {addr_space = 0 : i32} : !llvm.array<2 x f32>
// A splat is one element: stays.
// CHECK: llvm.mlir.global private constant @splat(dense<5.000000e-01> : tensor<64xf32>)
llvm.mlir.global private constant @splat(dense<0.5> : tensor<64xf32>) {addr_space = 0 : i32} : !llvm.array<64 x f32>
// i1: MLIR packs the bits, LLVM has a byte per element: stays.
// CHECK: llvm.mlir.global private constant @mask(dense<
llvm.mlir.global private constant @mask(dense<[true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false]> : tensor<20xi1>) {addr_space = 0 : i32} : !llvm.array<20 x i1>
// Mutable: the program may write it: stays.
// CHECK: llvm.mlir.global private @state(dense<
llvm.mlir.global private @state(dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>) {addr_space = 0 : i32} : !llvm.array<8 x f32>
// A resource whose blob is missing has no bytes to bind: stays.
// CHECK: llvm.mlir.global private constant @missing(dense_resource<nothing> : tensor<8xf32>)
llvm.mlir.global private constant @missing(dense_resource<nothing> : tensor<8xf32>) {addr_space = 0 : i32} : !llvm.array<8 x f32>

llvm.func @use() -> !llvm.ptr {
  // CHECK: llvm.mlir.addressof @big : !llvm.ptr
  %0 = llvm.mlir.addressof @big : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
