/* dlcParallelFor, MLIR's parallelFor for C passes (dlc-c/Pass.h): every
   body runs once; the diagnostics of bodies that finish out of order (one
   sleeps while the others run) come out in the order of their indices, with multithreading on and off;
   one failing body fails the whole; no bodies is a success. */
// RUN: %cc %s -o %t %ldlc -lpthread && %t 2>&1 | FileCheck %s
// CHECK:      threaded: failed=1 ran=16 each once=1 threads as expected=1
// CHECK-NEXT: error: body 1
// CHECK-NEXT: error: body 3
// CHECK-NEXT: error: body 5
// CHECK-NEXT: error: body 7
// CHECK-NEXT: error: body 9
// CHECK-NEXT: error: body 11
// CHECK-NEXT: error: body 13
// CHECK-NEXT: error: body 15
// CHECK-NEXT: serial: failed=1 ran=16 each once=1 threads as expected=1
// CHECK-NEXT: error: body 1
// CHECK:      error: body 15
// CHECK-NEXT: all succeed: failed=0 ran=16 each once=1 threads as expected=1
// CHECK-NEXT: no bodies: failed=0 ran=0

#define _GNU_SOURCE
#include "dlc-c/Context.h"
#include "dlc-c/Pass.h"

#include "mlir-c/Diagnostics.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { N = 16 };

typedef struct {
  MlirContext ctx;
  bool failOdd;
  atomic_int calls[N];
  pthread_t thread[N];
} Work;

static MlirLogicalResult body(intptr_t i, void *user) {
  Work *w = user;
  atomic_fetch_add(&w->calls[i], 1);
  w->thread[i] = pthread_self();
  /* body 1 finishes last: the other threads run the rest meanwhile */
  if (i == 1)
    nanosleep(&(struct timespec){0, 60000000L}, NULL);
  if (!w->failOdd || i % 2 == 0)
    return mlirLogicalResultSuccess();
  char msg[32];
  snprintf(msg, sizeof msg, "body %ld", (long)i);
  mlirEmitError(mlirLocationUnknownGet(w->ctx), msg);
  return mlirLogicalResultFailure();
}

/* Diagnostics are printed as the engine hands them over; the summary line
   comes first, so they are kept until then. */
static char gLog[4096];

static void append(MlirStringRef s, void *u) {
  (void)u;
  strncat(gLog, s.data, s.length < sizeof gLog - strlen(gLog) - 1 ? s.length
                                                                  : sizeof gLog - strlen(gLog) - 1);
}

static MlirLogicalResult onDiagnostic(MlirDiagnostic d, void *u) {
  (void)u;
  append(mlirStringRefCreateFromCString("error: "), NULL);
  mlirDiagnosticPrint(d, append, NULL);
  append(mlirStringRefCreateFromCString("\n"), NULL);
  return mlirLogicalResultSuccess();
}

static void run(const char *label, MlirContext ctx, intptr_t n, bool failOdd, bool threaded) {
  Work w = {.ctx = ctx, .failOdd = failOdd};
  gLog[0] = '\0';
  MlirLogicalResult r = dlcParallelFor(ctx, n, body, &w);
  int ran = 0, once = 1, threads = n > 0;
  for (int i = 0; i < N; ++i) {
    ran += atomic_load(&w.calls[i]);
    once &= i >= n || atomic_load(&w.calls[i]) == 1;
    bool seen = false;
    for (int j = 0; j < i && i < n; ++j)
      seen |= pthread_equal(w.thread[j], w.thread[i]) != 0;
    threads += i > 0 && i < n && !seen;
  }
  /* more than one thread exactly when threaded on more than one core */
  cpu_set_t set;
  int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  if (n > 0)
    printf("%s: failed=%d ran=%d each once=%d threads as expected=%d\n%s", label,
           mlirLogicalResultIsFailure(r), ran, once,
           (threads > 1) == (threaded && cores > 1), gLog);
  else
    printf("%s: failed=%d ran=%d\n%s", label, mlirLogicalResultIsFailure(r), ran, gLog);
}

int main(void) {
  MlirContext ctx = dlcContextCreate();
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, NULL, NULL);
  mlirContextEnableMultithreading(ctx, true);
  run("threaded", ctx, N, true, true);
  mlirContextEnableMultithreading(ctx, false);
  run("serial", ctx, N, true, false);
  mlirContextEnableMultithreading(ctx, true);
  run("all succeed", ctx, N, false, true);
  run("no bodies", ctx, 0, true, true);
  mlirContextDestroy(ctx);
  return 0;
}
