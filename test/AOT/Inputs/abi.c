/* The ABI's error paths (built by dlc-compile.test against mlp.o). */
#include "mlp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  int rc = mlp_run(NULL, NULL, NULL);
  printf("null inputs: %d (%s)\n", rc, mlp_error_string(rc));
  const void *ins[MLP_NUM_INPUTS] = {0};
  void *outs[MLP_NUM_OUTPUTS] = {0};
  printf("null tensor: %d\n", mlp_run(ins, outs, NULL));
  printf("code 7: %s\n", mlp_error_string(7));
  printf("signature: %s\n", mlp_signature());
  /* Outputs overlapping an input: refused (code 3), whether the same
     buffer, or one that starts inside it; buffers that only touch run. */
  size_t total = MLP_OUTPUT0_BYTES;
  for (int i = 0; i < MLP_NUM_INPUTS; ++i)
    total += mlp_input_bytes[i];
  char *arena = calloc(1, total);
  size_t at = 0;
  for (int i = 0; i < MLP_NUM_INPUTS; ++i) {
    ins[i] = arena + at;
    at += mlp_input_bytes[i];
  }
  outs[0] = (void *)ins[0];
  int same = mlp_run(ins, outs, NULL);
  printf("output = input 0: %d (%s)\n", same, mlp_error_string(same));
  outs[0] = (char *)ins[MLP_NUM_INPUTS - 1] + 4;
  printf("output inside the last input: %d\n", mlp_run(ins, outs, NULL));
  outs[0] = arena + at;
  printf("output right after the last input: %d\n", mlp_run(ins, outs, NULL));
  free(arena);
  return 0;
}
