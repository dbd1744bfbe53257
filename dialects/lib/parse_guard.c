/* Text MLIR 22's parser crashes on, refused with a located error first
   (parse_guard.h): a dense array of index elements, `array<index ...>`.
   The parser asks index for a bit width there (Parser::
   parseDenseArrayAttr) and dereferences null; Debian's mlir-opt crashes
   alike. Found by fuzz/fuzz_dlg.c under ASan. */

#include "parse_guard.h"

#include "mlir-c/Diagnostics.h"

#include <stdbool.h>
#include <string.h>

static bool isIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '$' || c == '.';
}

static size_t skipSpace(const char *s, size_t i, size_t n) {
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
    ++i;
  return i;
}

/* Whether `array`, spaces, `<`, spaces and the word `index` start at i. */
static bool indexDenseArrayAt(const char *s, size_t i, size_t n) {
  if (n - i < 5 || memcmp(s + i, "array", 5) != 0 || (i > 0 && isIdentifierChar(s[i - 1])))
    return false;
  size_t j = skipSpace(s, i + 5, n);
  if (j == n || s[j] != '<')
    return false;
  j = skipSpace(s, j + 1, n);
  return n - j >= 5 && memcmp(s + j, "index", 5) == 0 && (j + 5 == n || !isIdentifierChar(s[j + 5]));
}

/* The offset of the quote that closes the string opened at `open`, or n:
   the first one after an even run of backslashes. memchr, not a loop per
   byte: a model's weights are hex strings of hundreds of megabytes. */
static size_t stringEnd(const char *s, size_t open, size_t n) {
  for (size_t i = open + 1; i < n;) {
    const char *q = memchr(s + i, '"', n - i);
    if (!q)
      return n;
    size_t at = (size_t)(q - s), slashes = 0;
    while (at - slashes > open + 1 && s[at - slashes - 1] == '\\')
      ++slashes;
    if (slashes % 2 == 0)
      return at;
    i = at + 1;
  }
  return n;
}

/* The offset of `array<index` outside strings and comments, or n. */
static size_t findIndexDenseArray(const char *s, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (s[i] == '"') {
      i = stringEnd(s, i, n);
    } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') { /* a comment: to the line's end */
      while (i < n && s[i] != '\n')
        ++i;
    } else if (s[i] == 'a' && indexDenseArrayAt(s, i, n)) {
      return i;
    }
  }
  return n;
}

bool dlcParseGuardRefuses(MlirContext ctx, MlirStringRef source, const char *sourceName) {
  const char *s = source.data;
  size_t n = source.length;
  if (n >= 4 && memcmp(s, "ML\xefR", 4) == 0) /* MLIR bytecode */
    return false;
  size_t at = findIndexDenseArray(s, n);
  if (at == n)
    return false;
  unsigned line = 1, col = 1;
  for (size_t i = 0; i < at; ++i)
    if (s[i] == '\n')
      ++line, col = 1;
    else
      ++col;
  MlirLocation loc = mlirLocationFileLineColGet(
      ctx, mlirStringRefCreateFromCString(sourceName ? sourceName : "<input>"), line, col);
  mlirEmitError(loc, "dense arrays of index elements (array<index ...>) are not supported: "
                     "use array<i64: ...>");
  return true;
}
