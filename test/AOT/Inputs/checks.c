/* The run-time checks of an AOT library (gather_checks.mlir): ids inside
   the table run (code 0, the rows right), an id outside it is error code
   EMB_ERROR_CHECK naming the gather, with the caller's workspace or with
   the library's own (NULL), and a failed call leaves the next one right. */
#include "emb.h"

#include <stdio.h>
#include <stdlib.h>

static float table[5 * 8], w[8 * 16], y[4 * 16];

static int run(const long long *ids, void *ws) {
  const void *in[3] = {table, ids, w};
  void *out[1] = {y};
  return emb_run(in, out, ws);
}

/* y[0][0] for ids[0] = 2: relu(table[2]) . w[:, 0] */
static float expected(void) {
  float s = 0;
  for (int k = 0; k < 8; ++k)
    s += (table[2 * 8 + k] > 0 ? table[2 * 8 + k] : 0) * w[k * 16];
  return s;
}

int main(void) {
  for (int i = 0; i < 5 * 8; ++i)
    table[i] = (float)(i % 7) - 2;
  for (int i = 0; i < 8 * 16; ++i)
    w[i] = (float)(i % 5) * 0.5f;
  void *ws = malloc(emb_workspace_size() + 64);
  const long long good[4] = {2, -1, 0, -5}, high[4] = {2, 5, 0, 1}, low[4] = {2, 1, -6, 1};
  printf("checks: %d, workspace: %s\n", EMB_NUM_CHECKS, emb_workspace_size() > 0 ? "yes" : "no");
  for (int pass = 0; pass < 2; ++pass) {
    void *buf = pass ? NULL : ws;
    const char *how = pass ? "own workspace" : "caller's workspace";
    int c = run(good, buf);
    printf("%s, good ids: %d, y[0][0] %s\n", how, c, y[0] == expected() ? "right" : "WRONG");
    c = run(high, buf);
    printf("%s, id 5: %d (%s)\n", how, c, emb_error_string(c));
    c = run(low, buf);
    printf("%s, id -6: %d (%s)\n", how, c, c == EMB_ERROR_CHECK ? "EMB_ERROR_CHECK" : "?");
    c = run(good, buf);
    printf("%s, good ids again: %d, y[0][0] %s\n", how, c, y[0] == expected() ? "right" : "WRONG");
  }
  free(ws);
  return 0;
}
