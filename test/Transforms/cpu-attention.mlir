// dlc-cpu-attention: the Q.K^T (+ scale, + mask), softmax and P.V kernels
// that dlg-fuse leaves for attention become one call to a flash-attention
// loop nest; its score tile is G rows x a block of keys in registers,
// nothing [s, s] is left.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-cpu-attention{min-keys=0 vector-width=16})' -split-input-file | FileCheck %s
// AVX2 width: blocks of 4 x 8 keys.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-cpu-attention{min-keys=0 vector-width=8})' -split-input-file | FileCheck %s --check-prefix=AVX2
// On by default with 16 lanes (measured faster at s = 16..2048); with 8
// under a causal mask or from 128 keys (measured faster from 128 on Zen 3);
// off with min-keys=-1.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-cpu-attention{vector-width=16})' -split-input-file | FileCheck %s --check-prefix=DEFAULT
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-cpu-attention{vector-width=8})' -split-input-file | FileCheck %s --check-prefix=DEFAULT8
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-cpu-attention{vector-width=16 min-keys=-1})' -split-input-file | FileCheck %s --check-prefix=OFF
// A key block set by option: 2 vectors of 16.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-cpu-attention{min-keys=0 vector-width=16 keys=32})' -split-input-file | FileCheck %s --check-prefix=KEYS32
// The fused loops go through the whole CPU pipeline.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-cpu-attention{min-keys=0},lower-to-llvm)' -split-input-file -o /dev/null
// Bad tile options are errors.
// RUN: not dlc-opt %s --pass-pipeline='builtin.module(dlc-cpu-attention{vector-width=5})' -split-input-file 2>&1 | FileCheck %s --check-prefix=BADW
// RUN: not dlc-opt %s --pass-pipeline='builtin.module(dlc-cpu-attention{rows=30 group=4})' -split-input-file 2>&1 | FileCheck %s --check-prefix=BADG
// RUN: not dlc-opt %s --pass-pipeline='builtin.module(dlc-cpu-attention{value-chunks=-1})' -split-input-file 2>&1 | FileCheck %s --check-prefix=BADV
// BADW: error: dlc-cpu-attention: vector-width must be 4, 8 or 16
// BADV: error: dlc-cpu-attention: value-chunks must be 0 (by the registers) or positive
// P.V one V vector a pass, by option: four passes of 4 x 1 accumulators.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlg-fuse),dlc-cpu-attention{min-keys=0 vector-width=16 value-chunks=1})' -split-input-file | FileCheck %s --check-prefix=VC1
// BADG: error: dlc-cpu-attention: group must be 1..8 and rows a multiple of group, at most 1024
// (a bad `keys`: cpu-attention-keys-invalid.mlir)

// BERT's layout: Q, K, V [s, heads*d] reshaped and transposed per head, a
// scale and a mask input.
// CHECK-LABEL: func.func @bert
// CHECK-NOT: dlk.kernel "reduction"
// CHECK: %[[O:.*]] = call @dlc_attention_0(%arg0, %arg1, %arg2, %arg3) {dlc.profile_flops = {{[0-9]+}} : i64, dlc.profile_root = "attention {{.*}}"} : (tensor<128x768xf32>, tensor<128x768xf32>, tensor<128x768xf32>, tensor<128x128xf32>) -> tensor<12x128x64xf32>
// CHECK-NEXT: dlk.kernel "injective"(%[[O]])
// CHECK-NOT: dlg.softmax
// CHECK-NOT: 12x128x128
// CHECK: func.func private @dlc_attention_0
// CHECK-SAME: attributes {dlc.attention_loops = {group = 4 : i64, head_vector = 16 : i64, keys = 64 : i64, rows = 64 : i64, value_vectors = 4 : i64}}
// CHECK-NOT: 12x128x128
// K^T tiles [d=64, 16 keys] per (head, 16 keys), built once:
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<98304xf32>
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (12, 8)
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// (head, block of 64 query rows) tasks in parallel; accumulator, P scratch
// [4 rows x 64 keys], running max, sum:
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (12, 2)
// CHECK-NEXT: memref.alloc() {alignment = 64 : i64} : memref<4096xf32>
// CHECK-NEXT: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
// The score tile: 4 rows x 4 vectors of 16 keys in registers, d 4 a step:
// CHECK: scf.for %{{.*}} = %c0 to %c64{{.*}} step %c4{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-COUNT-64: vector.fma %{{.*}} : vector<16xf32>
// CHECK: scf.yield
// Per row of the tile: one max and one sum reduction for its 64 keys, one
// exp of the correction, four of the scores, P stored for P.V. The max is
// a compare and a select (no NaN blends), over the 4 vectors and then
// halves down to one lane; the sum reduction may reassociate (a tree, not
// 16 dependent adds):
// CHECK: vector.transfer_read
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: vector.extract_strided_slice %{{.*}} {offsets = [8], sizes = [8], strides = [1]} : vector<16xf32> to vector<8xf32>
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : vector<1xf32>
// CHECK-NEXT: arith.select
// CHECK-NEXT: vector.extract %{{.*}}[0] : f32 from vector<1xf32>
// CHECK-NOT: vector.reduction
// CHECK: math.exp %{{.*}} : f32
// CHECK-COUNT-4: math.exp %{{.*}} : vector<16xf32>
// CHECK: vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
// CHECK-NOT: maximumf {{.*}} : vector
// CHECK: f32 from vector<1xf32>
// P.V: whole blocks 4 keys a step, p broadcast from the scratch, V rows:
// CHECK: scf.if
// CHECK: scf.for %{{.*}} = %c0 to %c64{{.*}} step %c4{{.*}} iter_args(
// CHECK: memref.load %[[P]]
// CHECK-NEXT: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK-COUNT-4: vector.fma
// CHECK: } else {
// CHECK: scf.for
// CHECK: vector.store %{{.*}} : memref<98304xf32>, vector<16xf32>
// AVX2-LABEL: func.func @bert
// AVX2: call @dlc_attention_0
// AVX2: dlc.attention_loops = {group = 4 : i64, head_vector = 8 : i64, keys = 16 : i64, rows = 64 : i64, value_vectors = 2 : i64}
// AVX2: scf.forall (%{{.*}}, %{{.*}}) in (12, 16)
// AVX2: vector.transpose %{{.*}}, [1, 0] : vector<8x8xf32> to vector<8x8xf32>
// AVX2: scf.forall (%{{.*}}, %{{.*}}) in (12, 2)
// AVX2: vector.fma %{{.*}} : vector<8xf32>
// DEFAULT-LABEL: func.func @bert
// DEFAULT-NEXT: call @dlc_attention_0
// OFF-LABEL: func.func @bert
// OFF: dlg.softmax
// OFF-NOT: call @dlc_attention
// DEFAULT8-LABEL: func.func @bert
// DEFAULT8-NEXT: call @dlc_attention_0
// VC1-LABEL: func.func @bert
// VC1: value_vectors = 1 : i64
// VC1-COUNT-4: = scf.if %{{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// VC1-NOT: scf.if %{{.*}} -> (vector
// VC1: return
// KEYS32-LABEL: func.func @bert
// KEYS32: keys = 32 : i64
// KEYS32: memref<128xf32>
// KEYS32: -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
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

// -----

// [b, h, s, d] operands, K given as [b, h, s, d] with transpose_b, a
// division by the scale, a [b, 1, 1, s] mask broadcast over heads and
// query rows (read as one value per key), odd lengths (tail blocks).
// CHECK-LABEL: func.func @bhsd
// CHECK: call @dlc_attention_0(%arg0, %arg1, %arg2, %arg3) {dlc.profile_flops = {{[0-9]+}} : i64, dlc.profile_root = "attention {{.*}}"} : (tensor<2x3x37x40xf32>, tensor<2x3x21x40xf32>, tensor<2x3x21x24xf32>, tensor<2x1x1x21xf32>) -> tensor<2x3x37x24xf32>
// 40 = 5 vectors of 8 along d; 24 = 3 vectors of 8:
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x8xf32> to vector<8x16xf32>
// CHECK: arith.divf %{{.*}} : vector<16xf32>
// CHECK: vector.fma %{{.*}} : vector<8xf32>
func.func @bhsd(%q: tensor<2x3x37x40xf32>, %k: tensor<2x3x21x40xf32>, %v: tensor<2x3x21x24xf32>, %m: tensor<2x1x1x21xf32>) -> tensor<2x3x37x24xf32> {
  %c = dlg.constant dense<8.0> : tensor<f32>
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<2x3x37x40xf32>, tensor<2x3x21x40xf32> -> tensor<2x3x37x21xf32>
  %s1 = dlg.div %s0, %c : tensor<2x3x37x21xf32>, tensor<f32> -> tensor<2x3x37x21xf32>
  %s2 = dlg.add %m, %s1 : tensor<2x1x1x21xf32>, tensor<2x3x37x21xf32> -> tensor<2x3x37x21xf32>
  %p = dlg.softmax %s2 {axis = 3 : i64} : tensor<2x3x37x21xf32>
  %o = dlg.matmul %p, %v : tensor<2x3x37x21xf32>, tensor<2x3x21x24xf32> -> tensor<2x3x37x24xf32>
  return %o : tensor<2x3x37x24xf32>
}

// -----

// Not attention as matched: softmax over another axis, a dropout-like
// scaling between softmax and P.V, a mask computed in the scores kernel.
// Each keeps the three kernels.
// CHECK-LABEL: func.func @other_axis
// CHECK-NOT: call @dlc_attention
// CHECK: dlg.softmax
func.func @other_axis(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
  %p = dlg.softmax %s0 {axis = 1 : i64} : tensor<2x8x8xf32>
  %o = dlg.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @dropout
// CHECK-NOT: call @dlc_attention
// CHECK: dlg.softmax
func.func @dropout(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %keep = dlg.constant dense<0.9> : tensor<f32>
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
  %p = dlg.softmax %s0 {axis = -1 : i64} : tensor<2x8x8xf32>
  %d = dlg.mul %p, %keep : tensor<2x8x8xf32>, tensor<f32> -> tensor<2x8x8xf32>
  %o = dlg.matmul %d, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @scale_input
// CHECK-NOT: call @dlc_attention
// CHECK: dlg.softmax
func.func @scale_input(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>, %c: tensor<f32>) -> tensor<2x8x16xf32> {
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
  %s1 = dlg.mul %s0, %c : tensor<2x8x8xf32>, tensor<f32> -> tensor<2x8x8xf32>
  %p = dlg.softmax %s1 {axis = -1 : i64} : tensor<2x8x8xf32>
  %o = dlg.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// A module's own threshold: 8 keys are below 16, so three kernels.
// CHECK-LABEL: func.func @own_threshold
// CHECK-NOT: call @dlc_attention
// CHECK: dlg.softmax
module attributes {dlc.attention_min_keys = 16 : i64} {
func.func @own_threshold(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
  %p = dlg.softmax %s0 {axis = -1 : i64} : tensor<2x8x8xf32>
  %o = dlg.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}
}

// -----

// A constant causal mask (0 on and below the diagonal, -1e9 above) is
// folded: no mask operand; the key blocks a task needs end at its last
// row's diagonal (divui), a group skips blocks above its diagonal (the
// scf.if), and a key is kept iff j < min(i + 1, N) (compare, no load).
// CHECK-LABEL: func.func @causal
// CHECK: call @dlc_attention_0(%arg0, %arg1, %arg2) {dlc.profile_flops = {{[0-9]+}} : i64, dlc.profile_root = "attention {{.*}}"} : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
// CHECK: func.func private @dlc_attention_0
// CHECK-NOT: vector.transfer_read
// CHECK: arith.divui
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: scf.if
// CHECK: arith.minui
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : vector<16xindex>
// CHECK-NOT: vector.transfer_read
// CHECK: return
// DEFAULT8-LABEL: func.func @causal
// DEFAULT8: call @dlc_attention_0(%arg0, %arg1, %arg2) {
// DEFAULT8: dlc.attention_loops = {group = 4 : i64, head_vector = 8 : i64, keys = 8 : i64, rows = 64 : i64, value_vectors = 2 : i64}
// OFF-LABEL: func.func @causal
// OFF: dlg.softmax
// OFF-NOT: call @dlc_attention
func.func @causal(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %mask = dlg.constant dense<[[0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<8x8xf32>
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
  %s1 = dlg.add %s0, %mask : tensor<2x8x8xf32>, tensor<8x8xf32> -> tensor<2x8x8xf32>
  %p = dlg.softmax %s1 {axis = -1 : i64} : tensor<2x8x8xf32>
  %o = dlg.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// -inf above the diagonal + 1 (each row sees one key more): c = 1.
// CHECK-LABEL: func.func @causal_offset_inf
// CHECK: call @dlc_attention_0(%arg0, %arg1, %arg2) {dlc.profile_flops = {{[0-9]+}} : i64, dlc.profile_root = "attention {{.*}}"} :
// CHECK: func.func private @dlc_attention_0
func.func @causal_offset_inf(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %mask = dlg.constant dense<[[0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<8x8xf32>
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
  %s1 = dlg.add %s0, %mask : tensor<2x8x8xf32>, tensor<8x8xf32> -> tensor<2x8x8xf32>
  %p = dlg.softmax %s1 {axis = -1 : i64} : tensor<2x8x8xf32>
  %o = dlg.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// Not folded, the mask is read: -1e4 above the diagonal can carry weight;
// CHECK-LABEL: func.func @mask_small
// CHECK: call @dlc_attention_0(%arg0, %arg1, %arg2, %{{.*}}) {dlc.profile_flops = {{[0-9]+}} : i64, dlc.profile_root = "attention {{.*}}"} :
// CHECK: vector.transfer_read
func.func @mask_small(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %mask = dlg.constant dense<[[0.000000e+00, -1.000000e+04, -1.000000e+04, -1.000000e+04, -1.000000e+04, -1.000000e+04, -1.000000e+04, -1.000000e+04], [0.000000e+00, 0.000000e+00, -1.000000e+04, -1.000000e+04, -1.000000e+04, -1.000000e+04, -1.000000e+04, -1.000000e+04], [0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+04, -1.000000e+04, -1.000000e+04, -1.000000e+04, -1.000000e+04], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+04, -1.000000e+04, -1.000000e+04, -1.000000e+04], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+04, -1.000000e+04, -1.000000e+04], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+04, -1.000000e+04], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+04], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<8x8xf32>
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
  %s1 = dlg.add %s0, %mask : tensor<2x8x8xf32>, tensor<8x8xf32> -> tensor<2x8x8xf32>
  %p = dlg.softmax %s1 {axis = -1 : i64} : tensor<2x8x8xf32>
  %o = dlg.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// ... the masked keys below the diagonal;
// CHECK-LABEL: func.func @mask_lower
// CHECK: call @dlc_attention_0(%arg0, %arg1, %arg2, %{{.*}}) {dlc.profile_flops = {{[0-9]+}} : i64, dlc.profile_root = "attention {{.*}}"} :
func.func @mask_lower(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %mask = dlg.constant dense<[[0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-1.000000e+09, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-1.000000e+09, -1.000000e+09, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-1.000000e+09, -1.000000e+09, -1.000000e+09, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, 0.000000e+00, 0.000000e+00], [-1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, 0.000000e+00]]> : tensor<8x8xf32>
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
  %s1 = dlg.add %s0, %mask : tensor<2x8x8xf32>, tensor<8x8xf32> -> tensor<2x8x8xf32>
  %p = dlg.softmax %s1 {axis = -1 : i64} : tensor<2x8x8xf32>
  %o = dlg.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// ... one more key masked in row 5;
// CHECK-LABEL: func.func @mask_hole
// CHECK: call @dlc_attention_0(%arg0, %arg1, %arg2, %{{.*}}) {dlc.profile_flops = {{[0-9]+}} : i64, dlc.profile_root = "attention {{.*}}"} :
func.func @mask_hole(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %mask = dlg.constant dense<[[0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, -1.000000e+09, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<8x8xf32>
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
  %s1 = dlg.add %s0, %mask : tensor<2x8x8xf32>, tensor<8x8xf32> -> tensor<2x8x8xf32>
  %p = dlg.softmax %s1 {axis = -1 : i64} : tensor<2x8x8xf32>
  %o = dlg.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// ... row 0 without a key (c = -1: its softmax is uniform over the -1e9s,
// not NaN).
// CHECK-LABEL: func.func @mask_negative_offset
// CHECK: call @dlc_attention_0(%arg0, %arg1, %arg2, %{{.*}}) {dlc.profile_flops = {{[0-9]+}} : i64, dlc.profile_root = "attention {{.*}}"} :
func.func @mask_negative_offset(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %mask = dlg.constant dense<[[-1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09, -1.000000e+09], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09]]> : tensor<8x8xf32>
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
  %s1 = dlg.add %s0, %mask : tensor<2x8x8xf32>, tensor<8x8xf32> -> tensor<2x8x8xf32>
  %p = dlg.softmax %s1 {axis = -1 : i64} : tensor<2x8x8xf32>
  %o = dlg.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// dv = 128 (group 4, measured faster than groups of 2) and 40 keys: a key
// block of 3 vectors, the score tile 4 x 3 vectors; P.V in two passes of
// 4 x 4 accumulators (all 32 of them at once left no register for V:
// 1.2x slower).
// 40 keys, no mask: three kernels by default with 8 lanes.
// DEFAULT8-LABEL: func.func @dv128
// DEFAULT8: dlg.softmax
// DEFAULT8-NOT: call @dlc_attention
// CHECK-LABEL: func.func @dv128
// CHECK: dlc.attention_loops = {group = 4 : i64, head_vector = 16 : i64, keys = 48 : i64, rows = 64 : i64, value_vectors = 4 : i64}
// CHECK: %{{.*}}:12 = scf.for
// CHECK: %{{.*}}:16 = scf.if
// CHECK: vector.store
// CHECK: %{{.*}}:16 = scf.if
// CHECK-NOT: scf.if
// CHECK: return
func.func @dv128(%q: tensor<2x40x64xf32>, %k: tensor<2x40x64xf32>, %v: tensor<2x40x128xf32>) -> tensor<2x40x128xf32> {
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<2x40x64xf32>, tensor<2x40x64xf32> -> tensor<2x40x40xf32>
  %p = dlg.softmax %s0 {axis = -1 : i64} : tensor<2x40x40xf32>
  %o = dlg.matmul %p, %v : tensor<2x40x40xf32>, tensor<2x40x128xf32> -> tensor<2x40x128xf32>
  return %o : tensor<2x40x128xf32>
}

// -----

// 512 keys without a mask: fused by default with 8 lanes too.
// DEFAULT8-LABEL: func.func @long_keys
// DEFAULT8: call @dlc_attention_0(%arg0, %arg1, %arg2) {
// CHECK-LABEL: func.func @long_keys
// CHECK: call @dlc_attention_0
func.func @long_keys(%q: tensor<1x8x16xf32>, %k: tensor<1x512x16xf32>, %v: tensor<1x512x16xf32>) -> tensor<1x8x16xf32> {
  %s0 = dlg.matmul %q, %k {transpose_b = true} : tensor<1x8x16xf32>, tensor<1x512x16xf32> -> tensor<1x8x512xf32>
  %p = dlg.softmax %s0 {axis = -1 : i64} : tensor<1x8x512xf32>
  %o = dlg.matmul %p, %v : tensor<1x8x512xf32>, tensor<1x512x16xf32> -> tensor<1x8x16xf32>
  return %o : tensor<1x8x16xf32>
}
