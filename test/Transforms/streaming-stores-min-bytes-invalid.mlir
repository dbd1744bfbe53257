// A negative threshold is refused, not taken as the default.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlc-streaming-stores{min-bytes=-5}))' --verify-diagnostics

// expected-error @+1 {{dlc-streaming-stores: min-bytes must be 0 or more, got -5}}
func.func @f() {
  return
}
