/* The JIT's compile-and-run API from several threads: two threads x 200
   calls on one compiled program give results bit-identical to a
   single-threaded call (each call takes its own workspace from the
   program's pool), a dynamic program's variants are compiled and run from
   two threads at once, and two programs compile in two threads at once.
   An optional second argument is the pipeline (test/AOT/tsan.test runs
   this program under ThreadSanitizer with OpenMP off: libomp is not
   instrumented). */
// RUN: %cc %s -o %t %ldlc -lpthread && %t %dlc_src/examples/mlp_block.mlir 2>&1 | FileCheck %s
// CHECK: workspace_bytes=131072 peak_bytes=131072 naive_bytes=133888
// CHECK: static: 2 threads x 200 calls, 0 mismatches
// CHECK: dynamic: 2 threads x 40 calls over 3 shapes, 0 mismatches
// CHECK: two programs compiled at once: ok

#include "dlc-c/Compile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CALLS = 200, NI = 5 };

static const char *gSource;
static size_t gLength;
static DlcProgram *gProgram;
static DlcTensor gIn[NI];
static float *gRef;
static size_t gOutBytes;

static void fill(DlcTensor *t, unsigned seed) {
  int64_t n = dlcTensorTypeNumElements(&t->type);
  float *d = malloc(sizeof *d * (size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    d[i] = (float)((seed >> 8) & 0xffff) / 65536.0f * 0.2f - 0.1f;
  }
  t->data = d;
}

static void *runMany(void *arg) {
  int *mismatches = arg;
  DlcTensor out = {dlcProgramOutput(gProgram, 0), malloc(gOutBytes)};
  char msg[256];
  for (int c = 0; c < CALLS; ++c) {
    memset(out.data, 0xff, gOutBytes);
    if (!dlcProgramRun(gProgram, gIn, &out, msg, sizeof msg) ||
        memcmp(out.data, gRef, gOutBytes))
      ++*mismatches;
  }
  free(out.data);
  return NULL;
}

/* A dynamic program: y = x * 2 + 1 over f32[?x16]. */
static const char kDynamic[] =
    "func.func @main(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {\n"
    "  %c = dlg.constant dense<2.0> : tensor<f32>\n"
    "  %o = dlg.constant dense<1.0> : tensor<f32>\n"
    "  %0 = dlg.mul %x, %c : tensor<?x16xf32>, tensor<f32> -> tensor<?x16xf32>\n"
    "  %1 = dlg.add %0, %o : tensor<?x16xf32>, tensor<f32> -> tensor<?x16xf32>\n"
    "  return %1 : tensor<?x16xf32>\n}\n";
static DlcProgram *gDynamic;

static void *runDynamic(void *arg) {
  int *mismatches = arg;
  char msg[256];
  for (int c = 0; c < 40; ++c) {
    int64_t rows = 1 + c % 3;
    float x[3 * 16], y[3 * 16];
    for (int i = 0; i < rows * 16; ++i)
      x[i] = (float)(i + c);
    DlcTensor in = {{DLC_F32, 2, {rows, 16}}, x}, out = {{DLC_F32, 2, {rows, 16}}, y};
    if (!dlcProgramRun(gDynamic, &in, &out, msg, sizeof msg)) {
      fprintf(stderr, "dynamic: %s\n", msg);
      ++*mismatches;
      continue;
    }
    for (int i = 0; i < rows * 16; ++i)
      *mismatches += y[i] != x[i] * 2.0f + 1.0f;
  }
  return NULL;
}

static DlcCompileOptions gOptions;

static void *compileOne(void *arg) {
  char *err = NULL;
  DlcProgram *p = dlcProgramCompile(gSource, gLength, "model.mlir", &gOptions, &err);
  if (!p) {
    fprintf(stderr, "compile: %s\n", err);
    free(err);
  }
  *(DlcProgram **)arg = p;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3)
    return 2;
  gOptions = (DlcCompileOptions){NULL, argc == 3 ? argv[2] : NULL, 0, 3};
  FILE *f = fopen(argv[1], "rb");
  static char buf[1 << 16];
  gLength = fread(buf, 1, sizeof buf, f);
  fclose(f);
  gSource = buf;
  char *err = NULL, msg[256];
  gProgram = dlcProgramCompile(gSource, gLength, argv[1], &gOptions, &err);
  if (!gProgram) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  for (int i = 0; i < NI; ++i) {
    gIn[i].type = dlcProgramInput(gProgram, i);
    fill(&gIn[i], 17u + (unsigned)i);
  }
  DlcMemoryPlan plan;
  if (!dlcProgramMemory(gProgram, NULL, &plan, msg, sizeof msg))
    return 1;
  printf("workspace_bytes=%lld peak_bytes=%lld naive_bytes=%lld\n",
         (long long)plan.workspaceBytes, (long long)plan.peakBytes, (long long)plan.naiveBytes);
  DlcTensorType ot = dlcProgramOutput(gProgram, 0);
  gOutBytes = (size_t)dlcTensorTypeNumElements(&ot) * sizeof(float);
  gRef = malloc(gOutBytes);
  DlcTensor ref = {ot, gRef};
  if (!dlcProgramRun(gProgram, gIn, &ref, msg, sizeof msg))
    return 1;

  pthread_t t[2];
  int bad[2] = {0, 0};
  for (int i = 0; i < 2; ++i)
    pthread_create(&t[i], NULL, runMany, &bad[i]);
  for (int i = 0; i < 2; ++i)
    pthread_join(t[i], NULL);
  printf("static: 2 threads x %d calls, %d mismatches\n", CALLS, bad[0] + bad[1]);

  gDynamic = dlcProgramCompile(kDynamic, sizeof kDynamic - 1, "dynamic.mlir", &gOptions, &err);
  if (!gDynamic) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  bad[0] = bad[1] = 0;
  for (int i = 0; i < 2; ++i)
    pthread_create(&t[i], NULL, runDynamic, &bad[i]);
  for (int i = 0; i < 2; ++i)
    pthread_join(t[i], NULL);
  printf("dynamic: 2 threads x 40 calls over 3 shapes, %d mismatches\n", bad[0] + bad[1]);

  DlcProgram *ps[2] = {NULL, NULL};
  for (int i = 0; i < 2; ++i)
    pthread_create(&t[i], NULL, compileOne, &ps[i]);
  for (int i = 0; i < 2; ++i)
    pthread_join(t[i], NULL);
  bool ok = ps[0] && ps[1];
  for (int i = 0; i < 2 && ok; ++i) {
    float *y = malloc(gOutBytes);
    DlcTensor out = {ot, y};
    ok = dlcProgramRun(ps[i], gIn, &out, msg, sizeof msg) && !memcmp(y, gRef, gOutBytes);
    free(y);
  }
  printf("two programs compiled at once: %s\n", ok ? "ok" : "FAILED");
  for (int i = 0; i < 2; ++i)
    dlcProgramDestroy(ps[i]);
  dlcProgramDestroy(gDynamic);
  dlcProgramDestroy(gProgram);
  for (int i = 0; i < NI; ++i)
    free(gIn[i].data);
  free(gRef);
  return 0;
}
