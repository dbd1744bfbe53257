// dlc-cpu-attention reads the module's own threshold
// dlc.attention_min_keys: anything but an integer is an error at the module.
// RUN: dlc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(dlc-cpu-attention)' -o /dev/null

// expected-error @+1 {{dlc-cpu-attention: dlc.attention_min_keys must be an integer}}
module attributes {dlc.attention_min_keys = "128"} {
}

// -----

// expected-error @+1 {{dlc-cpu-attention: dlc.attention_min_keys must be an integer}}
module attributes {dlc.attention_min_keys = 1.28e2 : f32} {
}
