// dlc-cpu-attention's errors on its options and on the module's own
// threshold, each located at the module.
// RUN: dlc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(dlc-cpu-attention{vector-width=16 keys=24})' -o /dev/null
// RUN: dlc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(dlc-cpu-attention{vector-width=8 keys=72})' -o /dev/null

// A key block is whole vectors, at most 8 of them: 24 keys are 1.5 vectors
// of 16; 72 are 9 vectors of 8.
// expected-error @+1 {{dlc-cpu-attention: keys must be a multiple of vector-width, at most 8 vectors}}
module {
}
