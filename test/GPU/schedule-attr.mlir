// The GPU fields of #dlk.schedule: round trip, and every verifier error.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK: #dlk.schedule<vector = 4, workgroup = [64, 64, 0], thread = [4, 4, 0], stages = 2, mma = [16, 8, 16]>
func.func @round_trip() attributes {s = #dlk.schedule<workgroup = [64, 64, 0], thread = [4, 4, 0], vector = 4, stages = 2, mma = [16, 8, 16]>} { return }

// -----

// expected-error @+1 {{#dlk.schedule workgroup tile -1 at index 0 is negative (0 leaves a loop untiled)}}
func.func @negative_workgroup() attributes {s = #dlk.schedule<workgroup = [-1, 4]>} { return }

// -----

// expected-error @+1 {{#dlk.schedule thread tiles 4 loops; at most 3 map to GPU dimensions x, y, z}}
func.func @four_thread_dims() attributes {s = #dlk.schedule<thread = [1, 1, 1, 4]>} { return }

// -----

// expected-error @+1 {{#dlk.schedule workgroup has 2 tiles but thread has 3}}
func.func @lengths() attributes {s = #dlk.schedule<workgroup = [4, 4], thread = [1, 1, 0]>} { return }

// -----

// expected-error @+1 {{#dlk.schedule thread tile 3 does not divide workgroup tile 8 at index 1}}
func.func @not_dividing() attributes {s = #dlk.schedule<workgroup = [4, 8], thread = [1, 3]>} { return }

// -----

// expected-error @+1 {{#dlk.schedule stages must be at least 1, got 0}}
func.func @stages() attributes {s = #dlk.schedule<stages = 0>} { return }

// -----

// expected-error @+1 {{#dlk.schedule mma must be [16, 8, 16], [16, 8, 8] or [16, 8, 4] (mma.sync shapes) or [64, N, 16] with N a multiple of 8 up to 256 (wgmma.mma_async)}}
func.func @mma() attributes {s = #dlk.schedule<mma = [16, 16, 16]>} { return }

// -----

// CHECK: #dlk.schedule<workgroup = [64, 128, 0], thread = [64, 128, 0], stages = 2, mma = [64, 128, 16]>
func.func @round_trip_wgmma() attributes {s = #dlk.schedule<workgroup = [64, 128, 0], thread = [64, 128, 0], stages = 2, mma = [64, 128, 16]>} { return }

// -----

// expected-error @+1 {{#dlk.schedule mma must be [16, 8, 16], [16, 8, 8] or [16, 8, 4] (mma.sync shapes) or [64, N, 16] with N a multiple of 8 up to 256 (wgmma.mma_async)}}
func.func @wgmma_n() attributes {s = #dlk.schedule<mma = [64, 12, 16]>} { return }

// -----

// expected-error @+1 {{unknown schedule field 'warps' (expected tile, vector, register, parallel, workgroup, thread, stages or mma)}}
func.func @unknown() attributes {s = #dlk.schedule<warps = [4]>} { return }
