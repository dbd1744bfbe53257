/* Text MLIR 22's parser crashes on, refused with a located error first
   (dlcParseGuardRefuses, dlc-c/Dialects.h): a dense array of index
   elements, `array<index ...>`. The parser asks index for a bit width
   there (Parser::parseDenseArrayAttr) and dereferences null; Debian's
   mlir-opt crashes alike. Found by fuzz/fuzz_dlg.c under ASan, first as
   written, then with NUL bytes between the tokens; an alias of index
   (`!i = index`, `array<!i: ...>`) crashes the same way. */

#include "dlc-c/Dialects.h"

#include "mlir-c/Diagnostics.h"

#include <stdbool.h>
#include <string.h>

static bool isIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '$' || c == '.';
}

/* The offset of the end of the `//` comment at i: MLIR's lexer ends one at
   a line feed or a carriage return. */
static size_t commentEnd(const char *s, size_t i, size_t n) {
  while (i < n && s[i] != '\n' && s[i] != '\r')
    ++i;
  return i;
}

/* Past what MLIR's lexer skips between two tokens: spaces, tabs, line
   ends, NUL bytes short of the buffer's end, and `//` comments. The
   fuzzer reached the crash through `array\0\0< index`, which a guard that
   skipped only spaces let through. */
static size_t skipSpace(const char *s, size_t i, size_t n) {
  while (i < n) {
    if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n' || s[i] == '\0')
      ++i;
    else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/')
      i = commentEnd(s, i, n);
    else
      break;
  }
  return i;
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

/* Type aliases of index (`!i = index`, or of such an alias), which
   `array<!i: ...>` reaches the same crash through. More than kMaxAliases
   alias definitions make every `array<!...` suspect: refusing text is
   safe, letting it through is not. */
enum { kMaxAliases = 64 };

typedef struct Name {
  const char *at;
  size_t len;
} Name;

typedef struct Alias {
  Name name, target; /* target.len 0: `index` itself */
  bool index;
} Alias;

typedef struct Scan {
  const char *s;
  size_t n;
  Alias aliases[kMaxAliases];
  size_t count;
  bool overflow;
} Scan;

static bool wordAt(const Scan *sc, size_t i, const char *word) {
  size_t len = strlen(word);
  return sc->n - i >= len && memcmp(sc->s + i, word, len) == 0 &&
         (i + len == sc->n || !isIdentifierChar(sc->s[i + len]));
}

/* The alias name after the `!` at i (empty when none). */
static Name aliasName(const Scan *sc, size_t i) {
  size_t j = i + 1;
  while (j < sc->n && isIdentifierChar(sc->s[j]))
    ++j;
  return (Name){sc->s + i + 1, j - i - 1};
}

static bool sameName(Name a, Name b) { return a.len == b.len && memcmp(a.at, b.at, a.len) == 0; }

static bool indexAlias(const Scan *sc, Name name) {
  if (sc->overflow)
    return true;
  for (size_t k = 0; k < sc->count; ++k)
    if (sc->aliases[k].index && sameName(sc->aliases[k].name, name))
      return true;
  return false;
}

/* `!name = index` or `!name = !other` at i: recorded. */
static void aliasAt(Scan *sc, size_t i) {
  Name name = aliasName(sc, i);
  if (name.len == 0 || (i > 0 && isIdentifierChar(sc->s[i - 1])))
    return;
  size_t j = skipSpace(sc->s, i + 1 + name.len, sc->n);
  if (j == sc->n || sc->s[j] != '=')
    return;
  j = skipSpace(sc->s, j + 1, sc->n);
  Alias a = {name, {NULL, 0}, false};
  if (wordAt(sc, j, "index"))
    a.index = true;
  else if (j < sc->n && sc->s[j] == '!' && (a.target = aliasName(sc, j)).len > 0)
    ;
  else
    return;
  if (sc->count == kMaxAliases)
    sc->overflow = true;
  else
    sc->aliases[sc->count++] = a;
}

/* Whether `array`, `<` and index (the word or an alias of it) start at i,
   with what the lexer skips between them. */
static bool indexDenseArrayAt(const Scan *sc, size_t i) {
  if (!wordAt(sc, i, "array") || (i > 0 && isIdentifierChar(sc->s[i - 1])))
    return false;
  size_t j = skipSpace(sc->s, i + 5, sc->n);
  if (j == sc->n || sc->s[j] != '<')
    return false;
  j = skipSpace(sc->s, j + 1, sc->n);
  if (j < sc->n && sc->s[j] == '!')
    return indexAlias(sc, aliasName(sc, j));
  return wordAt(sc, j, "index");
}

/* The offset of the first character outside strings and comments at or
   after i, or n. */
static size_t codeFrom(const Scan *sc, size_t i) {
  while (i < sc->n) {
    if (sc->s[i] == '"')
      i = stringEnd(sc->s, i, sc->n) + 1;
    else if (sc->s[i] == '/' && i + 1 < sc->n && sc->s[i + 1] == '/')
      i = commentEnd(sc->s, i, sc->n);
    else
      return i;
  }
  return sc->n;
}

/* Index aliases first (a chain resolves in at most as many rounds as it
   has links), then the offset of the first dense array of index, or n. */
static size_t findIndexDenseArray(Scan *sc) {
  for (size_t i = codeFrom(sc, 0); i < sc->n; i = codeFrom(sc, i + 1))
    if (sc->s[i] == '!')
      aliasAt(sc, i);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < sc->count; ++k)
      if (!sc->aliases[k].index && indexAlias(sc, sc->aliases[k].target))
        sc->aliases[k].index = changed = true;
  }
  for (size_t i = codeFrom(sc, 0); i < sc->n; i = codeFrom(sc, i + 1))
    if (sc->s[i] == 'a' && indexDenseArrayAt(sc, i))
      return i;
  return sc->n;
}

bool dlcParseGuardRefuses(MlirContext ctx, MlirStringRef source, const char *sourceName) {
  const char *s = source.data;
  size_t n = source.length;
  if (n >= 4 && memcmp(s, "ML\xefR", 4) == 0) /* MLIR bytecode */
    return false;
  Scan sc = {.s = s, .n = n};
  size_t at = findIndexDenseArray(&sc);
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
