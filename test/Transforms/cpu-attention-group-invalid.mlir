// dlc-cpu-attention's query rows per task must be whole groups of 1 to 8
// rows (30 rows are not groups of 4, the default).
// RUN: dlc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(dlc-cpu-attention{rows=30})' -o /dev/null
// RUN: dlc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(dlc-cpu-attention{rows=30 group=4})' -o /dev/null
// RUN: dlc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(dlc-cpu-attention{group=9})' -o /dev/null

// expected-error @+1 {{dlc-cpu-attention: group must be 1..8 and rows a multiple of group, at most 1024}}
module {
}
