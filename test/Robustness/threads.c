/* Two threads calling one compiled program at once get exactly the results
   of one thread (each call takes its own workspace from the program's
   pool; the compiled code keeps no mutable globals), and two programs compile at once in two
   threads and run right. Issue 17. */
// RUN: %cc -pthread %s -o %t %ldlc && %t %dlc_src/examples/mlp_block.mlir 2>&1 | FileCheck %s
// CHECK: reference: 4 input sets
// CHECK: concurrent: 2 threads x 200 calls, 0 mismatches
// CHECK: parallel compile: 2 programs, 0 mismatches

#include "dlc-c/Compile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SETS = 4, CALLS = 200, MAX_IN = 8 };

static char *source;
static size_t sourceLength;
static DlcProgram *shared;
static intptr_t numInputs;
static DlcTensor inputs[SETS][MAX_IN];
static DlcTensorType outType;
static size_t outBytes;
static void *reference[SETS];

static size_t bytesOf(DlcTensorType t) {
  return (size_t)dlcTensorTypeNumBytes(&t);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}

/* Deterministic inputs per set: a different pattern in every set. */
static void makeInputs(void) {
  for (int s = 0; s < SETS; ++s)
    for (intptr_t i = 0; i < numInputs; ++i) {
      DlcTensor *t = &inputs[s][i];
      t->type = dlcProgramInput(shared, i);
      size_t n = bytesOf(t->type) / 4;
      float *d = xmalloc(n * 4);
      unsigned x = 2654435761u * (unsigned)(s * 31 + i + 1);
      for (size_t k = 0; k < n; ++k) {
        x = x * 1664525u + 1013904223u;
        d[k] = (float)((x >> 8) & 0xffff) / 65536.0f - 0.5f;
      }
      t->data = d;
    }
}

static bool runOnce(DlcProgram *p, int set, void *out) {
  DlcTensor o = {outType, out};
  char msg[256];
  if (!dlcProgramRun(p, inputs[set], &o, msg, sizeof msg)) {
    fprintf(stderr, "run failed: %s\n", msg);
    return false;
  }
  return true;
}

typedef struct {
  int id;
  int mismatches;
} Worker;

static void *callMany(void *arg) {
  Worker *w = arg;
  void *out = xmalloc(outBytes);
  for (int c = 0; c < CALLS; ++c) {
    int set = (c + w->id) % SETS;
    memset(out, 0xff, outBytes);
    if (!runOnce(shared, set, out) || memcmp(out, reference[set], outBytes) != 0)
      ++w->mismatches;
  }
  free(out);
  return NULL;
}

static void *compileAndRun(void *arg) {
  Worker *w = arg;
  char *err = NULL;
  DlcProgram *p = dlcProgramCompile(source, sourceLength, "model.mlir", NULL, &err);
  if (!p) {
    fprintf(stderr, "compile failed: %s\n", err ? err : "?");
    free(err);
    w->mismatches = 1000;
    return NULL;
  }
  void *out = xmalloc(outBytes);
  for (int set = 0; set < SETS; ++set)
    if (!runOnce(p, set, out) || memcmp(out, reference[set], outBytes) != 0)
      ++w->mismatches;
  free(out);
  dlcProgramDestroy(p);
  return NULL;
}

int main(int argc, char **argv) {
  FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
  if (!f) {
    fprintf(stderr, "usage: threads MODEL.mlir\n");
    return 1;
  }
  fseek(f, 0, SEEK_END);
  sourceLength = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  source = xmalloc(sourceLength);
  if (fread(source, 1, sourceLength, f) != sourceLength)
    return 1;
  fclose(f);
  char *err = NULL;
  DlcCompileOptions opts = {NULL, NULL, 1, 3};
  shared = dlcProgramCompile(source, sourceLength, "model.mlir", &opts, &err);
  if (!shared) {
    fprintf(stderr, "compile failed: %s\n", err ? err : "?");
    return 1;
  }
  numInputs = dlcProgramNumInputs(shared);
  if (numInputs > MAX_IN || dlcProgramNumOutputs(shared) != 1)
    return 1;
  outType = dlcProgramOutput(shared, 0);
  outBytes = bytesOf(outType);
  makeInputs();
  for (int s = 0; s < SETS; ++s) {
    reference[s] = xmalloc(outBytes);
    if (!runOnce(shared, s, reference[s]))
      return 1;
  }
  /* the sets must differ, or a mixed-up result would go unnoticed */
  for (int s = 1; s < SETS; ++s)
    if (!memcmp(reference[s], reference[0], outBytes))
      return fprintf(stderr, "input sets give equal outputs\n"), 1;
  printf("reference: %d input sets\n", SETS);

  pthread_t th[2];
  Worker w[2] = {{0, 0}, {1, 0}};
  for (int i = 0; i < 2; ++i)
    pthread_create(&th[i], NULL, callMany, &w[i]);
  for (int i = 0; i < 2; ++i)
    pthread_join(th[i], NULL);
  printf("concurrent: 2 threads x %d calls, %d mismatches\n", CALLS,
         w[0].mismatches + w[1].mismatches);

  Worker c[2] = {{0, 0}, {1, 0}};
  for (int i = 0; i < 2; ++i)
    pthread_create(&th[i], NULL, compileAndRun, &c[i]);
  for (int i = 0; i < 2; ++i)
    pthread_join(th[i], NULL);
  printf("parallel compile: 2 programs, %d mismatches\n", c[0].mismatches + c[1].mismatches);

  for (int s = 0; s < SETS; ++s) {
    free(reference[s]);
    for (intptr_t i = 0; i < numInputs; ++i)
      free(inputs[s][i].data);
  }
  dlcProgramDestroy(shared);
  free(source);
  return 0;
}
