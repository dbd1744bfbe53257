/* The per-kernel profiler's runtime (`dlc-run --profile`, Module.profile()).

   A program compiled with lower-to-llvm{profile=true} calls
   dlcProfileEnter(id) and dlcProfileExit(id) around each kernel (passes/
   profile.c) and describes kernel `id` in its module's `dlc.profile`
   attribute. While a run is recorded (dlcProfileRunBegin/End on the
   calling thread) the hooks add each kernel's time to its row and log a
   trace event. The table gives, per kernel, its time and share of the run,
   its rate (GFLOP/s for contractions, GB/s of operands and results for the
   rest) and that rate against this machine's roofline: min(FMA peak x
   threads, bytes/flop x read bandwidth), both measured once per process (a
   register-only FMA loop at the widest vector width the CPU has, and a
   one-core sum over 64 MiB). */

#ifndef DLC_RUNTIME_PROFILE_H
#define DLC_RUNTIME_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct DlcProfileKernel {
  char name[128], kind[32], root[192];
  double flops, bytes; /* per call; flops 0: memory-bound, rated in GB/s */
} DlcProfileKernel;

typedef struct DlcProfile DlcProfile;

/* A profile of `n` kernels (copied). */
DlcProfile *dlcProfileCreate(const DlcProfileKernel *kernels, int64_t n);
void dlcProfileDestroy(DlcProfile *p);
/* Forgets the runs recorded so far. */
void dlcProfileReset(DlcProfile *p);

/* Brackets one run on the calling thread: the hooks record into `p`. */
void dlcProfileRunBegin(DlcProfile *p);
void dlcProfileRunEnd(DlcProfile *p);

/* The hooks the compiled code calls (registered with the JIT). */
void dlcProfileEnter(int64_t id);
void dlcProfileExit(int64_t id);

/* The ISA the profiled code was compiled for ("avx2", "avx512" or "host",
   the default): the roofline is that ISA's FMA peak on this machine, so
   AVX2 code on an AVX-512 host is rated against 256-bit FMAs. */
void dlcProfileSetIsa(DlcProfile *p, const char *isa);

/* The table (malloc'd text) of the runs recorded, for `threads` threads
   (the roofline's FMA peak scales with them). */
char *dlcProfileTable(const DlcProfile *p, int threads);

/* The runs recorded as a Chrome trace (chrome://tracing, Perfetto): one
   complete ("X") event per kernel call, on one track, and one per run. */
bool dlcProfileWriteTrace(const DlcProfile *p, const char *path, char *error, size_t length);

#endif
