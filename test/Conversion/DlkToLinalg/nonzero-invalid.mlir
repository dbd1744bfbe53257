// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlk-to-linalg
// RUN: not dlc-opt %s --split-input-file --lower-to-nvvm 2>&1 | FileCheck %s --check-prefix=NVVM

// The loops of dlg.non_zero run on the host: the GPU pipeline
// (control-flow=false) refuses the op by name.
// NVVM: error: dlk-to-linalg: 'dlg.non_zero' (its loops run on the host) is not supported by this pipeline (control-flow=false: the GPU pipeline)

// Dynamic shapes: the padded size and the loop's bound would be run-time
// values; refused by name (the ONNX importer compiles per input shape).
func.func @dynamic(%x: tensor<?x3xf32>) -> (tensor<2x?xi64>, tensor<i64>) {
  // expected-error @+1 {{dlk-to-linalg: 'dlg.non_zero' needs a static shape (its input has a dynamic dim)}}
  %i, %n = dlg.non_zero %x : tensor<?x3xf32> -> tensor<2x?xi64>, tensor<i64>
  return %i, %n : tensor<2x?xi64>, tensor<i64>
}

// -----

func.func @gpu(%x: tensor<2x3xf32>) -> (tensor<2x6xi64>, tensor<i64>) {
  %i, %n = dlg.non_zero %x : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
  return %i, %n : tensor<2x6xi64>, tensor<i64>
}

// -----

// A function of the module already has the name of the op's loops: named,
// never called in their place.
func.func private @dlc_nonzero_2x3xf32(%x: tensor<2x3xf32>) -> (tensor<2x6xi64>, tensor<i64>)

func.func @clash(%x: tensor<2x3xf32>) -> (tensor<2x6xi64>, tensor<i64>) {
  // expected-error @+1 {{dlk-to-linalg: the module already has a symbol @dlc_nonzero_2x3xf32, the name of this op's loops}}
  %i, %n = dlg.non_zero %x : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
  return %i, %n : tensor<2x6xi64>, tensor<i64>
}
