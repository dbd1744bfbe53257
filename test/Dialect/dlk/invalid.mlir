// RUN: dlc-opt %s --split-input-file --verify-diagnostics

func.func @unknown_kind(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dlk.kernel' op unknown kind "fused" (expected elementwise, reduction, contraction, injective or opaque)}}
  %r = dlk.kernel "fused" (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    dlk.yield %a : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @arg_count(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dlk.kernel' op body has 2 arguments but the kernel has 1 operands}}
  %r = dlk.kernel "elementwise" (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
    dlk.yield %a : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @arg_type(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dlk.kernel' op body argument #0 has type 'tensor<4xf32>' but operand #0 has type 'tensor<8xf32>'}}
  %r = dlk.kernel "elementwise" (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = dlg.constant dense<0.0> : tensor<8xf32>
    dlk.yield %0 : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @yield_count(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = dlk.kernel "elementwise" (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    // expected-error @+1 {{'dlk.yield' op yields 2 values but the kernel has 1 results}}
    dlk.yield %a, %a : tensor<8xf32>, tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @yield_type(%x: tensor<8xf32>) -> tensor<8xf16> {
  %r = dlk.kernel "elementwise" (%x) : (tensor<8xf32>) -> tensor<8xf16> {
  ^bb0(%a: tensor<8xf32>):
    // expected-error @+1 {{'dlk.yield' op value #0 has type 'tensor<8xf32>' but kernel result #0 has type 'tensor<8xf16>'}}
    dlk.yield %a : tensor<8xf32>
  }
  return %r : tensor<8xf16>
}

// -----

func.func @no_results(%x: tensor<8xf32>) {
  // expected-error @+1 {{'dlk.kernel' op must have at least one result}}
  dlk.kernel "elementwise" (%x) : (tensor<8xf32>) -> () {
  ^bb0(%a: tensor<8xf32>):
    dlk.yield
  }
  return
}

// -----

func.func @isolated(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = dlk.kernel "elementwise" (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    // expected-error @+1 {{'dlg.exp' op using value defined outside the region}}
    %0 = dlg.exp %x : tensor<8xf32>
    dlk.yield %0 : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @missing_terminator(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = dlk.kernel "elementwise" (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    // expected-error @+1 {{block with no terminator}}
    %0 = dlg.exp %a : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @yield_outside(%x: tensor<8xf32>) {
  // expected-error @+1 {{'dlk.yield' op expects parent op 'dlk.kernel'}}
  dlk.yield %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{#dlk.schedule vector width must be positive, got 0}}
func.func @vector_width() attributes {s = #dlk.schedule<vector = 0>} { return }

// -----

// expected-error @+1 {{#dlk.schedule tile size -4 at index 1 is negative (0 leaves a loop untiled)}}
func.func @negative_tile() attributes {s = #dlk.schedule<tile = [8, -4]>} { return }

// -----

// expected-error @+1 {{#dlk.schedule parallel dim 2 is out of range for 2 tiled loops}}
func.func @parallel_range() attributes {s = #dlk.schedule<tile = [8, 4], parallel = [2]>} { return }

// -----

// expected-error @+1 {{#dlk.schedule parallel dim 0 repeats}}
func.func @parallel_repeat() attributes {s = #dlk.schedule<parallel = [0, 0]>} { return }

// -----

// expected-error @+1 {{#dlk.schedule parallel dim -1 is negative}}
func.func @parallel_negative() attributes {s = #dlk.schedule<parallel = [-1]>} { return }

// -----

// expected-error @+1 {{unknown schedule field 'unroll' (expected tile, vector, register, parallel, workgroup, thread, stages or mma)}}
func.func @unknown_field() attributes {s = #dlk.schedule<unroll = 4>} { return }

// -----

// expected-error @+1 {{'tile' is given twice}}
func.func @twice() attributes {s = #dlk.schedule<tile = [1], tile = [2]>} { return }

// -----

// expected-error @+1 {{#dlk.schedule register tile must be [MR, NR], both positive}}
func.func @register_rank() attributes {s = #dlk.schedule<vector = 8, register = [6]>} { return }

// -----

// expected-error @+1 {{#dlk.schedule register tile must be [MR, NR], both positive}}
func.func @register_zero() attributes {s = #dlk.schedule<vector = 8, register = [0, 16]>} { return }
