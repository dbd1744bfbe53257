/* The ABI's error paths (built by dlc-compile.test against mlp.o). */
#include "mlp.h"

#include <stdio.h>

int main(void) {
  int rc = mlp_run(NULL, NULL, NULL);
  printf("null inputs: %d (%s)\n", rc, mlp_error_string(rc));
  const void *ins[MLP_NUM_INPUTS] = {0};
  void *outs[MLP_NUM_OUTPUTS] = {0};
  printf("null tensor: %d\n", mlp_run(ins, outs, NULL));
  printf("code 7: %s\n", mlp_error_string(7));
  printf("signature: %s\n", mlp_signature());
  return 0;
}
