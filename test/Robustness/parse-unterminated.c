/* dlcModuleParse and dlcProgramCompile take (data, length): text that ends
   exactly at the end of a readable page, with no NUL after it, parses and
   compiles. MLIR's lexer reads the byte after the text, which faulted here
   (found by fuzz/fuzz_dlg.c under ASan as a heap-buffer-overflow). */
// RUN: %cc %s -o %t %ldlc && %t 2>&1 | FileCheck %s
// CHECK: parsed: ok
// CHECK: compiled: ok
// CHECK: truncated: error

#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "dlc-c/Compile.h"
#include "dlc-c/Context.h"
#include "dlc-c/Dialects.h"

#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* `text` copied to the end of a page whose next page is unmapped. */
static const char *atPageEnd(const char *text, size_t n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED || n > page || mprotect(map + page, page, PROT_NONE) != 0) {
    perror("mmap");
    exit(1);
  }
  memcpy(map + page - n, text, n);
  return map + page - n;
}

int main(void) {
  /* No trailing newline: the last byte is the closing brace. */
  static const char text[] =
      "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %0 = dlg.relu %x : tensor<4xf32>\n"
      "  return %0 : tensor<4xf32>\n"
      "}";
  size_t n = sizeof text - 1;
  const char *src = atPageEnd(text, n);
  MlirContext ctx = dlcContextCreate();
  MlirModule m = dlcModuleParse(ctx, (MlirStringRef){src, n}, "page.mlir");
  printf("parsed: %s\n", mlirModuleIsNull(m) ? "failed" : "ok");
  if (!mlirModuleIsNull(m))
    mlirModuleDestroy(m);
  mlirContextDestroy(ctx);

  char *err = NULL;
  DlcProgram *p = dlcProgramCompile(src, n, "page.mlir", NULL, &err);
  printf("compiled: %s\n", p ? "ok" : err);
  dlcProgramDestroy(p);
  free(err);

  /* Cut inside a token at the page end: an error, not a read past it. */
  const char *cut = atPageEnd(text, 40);
  p = dlcProgramCompile(cut, 40, "cut.mlir", NULL, &err);
  printf("truncated: %s\n", p ? "compiled?!" : "error");
  dlcProgramDestroy(p);
  free(err);
  return 0;
}
