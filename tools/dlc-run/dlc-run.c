/* dlc-run: compile a dlg (or already lowered) module in process, JIT it and
   run its entry on .npy or seeded random inputs (DLG-OPS.md, "The runner").

     dlc-run FILE.mlir [--entry NAME] [--input A.npy]... [--random-inputs
             [--seed N] [--dim-size N]] [--output OUT.npy]... [--threads N]
             [--bench N] [--pipeline P] [--memory] [--profile [--profile-trace OUT.json]]
             [--target cpu|cuda]

   --memory prints the memory plan after the results: workspace_bytes,
   peak_bytes, naive_bytes (one buffer per temporary), weights_bytes.
   --profile runs the model --bench times (default 10) after a warm-up and
   prints one row per kernel: kind, root op and shapes, time and share of
   the run, GFLOP/s or GB/s, and % of this machine's roofline;
   --profile-trace also writes the runs as a Chrome trace (Perfetto,
   chrome://tracing).
   --target cuda compiles with --lower-to-nvvm and runs on device 0; where
   no CUDA driver is, it fails with "no CUDA driver: ...". With --bench it
   also prints gpu_median_ms / gpu_min_ms: each run's GPU work on the
   program's stream timed by CUDA events (not the copies of inputs and
   outputs, which median_ms, wall-clock around whole calls, includes).

   A model with dynamic (`?`) input dimensions takes them from the .npy
   files (or --dim-size for random inputs) and is compiled for those shapes.

   Exit status 0 on success, 1 with one line on stderr on any error. */

#include "cuda_runtime.h"
#include "dlc-c/Compile.h"
#include "npy.h"
#include "shape/Checked.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_IO = 64 };

typedef struct {
  const char *file, *entry, *pipeline, *trace, *target;
  const char *inputs[MAX_IO], *outputs[MAX_IO];
  int numInputs, numOutputs, threads, bench;
  long long dimSize; /* dynamic dims of random inputs */
  bool random, memory, profile;
  unsigned long long seed;
} Args;

static int usage(const char *why) {
  if (why)
    fprintf(stderr, "dlc-run: %s\n", why);
  fprintf(stderr,
          "usage: dlc-run FILE.mlir [--entry NAME] [--input A.npy]... [--random-inputs "
          "[--seed N] [--dim-size N]]\n"
          "               [--output OUT.npy]... [--threads N] [--bench N] [--pipeline P] "
          "[--memory]\n"
          "               [--profile [--profile-trace OUT.json]] [--target cpu|cuda]\n");
  return 1;
}

static bool parseInt(const char *s, long long lo, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < lo)
    return false;
  *out = v;
  return true;
}

static int parseArgs(int argc, char **argv, Args *a) {
  for (int i = 1; i < argc; ++i) {
    const char *s = argv[i];
    bool hasValue = i + 1 < argc;
    long long v;
    if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
      usage(NULL);
      exit(0);
    } else if (!strcmp(s, "--random-inputs")) {
      a->random = true;
    } else if (!strcmp(s, "--memory")) {
      a->memory = true;
    } else if (!strcmp(s, "--profile")) {
      a->profile = true;
    } else if (s[0] == '-' && s[1] == '-' && !hasValue) {
      fprintf(stderr, "dlc-run: option %s needs a value\n", s);
      return 1;
    } else if (!strcmp(s, "--entry")) {
      a->entry = argv[++i];
    } else if (!strcmp(s, "--pipeline")) {
      a->pipeline = argv[++i];
    } else if (!strcmp(s, "--profile-trace")) {
      a->trace = argv[++i];
      a->profile = true;
    } else if (!strcmp(s, "--target")) {
      a->target = argv[++i];
      if (strcmp(a->target, "cpu") && strcmp(a->target, "cuda")) {
        fprintf(stderr, "dlc-run: --target expects cpu or cuda, got '%s'\n", a->target);
        return 1;
      }
    } else if (!strcmp(s, "--input") || !strcmp(s, "--output")) {
      bool in = s[2] == 'i';
      if ((in ? a->numInputs : a->numOutputs) == MAX_IO)
        return usage("too many files");
      if (in)
        a->inputs[a->numInputs++] = argv[++i];
      else
        a->outputs[a->numOutputs++] = argv[++i];
    } else if (!strcmp(s, "--dim-size")) {
      if (!parseInt(argv[++i], 0, &a->dimSize)) {
        fprintf(stderr, "dlc-run: --dim-size expects a non-negative integer, got '%s'\n", argv[i]);
        return 1;
      }
    } else if (!strcmp(s, "--seed") || !strcmp(s, "--threads") || !strcmp(s, "--bench")) {
      if (!parseInt(argv[++i], s[2] == 's' ? 0 : 1, &v)) {
        fprintf(stderr, "dlc-run: %s expects %s integer, got '%s'\n", s,
                s[2] == 's' ? "a non-negative" : "a positive", argv[i]);
        return 1;
      }
      if (s[2] == 's') a->seed = (unsigned long long)v;
      else if (s[2] == 't') a->threads = (int)v;
      else a->bench = (int)v;
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "dlc-run: unknown option %s\n", s);
      return 1;
    } else if (a->file) {
      return usage("more than one model file given");
    } else {
      a->file = s;
    }
  }
  if (!a->file)
    return usage("no model file");
  if (a->random && a->numInputs)
    return usage("--input and --random-inputs are exclusive");
  if (a->target && a->pipeline)
    return usage("--target and --pipeline are exclusive");
  if (a->target && !strcmp(a->target, "cuda")) {
    if (a->profile || a->memory)
      return usage("--profile and --memory are CPU-only; --target cuda has neither yet");
    a->pipeline = "builtin.module(lower-to-nvvm)";
  }
  return 0;
}

static char *readFile(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = dlcXmalloc(cap);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap)
      buf = dlcXrealloc(buf, cap *= 2);
  }
  fclose(f);
  *len = n;
  return buf;
}

/* splitmix64: a small seeded generator, reproducible across platforms. */
static unsigned long long next(unsigned long long *s) {
  unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static unsigned short toHalf(float f) {
  unsigned int x;
  memcpy(&x, &f, 4);
  unsigned int sign = (x >> 16) & 0x8000, e = (x >> 23) & 0xff, m = x & 0x7fffff;
  if (e < 113) /* |f| < 2^-14: flush to zero (random data is in [-1, 1)) */
    return (unsigned short)sign;
  return (unsigned short)(sign | ((e - 112) << 10) | (m >> 13));
}

/* Uniform floats in [-1, 1), integers in [0, 4), booleans. */
static void fillRandom(DlcTensor *t, unsigned long long *s) {
  int64_t n = dlcTensorTypeNumElements(&t->type);
  for (int64_t i = 0; i < n; ++i) {
    unsigned long long r = next(s);
    double u = (double)(r >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    switch (t->type.dtype) {
    case DLC_F32: ((float *)t->data)[i] = (float)u; break;
    case DLC_F64: ((double *)t->data)[i] = u; break;
    case DLC_F16: ((unsigned short *)t->data)[i] = toHalf((float)u); break;
    case DLC_BF16: {
      float f = (float)u;
      unsigned int x;
      memcpy(&x, &f, 4);
      ((unsigned short *)t->data)[i] = (unsigned short)(x >> 16);
      break;
    }
    case DLC_I1: ((unsigned char *)t->data)[i] = r & 1; break;
    case DLC_I8: ((signed char *)t->data)[i] = (signed char)(r % 4); break;
    case DLC_I32: ((int *)t->data)[i] = (int)(r % 4); break;
    case DLC_I64: ((long long *)t->data)[i] = (long long)(r % 4); break;
    }
  }
}

static double nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Allocates t's buffer (zeroed); false with one line naming the size. */
static bool allocTensor(DlcTensor *t, const char *what, intptr_t i) {
  char ty[160];
  int64_t bytes = dlcTensorTypeNumBytes(&t->type);
  if (bytes < 0) {
    fprintf(stderr, "dlc-run: %s %ld (%s) has more than %lld bytes\n", what, (long)i,
            dlcTensorTypeFormat(&t->type, ty, sizeof ty), (long long)INT64_MAX);
    return false;
  }
  t->data = (uint64_t)bytes < SIZE_MAX ? calloc((size_t)bytes + 1, 1) : NULL;
  if (!t->data) {
    fprintf(stderr, "dlc-run: %s %ld (%s): out of memory allocating %lld bytes\n", what,
            (long)i, dlcTensorTypeFormat(&t->type, ty, sizeof ty), (long long)bytes);
    return false;
  }
  return true;
}

static void printSummary(intptr_t i, const DlcTensor *t) {
  char ty[128];
  printf("result %ld: %s", (long)i, dlcTensorTypeFormat(&t->type, ty, sizeof ty));
  int64_t n = dlcTensorTypeNumElements(&t->type), shown = n < 8 ? n : 8;
  printf(" [");
  for (int64_t k = 0; k < shown; ++k) {
    double v = 0;
    switch (t->type.dtype) {
    case DLC_F32: v = ((float *)t->data)[k]; break;
    case DLC_F64: v = ((double *)t->data)[k]; break;
    case DLC_I1: v = ((unsigned char *)t->data)[k]; break;
    case DLC_I8: v = ((signed char *)t->data)[k]; break;
    case DLC_I32: v = ((int *)t->data)[k]; break;
    case DLC_I64: v = (double)((long long *)t->data)[k]; break;
    default: v = NAN; break;
    }
    printf("%s%g", k ? ", " : "", v);
  }
  printf("%s]\n", n > shown ? ", ..." : "");
}

int main(int argc, char **argv) {
  Args a = {0};
  a.dimSize = 1;
  int rc = parseArgs(argc, argv, &a);
  if (rc)
    return rc;
  size_t len;
  char *src = readFile(a.file, &len);
  if (!src) {
    fprintf(stderr, "dlc-run: cannot read %s: %s\n", a.file, strerror(errno));
    return 1;
  }
  char *err = NULL;
  DlcCompileOptions opts = {a.entry, a.pipeline, a.threads, 3, a.profile};
  DlcProgram *p = dlcProgramCompile(src, len, a.file, &opts, &err);
  free(src);
  if (!p) {
    /* diagnostics are multi-line; keep the first line as the message */
    char *nl = err ? strchr(err, '\n') : NULL;
    if (nl && nl[1] == 0)
      *nl = 0;
    fprintf(stderr, "dlc-run: %s\n", err ? err : "compilation failed");
    free(err);
    return 1;
  }
  intptr_t ni = dlcProgramNumInputs(p), no = dlcProgramNumOutputs(p);
  DlcTensor *in = dlcXcalloc((size_t)ni + 1, sizeof *in), *out = dlcXcalloc((size_t)no + 1, sizeof *out);
  char msg[512];
  rc = 1;
  if (!a.random && a.numInputs != ni) {
    fprintf(stderr, "dlc-run: wrong input count: the entry takes %ld inputs, %d given%s\n",
            (long)ni, a.numInputs, ni && !a.numInputs ? " (or use --random-inputs)" : "");
    goto done;
  }
  if (a.numOutputs && a.numOutputs != no) {
    fprintf(stderr, "dlc-run: wrong output count: the entry returns %ld results, %d --output given\n",
            (long)no, a.numOutputs);
    goto done;
  }
  unsigned long long seed = a.seed;
  for (intptr_t i = 0; i < ni; ++i) {
    if (a.random) {
      in[i].type = dlcProgramInput(p, i);
      for (int32_t d = 0; d < in[i].type.rank; ++d)
        if (in[i].type.dims[d] == DLC_DYNAMIC_DIM)
          in[i].type.dims[d] = a.dimSize;
      if (!allocTensor(&in[i], "input", i))
        goto done;
      fillRandom(&in[i], &seed);
    } else if (!dlcNpyRead(a.inputs[i], &in[i], msg, sizeof msg)) {
      fprintf(stderr, "dlc-run: input %ld: %s\n", (long)i, msg);
      goto done;
    }
  }
  DlcTensorType *inTypes = dlcXcalloc((size_t)ni + 1, sizeof *inTypes);
  for (intptr_t i = 0; i < ni; ++i)
    inTypes[i] = in[i].type;
  DlcTensorType *outTypes = dlcXcalloc((size_t)no + 1, sizeof *outTypes);
  bool resolved = dlcProgramResolve(p, inTypes, outTypes, msg, sizeof msg);
  free(inTypes);
  if (!resolved) {
    free(outTypes);
    fprintf(stderr, "dlc-run: %s\n", msg);
    goto done;
  }
  for (intptr_t i = 0; i < no; ++i) {
    out[i].type = outTypes[i];
    if (!allocTensor(&out[i], "output", i)) {
      free(outTypes);
      goto done;
    }
  }
  free(outTypes);
  if (!dlcProgramRun(p, in, out, msg, sizeof msg)) {
    fprintf(stderr, "dlc-run: %s\n", msg);
    goto done;
  }
  if (a.bench) {
    double *ms = dlcXmalloc(sizeof(double) * (size_t)a.bench);
    for (int w = 0; w < 2; ++w) /* warm-up beyond the first run */
      dlcProgramRun(p, in, out, msg, sizeof msg);
    /* --target cuda: also the GPU time of each run's stream, by CUDA events */
    bool cuda = a.target && !strcmp(a.target, "cuda");
    double *gpu = dlcXmalloc(sizeof(double) * (size_t)a.bench);
    int timedStreams = 0;
    for (int r = 0; r < a.bench; ++r) {
      bool timed = cuda && dlcCudaTimingBegin();
      double t0 = nowMs();
      dlcProgramRun(p, in, out, msg, sizeof msg);
      ms[r] = nowMs() - t0;
      int streams = 0;
      gpu[r] = timed ? dlcCudaTimingEnd(&streams) : 0;
      timedStreams += streams;
    }
    qsort(ms, (size_t)a.bench, sizeof *ms, cmpDouble);
    double median = a.bench % 2 ? ms[a.bench / 2] : (ms[a.bench / 2 - 1] + ms[a.bench / 2]) / 2;
    printf("median_ms=%.4f min_ms=%.4f runs=%d\n", median, ms[0], a.bench);
    if (cuda && timedStreams == 0) {
      fprintf(stderr, "dlc-run: --bench: no GPU stream was timed with CUDA events\n");
      free(gpu);
      free(ms);
      goto done;
    }
    if (cuda) {
      qsort(gpu, (size_t)a.bench, sizeof *gpu, cmpDouble);
      double gm = a.bench % 2 ? gpu[a.bench / 2] : (gpu[a.bench / 2 - 1] + gpu[a.bench / 2]) / 2;
      printf("gpu_median_ms=%.4f gpu_min_ms=%.4f (CUDA events on the program's stream: kernels, "
             "not the input and output copies)\n", gm, gpu[0]);
    }
    free(gpu);
    free(ms);
  }
  if (a.profile) {
    int runs = a.bench ? a.bench : 10;
    dlcProgramRun(p, in, out, msg, sizeof msg); /* warm-up */
    dlcProgramProfileReset(p);
    for (int r = 0; r < runs; ++r)
      dlcProgramRun(p, in, out, msg, sizeof msg);
    char *table = dlcProgramProfileTable(p, msg, sizeof msg);
    if (!table) {
      fprintf(stderr, "dlc-run: %s\n", msg);
      goto done;
    }
    fputs(table, stdout);
    free(table);
    if (a.trace && !dlcProgramProfileTrace(p, a.trace, msg, sizeof msg)) {
      fprintf(stderr, "dlc-run: %s\n", msg);
      goto done;
    }
  }
  for (intptr_t i = 0; i < no; ++i) {
    /* A padded result (dlc.count: dlg.non_max_suppression's selection,
       dlg.non_zero's indices) is written up to its count along the dim
       counted: the prefix that is data; past dim 0, a compacted copy. */
    DlcTensor shown = out[i];
    void *compact = NULL;
    intptr_t by = dlcProgramOutputCountedBy(p, i);
    if (by >= 0) {
      intptr_t d = dlcProgramOutputCountedDim(p, i);
      int64_t n = *(const int64_t *)out[by].data, full = shown.type.dims[d];
      n = n < 0 ? 0 : n < full ? n : full;
      shown.type.dims[d] = n;
      if (d > 0 && n < full) {
        int64_t outer = 1, inner = (int64_t)dlcDTypeSize(shown.type.dtype);
        for (intptr_t k = 0; k < d; ++k)
          outer *= shown.type.dims[k];
        for (intptr_t k = d + 1; k < shown.type.rank; ++k)
          inner *= shown.type.dims[k];
        compact = malloc((size_t)(outer * n * inner) + 1);
        if (!compact) {
          fprintf(stderr, "dlc-run: output %ld: out of memory\n", (long)i);
          goto done;
        }
        for (int64_t o = 0; o < outer; ++o)
          memcpy((char *)compact + o * n * inner, (const char *)out[i].data + o * full * inner,
                 (size_t)(n * inner));
        shown.data = compact;
      }
    }
    bool written = true;
    if (a.numOutputs)
      written = dlcNpyWrite(a.outputs[i], &shown, msg, sizeof msg);
    else if (!a.bench && !a.profile)
      printSummary(i, &shown);
    free(compact);
    if (!written) {
      fprintf(stderr, "dlc-run: output %ld: %s\n", (long)i, msg);
      goto done;
    }
  }
  if (a.memory) {
    DlcTensorType *types = calloc((size_t)ni + 1, sizeof *types);
    for (intptr_t i = 0; i < ni; ++i)
      types[i] = in[i].type;
    DlcMemoryPlan m;
    bool ok = dlcProgramMemory(p, types, &m, msg, sizeof msg);
    free(types);
    if (!ok) {
      fprintf(stderr, "dlc-run: %s\n", msg);
      goto done;
    }
    printf("workspace_bytes=%lld peak_bytes=%lld naive_bytes=%lld weights_bytes=%lld "
           "temporaries=%lld unplanned=%lld\n",
           (long long)m.workspaceBytes, (long long)m.peakBytes, (long long)m.naiveBytes,
           (long long)m.weightsBytes, (long long)m.temporaries, (long long)m.unplanned);
  }
  rc = 0;
done:
  for (intptr_t i = 0; i < ni; ++i)
    free(in[i].data);
  for (intptr_t i = 0; i < no; ++i)
    free(out[i].data);
  free(in);
  free(out);
  dlcProgramDestroy(p);
  return rc;
}
