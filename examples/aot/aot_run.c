/* aot_run: runs a model compiled by dlc-compile, on .npy inputs, writing
   .npy outputs. Plain C99 over the generated header; needs no dlc, MLIR or
   LLVM. Built for one model:

     dlc-compile model.mlir -o out --name mlp
     cc -std=c99 -O2 -Iout -DMODEL=mlp -DMODEL_UP=MLP -DMODEL_HEADER='"mlp.h"' \
        examples/aot/aot_run.c out/mlp.o -lm -o run_mlp      (static object)
     cc ... examples/aot/aot_run.c -Lout -lmlp -Wl,-rpath,out -o run_mlp (the .so)

     run_mlp in0.npy in1.npy ... -o out0.npy ... [--bench N]
             [--threads T --calls C]

   --bench N times N calls (one workspace, reused) and prints the best and
   median milliseconds. --threads T --calls C runs C calls in each of T
   threads at once, half of them with their own workspace and half with
   NULL (the library's per-call one), and checks every result bit for bit
   against a first single-threaded call. --shared-workspace gives all
   threads one workspace instead: a data race by design, the negative
   control of the ThreadSanitizer test. Exit status 0 on success, 1 with
   a message otherwise. */

#define _POSIX_C_SOURCE 200809L

#include MODEL_HEADER

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every buffer is checked: one line naming the size, then exit. */
static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "aot_run: out of memory allocating %zu bytes\n", bytes);
    exit(1);
  }
  return p;
}

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define M(x) CAT(MODEL, x)   /* mlp_run */
#define U(x) CAT(MODEL_UP, x) /* MLP_NUM_INPUTS */

#if U(NUM_INPUTS) > 0
#define IN_TABLES 1
#endif

static const char *const kDescr[] = {"<f4", "<f2", NULL, "<f8", "|b1", "|i1", "<i4", "<i8"};

/*--- .npy ----------------------------------------------------------------------------*/

/* Reads a little-endian, C-order .npy of exactly the dtype and shape given. */
static void *readNpy(const char *path, int dtype, int rank, const int64_t *shape, size_t bytes) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "aot_run: cannot open %s\n", path);
    return NULL;
  }
  unsigned char pre[10];
  char header[4096];
  void *data = NULL;
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6)) {
    fprintf(stderr, "aot_run: %s is not a .npy file\n", path);
    goto done;
  }
  size_t hlen = pre[8] | (size_t)pre[9] << 8;
  if (pre[6] >= 2) { /* version 2 and 3: a 4-byte header length */
    unsigned char more[2];
    if (fread(more, 1, 2, f) != 2)
      goto bad;
    hlen |= (size_t)more[0] << 16 | (size_t)more[1] << 24;
  }
  if (hlen >= sizeof header || fread(header, 1, hlen, f) != hlen)
    goto bad;
  header[hlen] = 0;
  char want[512]; /* numpy writes (), (4,) and (2, 3) */
  int n = snprintf(want, sizeof want, "(");
  for (int d = 0; d < rank; ++d)
    n += snprintf(want + n, sizeof want - (size_t)n, "%s%lld", d ? ", " : "", (long long)shape[d]);
  snprintf(want + n, sizeof want - (size_t)n, rank == 1 ? ",)" : ")");
  if (!strstr(header, kDescr[dtype]) || !strstr(header, "'fortran_order': False") ||
      !strstr(header, want)) {
    fprintf(stderr, "aot_run: %s: expected a C-order %s array of shape %s, header %s\n", path,
            kDescr[dtype], want, header);
    goto done;
  }
  data = xmalloc(bytes ? bytes : 1);
  if (fread(data, 1, bytes, f) != bytes) {
    free(data);
    data = NULL;
    goto bad;
  }
  goto done;
bad:
  fprintf(stderr, "aot_run: %s is truncated\n", path);
done:
  fclose(f);
  return data;
}

static int writeNpy(const char *path, int dtype, int rank, const int64_t *shape, const void *data,
                    size_t bytes) {
  char dict[512];
  int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                   kDescr[dtype]);
  for (int d = 0; d < rank; ++d)
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld,%s", (long long)shape[d],
                  d + 1 < rank ? " " : "");
  n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
  int total = 10 + n + 1, pad = (64 - total % 64) % 64; /* header to 64 bytes, '\n' last */
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "aot_run: cannot write %s\n", path);
    return 1;
  }
  unsigned hlen = (unsigned)(n + pad + 1);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 255),
                           (unsigned char)(hlen >> 8)};
  fwrite(pre, 1, 10, f);
  fwrite(dict, 1, (size_t)n, f);
  for (int i = 0; i < pad; ++i)
    fputc(' ', f);
  fputc('\n', f);
  fwrite(data, 1, bytes, f);
  return fclose(f) ? 1 : 0;
}

/*--- Concurrent calls -------------------------------------------------------------------*/

typedef struct {
  const void *const *inputs;
  void *const *reference;
  int calls, own, failures;
  void *shared; /* --shared-workspace: one workspace for all threads */
} Worker;

static void *work(void *arg) {
  Worker *w = arg;
  void *outs[U(NUM_OUTPUTS) + 1];
  for (int o = 0; o < U(NUM_OUTPUTS); ++o)
    outs[o] = xmalloc(M(output_bytes)[o] + 1);
  void *ws = w->shared ? w->shared : w->own ? xmalloc(M(workspace_size)() + 1) : NULL;
  for (int c = 0; c < w->calls; ++c) {
    for (int o = 0; o < U(NUM_OUTPUTS); ++o)
      memset(outs[o], 0xff, M(output_bytes)[o]);
    if (M(run)(w->inputs, outs, ws)) {
      ++w->failures;
      continue;
    }
    for (int o = 0; o < U(NUM_OUTPUTS); ++o)
      w->failures += memcmp(outs[o], w->reference[o], M(output_bytes)[o]) != 0;
  }
  for (int o = 0; o < U(NUM_OUTPUTS); ++o)
    free(outs[o]);
  if (!w->shared)
    free(ws);
  return NULL;
}

static double nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  const char *inPaths[U(NUM_INPUTS) + 1] = {0}, *outPaths[U(NUM_OUTPUTS) + 1] = {0};
  int ni = 0, no = 0, bench = 0, threads = 0, calls = 0, sharedWs = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      if (no == U(NUM_OUTPUTS)) {
        fprintf(stderr, "aot_run: the model has %d outputs\n", U(NUM_OUTPUTS));
        return 1;
      }
      outPaths[no++] = argv[++i];
    } else if (!strcmp(argv[i], "--bench") && i + 1 < argc) {
      bench = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--shared-workspace")) {
      sharedWs = 1;
    } else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
      calls = atoi(argv[++i]);
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "aot_run: unknown option %s\n", argv[i]);
      return 1;
    } else if (ni == U(NUM_INPUTS)) {
      fprintf(stderr, "aot_run: the model takes %d inputs\n", U(NUM_INPUTS));
      return 1;
    } else {
      inPaths[ni++] = argv[i];
    }
  }
  if (ni != U(NUM_INPUTS) || (no && no != U(NUM_OUTPUTS))) {
    fprintf(stderr, "aot_run: the model takes %d inputs and gives %d outputs; %d and %d given\n",
            U(NUM_INPUTS), U(NUM_OUTPUTS), ni, no);
    return 1;
  }
  const void *inputs[U(NUM_INPUTS) + 1];
  void *outputs[U(NUM_OUTPUTS) + 1];
#ifdef IN_TABLES
  for (int i = 0; i < U(NUM_INPUTS); ++i)
    if (!(inputs[i] = readNpy(inPaths[i], M(input_dtypes)[i], M(input_ranks)[i],
                              M(input_shapes)[i], M(input_bytes)[i])))
      return 1;
#endif
  for (int o = 0; o < U(NUM_OUTPUTS); ++o)
    outputs[o] = xmalloc(M(output_bytes)[o] + 1);
  void *ws = xmalloc(M(workspace_size)() + 1);
  int rc = M(run)(inputs, outputs, ws);
  if (rc) {
    fprintf(stderr, "aot_run: run failed: %s\n", M(error_string)(rc));
    return 1;
  }
  if (bench > 0) {
    double *ms = xmalloc(sizeof *ms * (size_t)bench);
    for (int r = 0; r < bench; ++r) {
      double t0 = nowMs();
      M(run)(inputs, outputs, ws);
      ms[r] = nowMs() - t0;
    }
    qsort(ms, (size_t)bench, sizeof *ms, cmpDouble);
    printf("median_ms=%.4f min_ms=%.4f runs=%d\n", ms[bench / 2], ms[0], bench);
    free(ms);
  }
  if (threads > 0) {
    pthread_t *tids = xmalloc(sizeof *tids * (size_t)threads);
    Worker *ws_ = xmalloc(sizeof *ws_ * (size_t)threads);
    memset(ws_, 0, sizeof *ws_ * (size_t)threads);
    for (int t = 0; t < threads; ++t) {
      ws_[t] = (Worker){inputs, outputs, calls, t % 2 == 0, 0, sharedWs ? ws : NULL};
      pthread_create(&tids[t], NULL, work, &ws_[t]);
    }
    int failures = 0;
    for (int t = 0; t < threads; ++t) {
      pthread_join(tids[t], NULL);
      failures += ws_[t].failures;
    }
    printf("threads=%d calls=%d mismatches=%d\n", threads, calls, failures);
    free(tids);
    free(ws_);
    if (failures)
      return 1;
  }
  for (int o = 0; o < no; ++o)
    if (writeNpy(outPaths[o], M(output_dtypes)[o], M(output_ranks)[o], M(output_shapes)[o],
                 outputs[o], M(output_bytes)[o]))
      return 1;
  return 0;
}
