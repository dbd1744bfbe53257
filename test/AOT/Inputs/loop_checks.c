/* The run-time checks of an AOT library whose gathers sit in a loop's
   regions (loop_checks.mlir): ids that stay inside the table for every
   iteration run (code 0, the sum right); one that leaves it in the body
   is check 3, one the condition reads past the table check 2, the first
   failure in time. */
#include "walk.h"

#include <stdio.h>

static float table[5 * 4], x[2 * 4], first[4], y[2 * 4];

static int run(long long i0, long long i1, long long n) {
  const long long ids[2] = {i0, i1};
  const void *in[4] = {table, ids, x, &n};
  void *out[2] = {first, y};
  return walk_run(in, out, NULL);
}

int main(void) {
  for (int i = 0; i < 5 * 4; ++i)
    table[i] = 0.25f * (float)i;
  printf("checks: %d\n", WALK_NUM_CHECKS);
  int c = run(0, 1, 3); /* rows 0+1+2 and 1+2+3, column 0: 0+4+8, 4+8+12 (x 0.25) */
  printf("ids 0 1, 3 trips: %d, y %g %g\n", c, y[0], y[4]);
  c = run(0, 3, 3); /* the body reads row 3 + 2 = 5 */
  printf("ids 0 3, 3 trips: %d (%s)\n", c, walk_error_string(c));
  c = run(-5, -5, 7); /* the condition reads row 5 before the body fails */
  printf("ids -5 -5, 7 trips: %d (%s)\n", c, walk_error_string(c));
  c = run(0, 1, 3);
  printf("ids 0 1 again: %d, y %g %g\n", c, y[0], y[4]);
  return 0;
}
