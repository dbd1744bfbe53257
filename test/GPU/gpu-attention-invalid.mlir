// A #dlk.schedule given to an attention subgraph (by the dlk.kernel that
// holds it) that the fused kernel cannot run is an error at the kernel.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlc-gpu-attention -o /dev/null

func.func @mma(%q: tensor<2x64x16xf32>, %k: tensor<2x16x64xf32>, %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{dlc-gpu-attention: #dlk.schedule of the attention kernel: mma is not supported: the fused kernel runs exact f32 FFMA (no tensor cores)}}
  %o = dlk.kernel "opaque" schedule #dlk.schedule<workgroup = [1, 16, 16, 0], thread = [1, 1, 0, 0], mma = [16, 8, 16]> (%q, %k, %v) : (tensor<2x64x16xf32>, tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  ^bb0(%a: tensor<2x64x16xf32>, %b: tensor<2x16x64xf32>, %c: tensor<2x64x16xf32>):
    %s = dlg.matmul %a, %b : tensor<2x64x16xf32>, tensor<2x16x64xf32> -> tensor<2x64x64xf32>
    %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x64x64xf32>
    %r = dlg.matmul %p, %c : tensor<2x64x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
    dlk.yield %r : tensor<2x64x16xf32>
  }
  return %o : tensor<2x64x16xf32>
}

// -----

func.func @stages(%q: tensor<2x64x16xf32>, %k: tensor<2x16x64xf32>, %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{dlc-gpu-attention: #dlk.schedule of the attention kernel: stages = 2: the fused kernel has no cp.async pipeline (1 only)}}
  %o = dlk.kernel "opaque" schedule #dlk.schedule<workgroup = [1, 16, 16, 0], thread = [1, 1, 0, 0], stages = 2> (%q, %k, %v) : (tensor<2x64x16xf32>, tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  ^bb0(%a: tensor<2x64x16xf32>, %b: tensor<2x16x64xf32>, %c: tensor<2x64x16xf32>):
    %s = dlg.matmul %a, %b : tensor<2x64x16xf32>, tensor<2x16x64xf32> -> tensor<2x64x64xf32>
    %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x64x64xf32>
    %r = dlg.matmul %p, %c : tensor<2x64x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
    dlk.yield %r : tensor<2x64x16xf32>
  }
  return %o : tensor<2x64x16xf32>
}

// -----

func.func @three_loops(%q: tensor<2x64x16xf32>, %k: tensor<2x16x64xf32>, %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{dlc-gpu-attention: #dlk.schedule of the attention kernel: workgroup must have 4 entries over [batch*head, query, key, d], e.g. [1, 32, 32, 0]; it has 3}}
  %o = dlk.kernel "opaque" schedule #dlk.schedule<workgroup = [1, 16, 16], thread = [1, 1, 0]> (%q, %k, %v) : (tensor<2x64x16xf32>, tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  ^bb0(%a: tensor<2x64x16xf32>, %b: tensor<2x16x64xf32>, %c: tensor<2x64x16xf32>):
    %s = dlg.matmul %a, %b : tensor<2x64x16xf32>, tensor<2x16x64xf32> -> tensor<2x64x64xf32>
    %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x64x64xf32>
    %r = dlg.matmul %p, %c : tensor<2x64x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
    dlk.yield %r : tensor<2x64x16xf32>
  }
  return %o : tensor<2x64x16xf32>
}

// -----

func.func @two_heads(%q: tensor<2x64x16xf32>, %k: tensor<2x16x64xf32>, %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{dlc-gpu-attention: #dlk.schedule of the attention kernel: workgroup = [2, _, _, 0]: a block takes one batch*head (1) and the whole d (0)}}
  %o = dlk.kernel "opaque" schedule #dlk.schedule<workgroup = [2, 16, 16, 0], thread = [1, 1, 0, 0]> (%q, %k, %v) : (tensor<2x64x16xf32>, tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  ^bb0(%a: tensor<2x64x16xf32>, %b: tensor<2x16x64xf32>, %c: tensor<2x64x16xf32>):
    %s = dlg.matmul %a, %b : tensor<2x64x16xf32>, tensor<2x16x64xf32> -> tensor<2x64x64xf32>
    %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x64x64xf32>
    %r = dlg.matmul %p, %c : tensor<2x64x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
    dlk.yield %r : tensor<2x64x16xf32>
  }
  return %o : tensor<2x64x16xf32>
}

// -----

func.func @d_tiled(%q: tensor<2x64x16xf32>, %k: tensor<2x16x64xf32>, %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{dlc-gpu-attention: #dlk.schedule of the attention kernel: workgroup = [0, _, _, 4]: a block takes one batch*head (1) and the whole d (0)}}
  %o = dlk.kernel "opaque" schedule #dlk.schedule<workgroup = [0, 16, 16, 4], thread = [1, 1, 0, 0]> (%q, %k, %v) : (tensor<2x64x16xf32>, tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  ^bb0(%a: tensor<2x64x16xf32>, %b: tensor<2x16x64xf32>, %c: tensor<2x64x16xf32>):
    %s = dlg.matmul %a, %b : tensor<2x64x16xf32>, tensor<2x16x64xf32> -> tensor<2x64x64xf32>
    %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x64x64xf32>
    %r = dlg.matmul %p, %c : tensor<2x64x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
    dlk.yield %r : tensor<2x64x16xf32>
  }
  return %o : tensor<2x64x16xf32>
}

// -----

func.func @thread_rows(%q: tensor<2x64x16xf32>, %k: tensor<2x16x64xf32>, %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{dlc-gpu-attention: #dlk.schedule of the attention kernel: thread must be [1, 1, 0, 0] (a thread a query row, every key, the whole d)}}
  %o = dlk.kernel "opaque" schedule #dlk.schedule<workgroup = [1, 16, 16, 0], thread = [1, 2, 0, 0]> (%q, %k, %v) : (tensor<2x64x16xf32>, tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  ^bb0(%a: tensor<2x64x16xf32>, %b: tensor<2x16x64xf32>, %c: tensor<2x64x16xf32>):
    %s = dlg.matmul %a, %b : tensor<2x64x16xf32>, tensor<2x16x64xf32> -> tensor<2x64x64xf32>
    %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x64x64xf32>
    %r = dlg.matmul %p, %c : tensor<2x64x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
    dlk.yield %r : tensor<2x64x16xf32>
  }
  return %o : tensor<2x64x16xf32>
}

// -----

func.func @rows_not_dividing(%q: tensor<2x64x16xf32>, %k: tensor<2x16x64xf32>, %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{dlc-gpu-attention: #dlk.schedule of the attention kernel: query rows a block (workgroup[1]) = 24 must divide the 64 query rows and be 1 to 1024 (a thread a row)}}
  %o = dlk.kernel "opaque" schedule #dlk.schedule<workgroup = [1, 24, 16, 0], thread = [1, 1, 0, 0]> (%q, %k, %v) : (tensor<2x64x16xf32>, tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  ^bb0(%a: tensor<2x64x16xf32>, %b: tensor<2x16x64xf32>, %c: tensor<2x64x16xf32>):
    %s = dlg.matmul %a, %b : tensor<2x64x16xf32>, tensor<2x16x64xf32> -> tensor<2x64x64xf32>
    %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x64x64xf32>
    %r = dlg.matmul %p, %c : tensor<2x64x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
    dlk.yield %r : tensor<2x64x16xf32>
  }
  return %o : tensor<2x64x16xf32>
}

// -----

func.func @rows_zero(%q: tensor<2x64x16xf32>, %k: tensor<2x16x64xf32>, %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{dlc-gpu-attention: #dlk.schedule of the attention kernel: query rows a block (workgroup[1]) = 0 must divide the 64 query rows and be 1 to 1024 (a thread a row)}}
  %o = dlk.kernel "opaque" schedule #dlk.schedule<workgroup = [1, 0, 16, 0], thread = [1, 1, 0, 0]> (%q, %k, %v) : (tensor<2x64x16xf32>, tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  ^bb0(%a: tensor<2x64x16xf32>, %b: tensor<2x16x64xf32>, %c: tensor<2x64x16xf32>):
    %s = dlg.matmul %a, %b : tensor<2x64x16xf32>, tensor<2x16x64xf32> -> tensor<2x64x64xf32>
    %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x64x64xf32>
    %r = dlg.matmul %p, %c : tensor<2x64x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
    dlk.yield %r : tensor<2x64x16xf32>
  }
  return %o : tensor<2x64x16xf32>
}

// -----

func.func @keys_zero(%q: tensor<2x64x16xf32>, %k: tensor<2x16x64xf32>, %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{dlc-gpu-attention: #dlk.schedule of the attention kernel: keys a step (workgroup[2]) = 0 must be 1 to 64 and at most the 64 keys (the step's scores live in registers)}}
  %o = dlk.kernel "opaque" schedule #dlk.schedule<workgroup = [1, 16, 0, 0], thread = [1, 1, 0, 0]> (%q, %k, %v) : (tensor<2x64x16xf32>, tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  ^bb0(%a: tensor<2x64x16xf32>, %b: tensor<2x16x64xf32>, %c: tensor<2x64x16xf32>):
    %s = dlg.matmul %a, %b : tensor<2x64x16xf32>, tensor<2x16x64xf32> -> tensor<2x64x64xf32>
    %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x64x64xf32>
    %r = dlg.matmul %p, %c : tensor<2x64x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
    dlk.yield %r : tensor<2x64x16xf32>
  }
  return %o : tensor<2x64x16xf32>
}

// -----

func.func @keys_over(%q: tensor<2x64x16xf32>, %k: tensor<2x16x64xf32>, %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{dlc-gpu-attention: #dlk.schedule of the attention kernel: keys a step (workgroup[2]) = 128 must be 1 to 64 and at most the 64 keys (the step's scores live in registers)}}
  %o = dlk.kernel "opaque" schedule #dlk.schedule<workgroup = [1, 16, 128, 0], thread = [1, 1, 0, 0]> (%q, %k, %v) : (tensor<2x64x16xf32>, tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  ^bb0(%a: tensor<2x64x16xf32>, %b: tensor<2x16x64xf32>, %c: tensor<2x64x16xf32>):
    %s = dlg.matmul %a, %b : tensor<2x64x16xf32>, tensor<2x16x64xf32> -> tensor<2x64x64xf32>
    %p = dlg.softmax %s {axis = -1 : i64} : tensor<2x64x64xf32>
    %r = dlg.matmul %p, %c : tensor<2x64x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
    dlk.yield %r : tensor<2x64x16xf32>
  }
  return %o : tensor<2x64x16xf32>
}
