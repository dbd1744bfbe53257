// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(dlc-streaming-stores{target=sse}))' --verify-diagnostics

// expected-error @+1 {{dlc-streaming-stores: unknown target 'sse' (host, avx2 or avx512)}}
func.func @f() {
  return
}
