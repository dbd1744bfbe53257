// dlc-copy-to-linalg's option cpu is a boolean: any other value is refused
// with the option named, and the pass is not run.
// RUN: not dlc-opt %s --pass-pipeline='builtin.module(dlc-copy-to-linalg{cpu=maybe})' 2>&1 | FileCheck %s
// CHECK: for the --cpu option: 'maybe' is invalid value for boolean argument
// CHECK: failed to add `dlc-copy-to-linalg` with options `cpu=maybe`
func.func @f() {
  return
}
