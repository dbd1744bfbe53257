/* The per-kernel profiler's runtime (profile.h). */

#include "profile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

typedef struct {
  int64_t id; /* -1: a whole run */
  int64_t start, end; /* ns */
} Event;

typedef struct {
  int64_t calls, ns;
} Row;

struct DlcProfile {
  DlcProfileKernel *kernels;
  Row *rows;
  int64_t n;
  Event *events;
  int64_t numEvents, capEvents;
  int64_t runs, runNs, origin, runStart;
  int64_t open[64]; /* enter times of the kernels entered and not exited (nesting) */
  int depth;
  bool avx2; /* compiled for AVX2: rated against 256-bit FMAs */
};

/* Trace events kept per profile: enough for thousands of runs of a model. */
enum { kMaxEvents = 1 << 20 };

static _Thread_local DlcProfile *current;

static int64_t nowNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

DlcProfile *dlcProfileCreate(const DlcProfileKernel *kernels, int64_t n) {
  DlcProfile *p = calloc(1, sizeof *p);
  p->n = n;
  p->kernels = calloc((size_t)n + 1, sizeof *p->kernels);
  p->rows = calloc((size_t)n + 1, sizeof *p->rows);
  if (n)
    memcpy(p->kernels, kernels, sizeof *kernels * (size_t)n);
  p->origin = nowNs();
  return p;
}

void dlcProfileDestroy(DlcProfile *p) {
  if (!p)
    return;
  if (current == p)
    current = NULL;
  free(p->kernels);
  free(p->rows);
  free(p->events);
  free(p);
}

void dlcProfileReset(DlcProfile *p) {
  memset(p->rows, 0, sizeof *p->rows * (size_t)(p->n + 1));
  p->numEvents = p->runs = p->runNs = 0;
  p->depth = 0;
  p->origin = nowNs();
}

static void logEvent(DlcProfile *p, int64_t id, int64_t start, int64_t end) {
  if (p->numEvents == p->capEvents) {
    if (p->capEvents == kMaxEvents)
      return; /* the table still counts it */
    p->capEvents = p->capEvents ? 2 * p->capEvents : 1024;
    p->events = realloc(p->events, sizeof *p->events * (size_t)p->capEvents);
  }
  p->events[p->numEvents++] = (Event){id, start, end};
}

void dlcProfileRunBegin(DlcProfile *p) {
  current = p;
  p->depth = 0;
  p->runStart = nowNs();
}

void dlcProfileRunEnd(DlcProfile *p) {
  int64_t end = nowNs();
  p->runNs += end - p->runStart;
  p->runs++;
  logEvent(p, -1, p->runStart, end);
  if (current == p)
    current = NULL;
}

void dlcProfileEnter(int64_t id) {
  DlcProfile *p = current;
  if (!p || id < 0 || id >= p->n || p->depth == 64)
    return;
  p->open[p->depth++] = nowNs();
}

void dlcProfileExit(int64_t id) {
  DlcProfile *p = current;
  if (!p || id < 0 || id >= p->n || p->depth == 0)
    return;
  int64_t end = nowNs(), start = p->open[--p->depth];
  p->rows[id].calls++;
  p->rows[id].ns += end - start;
  logEvent(p, id, start, end);
}

/*--- The roofline ----------------------------------------------------------------*/

typedef struct {
  double gflops; /* one core's FMA peak with the widest vectors */
  double gflops256; /* ... with 256-bit ones (0: no AVX2 and FMA) */
  double gbs;    /* one core's read bandwidth */
  const char *isa;
} Machine;

#if defined(__x86_64__)
/* Twelve independent FMA chains (enough to cover latency x pipes on any
   current core), no memory traffic. Returns flops per second. */
#define FMA_LOOP(NAME, TARGET, VEC, SET1, FMADD, LANES)                                         \
  __attribute__((target(TARGET))) static double NAME(int64_t iters) {                         \
    VEC acc[12], a = SET1(0.999999f), b = SET1(1e-7f);                                        \
    for (int j = 0; j < 12; ++j)                                                              \
      acc[j] = SET1((float)j);                                                                \
    int64_t t0 = nowNs();                                                                     \
    for (int64_t i = 0; i < iters; ++i)                                                       \
      for (int j = 0; j < 12; ++j)                                                            \
        acc[j] = FMADD(acc[j], a, b);                                                         \
    int64_t t1 = nowNs();                                                                     \
    VEC s = acc[0];                                                                           \
    for (int j = 1; j < 12; ++j)                                                              \
      s = FMADD(s, a, acc[j]);                                                                \
    float out[LANES];                                                                         \
    memcpy(out, &s, sizeof out);                                                              \
    volatile float sink = out[0];                                                             \
    (void)sink;                                                                               \
    return 2.0 * LANES * 12 * (double)iters / ((double)(t1 - t0) * 1e-9);                      \
  }
FMA_LOOP(fma512, "avx512f", __m512, _mm512_set1_ps, _mm512_fmadd_ps, 16)
FMA_LOOP(fma256, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps, 8)
#endif

static double readBandwidth(void) {
  enum { kBytes = 64 << 20 };
  size_t n = kBytes / sizeof(float);
  float *x = malloc(kBytes);
  if (!x)
    return 0;
  for (size_t i = 0; i < n; ++i)
    x[i] = 1.0f;
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    float s[16] = {0};
    int64_t t0 = nowNs();
    for (size_t i = 0; i < n; i += 16)
      for (int j = 0; j < 16; ++j)
        s[j] += x[i + j];
    int64_t t1 = nowNs();
    volatile float sink = s[0];
    (void)sink;
    double gbs = (double)kBytes / (double)(t1 - t0);
    if (gbs > best)
      best = gbs;
  }
  free(x);
  return best;
}

static Machine machine;
static once_flag measured = ONCE_FLAG_INIT;

#if defined(__x86_64__)
/* The best of many short runs of `loop`: on a shared core some run
   undisturbed. */
static double fmaPeak(double (*loop)(int64_t)) {
  double best = 0;
  loop(1 << 20); /* wake the core up to speed */
  for (int rep = 0; rep < 40; ++rep) {
    double f = loop(1 << 17) * 1e-9;
    if (f > best)
      best = f;
  }
  return best;
}
#endif

static void measure(void) {
  machine.isa = "scalar";
  machine.gflops = machine.gflops256 = 0;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    machine.gflops256 = fmaPeak(fma256), machine.gflops = machine.gflops256, machine.isa = "AVX2";
  if (__builtin_cpu_supports("avx512f"))
    machine.gflops = fmaPeak(fma512), machine.isa = "AVX-512";
#endif
  machine.gbs = readBandwidth();
}

/*--- Output ----------------------------------------------------------------------*/

typedef struct {
  char *text;
  size_t len, cap;
} Buf;

__attribute__((format(printf, 2, 3))) static void put(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if (b->len + (size_t)n + 1 > b->cap) {
    b->cap = (b->len + (size_t)n + 1) * 2;
    b->text = realloc(b->text, b->cap);
  }
  va_start(ap, fmt);
  vsnprintf(b->text + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* Kernel ids by decreasing time (qsort_r is not C11; kernels are few). */
static void sortIds(int64_t *ids, int64_t n, const Row *rows) {
  for (int64_t i = 1; i < n; ++i)
    for (int64_t j = i; j > 0 && rows[ids[j - 1]].ns < rows[ids[j]].ns; --j) {
      int64_t t = ids[j];
      ids[j] = ids[j - 1];
      ids[j - 1] = t;
    }
}

void dlcProfileSetIsa(DlcProfile *p, const char *isa) { p->avx2 = isa && strcmp(isa, "avx2") == 0; }

char *dlcProfileTable(const DlcProfile *p, int threads) {
  call_once(&measured, measure);
  if (threads < 1)
    threads = 1;
  Buf b = {NULL, 0, 0};
  bool avx2 = p->avx2 && machine.gflops256 > 0;
  double peak = (avx2 ? machine.gflops256 : machine.gflops) * threads, bw = machine.gbs;
  double runMs = p->runs ? (double)p->runNs / (double)p->runs * 1e-6 : 0;
  put(&b, "dlc profile: %lld run%s, %.3f ms a run; %d thread%s, %s; roofline %.0f GFLOP/s "
          "(FMA peak x threads), %.1f GB/s (one-core read)\n",
      (long long)p->runs, p->runs == 1 ? "" : "s", runMs, threads, threads == 1 ? "" : "s",
      avx2 ? "AVX2" : machine.isa, peak, bw);
  put(&b, "%-20s %-12s %-36s %6s %10s %6s %10s %8s %6s\n", "kernel", "kind", "root", "calls",
      "ms/run", "%", "GFLOP/s", "GB/s", "%roof");
  int64_t *ids = malloc(sizeof *ids * (size_t)(p->n + 1));
  for (int64_t i = 0; i < p->n; ++i)
    ids[i] = i;
  sortIds(ids, p->n, p->rows);
  double kernelsMs = 0;
  for (int64_t k = 0; k < p->n; ++k) {
    const DlcProfileKernel *d = &p->kernels[ids[k]];
    const Row *r = &p->rows[ids[k]];
    double ms = p->runs ? (double)r->ns / (double)p->runs * 1e-6 : 0;
    double sec = (double)r->ns * 1e-9;
    kernelsMs += ms;
    double gflops = sec > 0 ? d->flops * (double)r->calls / sec * 1e-9 : 0;
    double gbs = sec > 0 ? d->bytes * (double)r->calls / sec * 1e-9 : 0;
    /* attainable: min(peak, intensity x bandwidth); memory-bound kernels
       (no flops counted) against the bandwidth alone */
    double roof = 0;
    if (d->flops > 0 && d->bytes > 0 && peak > 0) {
      double attain = d->flops / d->bytes * bw;
      roof = gflops / (attain < peak ? attain : peak);
    } else if (bw > 0) {
      roof = gbs / bw;
    }
    char gf[16] = "-";
    if (d->flops > 0)
      snprintf(gf, sizeof gf, "%.1f", gflops);
    put(&b, "%-20.20s %-12.12s %-36.36s %6lld %10.4f %6.1f %10s %8.1f %6.0f\n", d->name, d->kind,
        d->root, (long long)(p->runs ? r->calls / p->runs : 0), ms,
        runMs > 0 ? 100.0 * ms / runMs : 0.0, gf, gbs, 100.0 * roof);
  }
  double other = runMs - kernelsMs;
  put(&b, "%-20s %-12s %-36s %6s %10.4f %6.1f\n", "(outside kernels)", "-", "-", "-",
      other > 0 ? other : 0.0, runMs > 0 && other > 0 ? 100.0 * other / runMs : 0.0);
  put(&b, "%-20s %-12s %-36s %6s %10.4f %6.1f\n", "total", "", "", "", runMs, runMs > 0 ? 100.0 : 0.0);
  free(ids);
  return b.text;
}

/* JSON string contents: quotes, backslashes and control characters escaped. */
static void putEscaped(FILE *f, const char *s) {
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
}

bool dlcProfileWriteTrace(const DlcProfile *p, const char *path, char *error, size_t length) {
  FILE *f = fopen(path, "w");
  if (!f) {
    snprintf(error, length, "cannot write %s", path);
    return false;
  }
  fprintf(f, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
  fprintf(f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, "
             "\"args\": {\"name\": \"dlc\"}}");
  for (int64_t i = 0; i < p->numEvents; ++i) {
    const Event *e = &p->events[i];
    double ts = (double)(e->start - p->origin) * 1e-3, dur = (double)(e->end - e->start) * 1e-3;
    fprintf(f, ",\n{\"name\": \"");
    if (e->id < 0) {
      fprintf(f, "run\", \"cat\": \"run\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, "
                 "\"ts\": %.3f, \"dur\": %.3f}", ts, dur);
      continue;
    }
    const DlcProfileKernel *d = &p->kernels[e->id];
    putEscaped(f, d->name);
    fprintf(f, "\", \"cat\": \"");
    putEscaped(f, d->kind);
    fprintf(f, "\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": %.3f, \"dur\": %.3f, "
               "\"args\": {\"root\": \"", ts, dur);
    putEscaped(f, d->root);
    fprintf(f, "\", \"flops\": %.0f, \"bytes\": %.0f}}", d->flops, d->bytes);
  }
  fprintf(f, "\n]}\n");
  bool ok = fclose(f) == 0;
  if (!ok)
    snprintf(error, length, "cannot write %s", path);
  return ok;
}
