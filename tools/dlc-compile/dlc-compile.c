/* dlc-compile: compile a model ahead of time into a self-contained library.

     dlc-compile MODEL.{mlir,onnx} -o DIR --name NAME [--entry F]
                 [--target cpu|cuda] [--threads N] [--isa host|avx2|avx512]
                 [--no-shared] [--sanitize thread]

   writes DIR/NAME.h (the C ABI, documented in it), DIR/NAME.o and
   DIR/libNAME.so (dlc-c/Aot.h), and prints the memory plan:
   workspace_bytes, peak_bytes, naive_bytes, weights_bytes.

   An ONNX model goes through dlc's Python importer first
   (`python3 -m dlc.onnx MODEL.onnx -o DIR/NAME.mlir`, $DLC_PYTHON or
   /usr/bin/python3): the imported dlg module stays next to the library.

   --sanitize thread instruments the model's code for ThreadSanitizer (to
   test a program calling it from several threads; link it with
   -fsanitize=thread).

   Exit status 0 on success, 1 with the error on stderr otherwise. */

#include "dlc-c/Aot.h"
#include "shape/Checked.h"

#include <errno.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

static int usage(const char *why) {
  if (why)
    fprintf(stderr, "dlc-compile: %s\n", why);
  fprintf(stderr, "usage: dlc-compile MODEL.{mlir,onnx} -o DIR --name NAME [--entry F] "
                  "[--target cpu|cuda]\n"
                  "                   [--threads N] [--isa host|avx2|avx512] [--no-shared] "
                  "[--sanitize thread]\n");
  return 1;
}

static char *readFile(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0, got;
  char *buf = dlcXmalloc(cap);
  while ((got = fread(buf + n, 1, cap - n, f)) > 0)
    if ((n += got) == cap)
      buf = dlcXrealloc(buf, cap *= 2);
  fclose(f);
  *len = n;
  return buf;
}

static bool endsWith(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

static char *mutableString(const char *s) { return (char *)(uintptr_t)s; }

/* Imports an ONNX model with dlc's Python importer into `out`. */
static bool importOnnx(const char *model, const char *out) {
  const char *python = getenv("DLC_PYTHON") ? getenv("DLC_PYTHON") : "/usr/bin/python3";
  /* The package next to this build unless the environment names one. */
  if (!getenv("PYTHONPATH"))
    setenv("PYTHONPATH", DLC_PYTHON_DIR, 1);
  if (!getenv("DLC_LIB"))
    setenv("DLC_LIB", DLC_LIBRARY, 1);
  char *argv[] = {mutableString(python), mutableString("-m"), mutableString("dlc.onnx"),
                  mutableString(model), mutableString("-o"), mutableString(out), NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, python, NULL, NULL, argv, environ);
  if (rc) {
    fprintf(stderr, "dlc-compile: cannot run %s: %s\n", python, strerror(rc));
    return false;
  }
  int status;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
    fprintf(stderr, "dlc-compile: importing %s failed (its error is above)\n", model);
    return false;
  }
  return true;
}

int main(int argc, char **argv) {
  const char *model = NULL, *dir = NULL, *name = NULL;
  DlcAotOptions o = {NULL, "host", "cpu", 1, true, NULL};
  for (int i = 1; i < argc; ++i) {
    const char *s = argv[i];
    if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
      usage(NULL);
      return 0;
    } else if (!strcmp(s, "--no-shared")) {
      o.sharedLibrary = false;
    } else if (s[0] == '-' && i + 1 >= argc) {
      fprintf(stderr, "dlc-compile: option %s needs a value\n", s);
      return 1;
    } else if (!strcmp(s, "-o")) {
      dir = argv[++i];
    } else if (!strcmp(s, "--name")) {
      name = argv[++i];
    } else if (!strcmp(s, "--entry")) {
      o.entry = argv[++i];
    } else if (!strcmp(s, "--target")) {
      o.target = argv[++i];
    } else if (!strcmp(s, "--sanitize")) {
      o.sanitizer = argv[++i];
    } else if (!strcmp(s, "--isa")) {
      o.isa = argv[++i];
    } else if (!strcmp(s, "--threads")) {
      char *end;
      errno = 0;
      long v = strtol(argv[++i], &end, 10);
      if (errno || *end || end == argv[i] || v < 1 || v > 1024) {
        fprintf(stderr, "dlc-compile: --threads expects an integer in [1, 1024], got '%s'\n",
                argv[i]);
        return 1;
      }
      o.threads = (int)v;
    } else if (s[0] == '-') {
      fprintf(stderr, "dlc-compile: unknown option %s\n", s);
      return 1;
    } else if (model) {
      return usage("more than one model file given");
    } else {
      model = s;
    }
  }
  if (!model)
    return usage("no model file");
  if (!dir)
    return usage("no output directory (-o DIR)");
  if (!name)
    return usage("no library name (--name NAME)");
  if (mkdir(dir, 0777) && errno != EEXIST) {
    fprintf(stderr, "dlc-compile: cannot create %s: %s\n", dir, strerror(errno));
    return 1;
  }
  const char *mlir = model;
  char imported[4096];
  if (endsWith(model, ".onnx")) {
    snprintf(imported, sizeof imported, "%s/%s.mlir", dir, name);
    if (!importOnnx(model, imported))
      return 1;
    mlir = imported;
  }
  size_t len;
  char *src = readFile(mlir, &len);
  if (!src) {
    fprintf(stderr, "dlc-compile: cannot read %s: %s\n", mlir, strerror(errno));
    return 1;
  }
  char *err = NULL;
  DlcMemoryPlan plan;
  bool ok = dlcCompileToLibrary(src, len, mlir, dir, name, &o, &plan, &err);
  free(src);
  if (!ok) {
    size_t n = err ? strlen(err) : 0;
    if (n && err[n - 1] == '\n')
      err[n - 1] = 0;
    fprintf(stderr, "dlc-compile: %s\n", err ? err : "compilation failed");
    free(err);
    return 1;
  }
  printf("wrote %s/%s.h %s/%s.o", dir, name, dir, name);
  if (o.sharedLibrary)
    printf(" %s/lib%s.so", dir, name);
  printf("\n");
  printf("workspace_bytes=%lld peak_bytes=%lld naive_bytes=%lld weights_bytes=%lld "
         "temporaries=%lld unplanned=%lld\n",
         (long long)plan.workspaceBytes, (long long)plan.peakBytes, (long long)plan.naiveBytes,
         (long long)plan.weightsBytes, (long long)plan.temporaries, (long long)plan.unplanned);
  return 0;
}
