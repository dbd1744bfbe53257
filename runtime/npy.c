/* .npy reading and writing (see npy.h). The format: "\x93NUMPY", version
   bytes, a little-endian header length (2 bytes in v1, 4 in v2/v3), then an
   ASCII Python dict literal {'descr': '<f4', 'fortran_order': False,
   'shape': (2, 3), } padded to a multiple of 64 bytes, then the data. */

#include "npy.h"
#include "shape/Checked.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *descr;
  DlcDType dtype;
} kDescrs[] = {
    {"<f4", DLC_F32}, {"<f2", DLC_F16}, {"<f8", DLC_F64}, {"|b1", DLC_I1},
    {"|i1", DLC_I8},  {"<i4", DLC_I32}, {"<i8", DLC_I64},
};

static bool fail(char *e, size_t n, const char *path, const char *why) {
  snprintf(e, n, "%s: %s", path, why);
  return false;
}

/* The value text after 'key': in the header dict, or NULL. */
static const char *field(const char *h, const char *key) {
  char k[32];
  snprintf(k, sizeof k, "'%s'", key);
  const char *p = strstr(h, k);
  if (!p)
    return NULL;
  p += strlen(k);
  while (*p == ' ' || *p == ':')
    ++p;
  return p;
}

bool dlcNpyRead(const char *path, DlcTensor *t, char *e, size_t n) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(e, n, "%s: cannot open: %s", path, strerror(errno));
    return false;
  }
  bool ok = dlcNpyReadStream(f, path, t, e, n);
  fclose(f);
  return ok;
}

bool dlcNpyReadStream(FILE *f, const char *path, DlcTensor *t, char *e, size_t n) {
  t->data = NULL;
  unsigned char pre[10];
  char *h = NULL;
  bool ok = false;
  if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fail(e, n, path, "not a .npy file (bad magic)");
    goto done;
  }
  size_t hlen;
  if (pre[6] == 1) {
    if (fread(pre + 8, 1, 2, f) != 2) { fail(e, n, path, "truncated header"); goto done; }
    hlen = pre[8] | (size_t)pre[9] << 8;
  } else if (pre[6] == 2 || pre[6] == 3) {
    unsigned char l[4];
    if (fread(l, 1, 4, f) != 4) { fail(e, n, path, "truncated header"); goto done; }
    hlen = l[0] | (size_t)l[1] << 8 | (size_t)l[2] << 16 | (size_t)l[3] << 24;
  } else {
    fail(e, n, path, "unsupported .npy version");
    goto done;
  }
  if (hlen > 1 << 20) { fail(e, n, path, "header too large"); goto done; }
  h = malloc(hlen + 1);
  if (!h) {
    snprintf(e, n, "%s: out of memory allocating the %zu-byte header", path, hlen + 1);
    goto done;
  }
  if (fread(h, 1, hlen, f) != hlen) { fail(e, n, path, "truncated header"); goto done; }
  h[hlen] = 0;
  const char *d = field(h, "descr"), *fo = field(h, "fortran_order"), *sh = field(h, "shape");
  if (!d || !fo || !sh || *d != '\'' || *sh != '(') {
    fail(e, n, path, "malformed header");
    goto done;
  }
  if (strncmp(fo, "False", 5) != 0) {
    fail(e, n, path, "Fortran-order arrays are not supported (save with C order)");
    goto done;
  }
  bool known = false;
  for (size_t i = 0; i < sizeof kDescrs / sizeof kDescrs[0]; ++i)
    if (strncmp(d + 1, kDescrs[i].descr, 3) == 0 && d[4] == '\'') {
      t->type.dtype = kDescrs[i].dtype;
      known = true;
    }
  if (!known) {
    char why[96];
    const char *end = strchr(d + 1, '\'');
    snprintf(why, sizeof why, "unsupported dtype %.*s (f32, f16, f64, bool, i8, i32, i64)",
             end ? (int)(end - d + 1) : 6, d);
    fail(e, n, path, why);
    goto done;
  }
  t->type.rank = 0;
  const char *p = sh + 1;
  for (;;) {
    while (*p == ' ' || *p == ',')
      ++p;
    if (*p == ')')
      break;
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0 || t->type.rank == DLC_MAX_RANK) {
      fail(e, n, path, "malformed shape");
      goto done;
    }
    t->type.dims[t->type.rank++] = v;
    p = end;
  }
  int64_t bytes = dlcTensorTypeNumBytes(&t->type);
  if (bytes < 0) {
    char why[160];
    snprintf(why, sizeof why, "shape has more than %lld bytes of data, the largest tensor dlc handles",
             (long long)INT64_MAX);
    fail(e, n, path, why);
    goto done;
  }
  /* The file must hold the data: checked before allocating, so a header
     claiming terabytes is an error, not an allocation attempt. */
  long start = ftell(f);
  if (start < 0 || fseek(f, 0, SEEK_END) != 0) {
    fail(e, n, path, "cannot seek (not a regular file?)");
    goto done;
  }
  long end = ftell(f);
  if (end < 0 || fseek(f, start, SEEK_SET) != 0) {
    fail(e, n, path, "cannot seek (not a regular file?)");
    goto done;
  }
  int64_t have = (int64_t)end - start;
  if (have != bytes) {
    snprintf(e, n, "%s: %s: the shape needs %lld bytes of data, the file has %lld", path,
             have < bytes ? "truncated data" : "trailing bytes after the data",
             (long long)bytes, (long long)have);
    goto done;
  }
  t->data = malloc(bytes ? (size_t)bytes : 1);
  if (!t->data) {
    snprintf(e, n, "%s: out of memory allocating %lld bytes of data", path, (long long)bytes);
    goto done;
  }
  if (fread(t->data, 1, (size_t)bytes, f) != (size_t)bytes) {
    free(t->data);
    t->data = NULL;
    fail(e, n, path, "truncated data (fewer bytes than the shape needs)");
    goto done;
  }
  ok = true;
done:
  free(h);
  return ok;
}

bool dlcNpyWrite(const char *path, const DlcTensor *t, char *e, size_t n) {
  const char *descr = NULL;
  for (size_t i = 0; i < sizeof kDescrs / sizeof kDescrs[0]; ++i)
    if (kDescrs[i].dtype == t->type.dtype)
      descr = kDescrs[i].descr;
  if (!descr)
    return fail(e, n, path, "dtype has no .npy equivalent");
  /* 16 dims of up to 20 digits, ", " each: 352 bytes at most */
  char shape[384] = "";
  size_t k = 0;
  for (int32_t i = 0; i < t->type.rank && i < DLC_MAX_RANK; ++i)
    k += (size_t)snprintf(shape + k, sizeof shape - k, "%lld,%s", (long long)t->type.dims[i],
                          i + 1 < t->type.rank ? " " : "");
  char h[512 + 64]; /* the dict (< 440 bytes), padding to 64 and '\n' */
  int len = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                     descr, shape);
  int total = 10 + len + 1, pad = (64 - total % 64) % 64;
  memset(h + len, ' ', (size_t)pad);
  h[len + pad] = '\n';
  len += pad + 1;
  FILE *f = fopen(path, "wb");
  if (!f) {
    snprintf(e, n, "%s: cannot create: %s", path, strerror(errno));
    return false;
  }
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                           (unsigned char)(len & 0xff), (unsigned char)(len >> 8)};
  int64_t count = dlcTensorTypeNumBytes(&t->type);
  size_t bytes = count > 0 ? (size_t)count : 0;
  bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(h, 1, (size_t)len, f) == (size_t)len &&
            fwrite(t->data, 1, bytes, f) == bytes;
  ok = fclose(f) == 0 && ok;
  if (!ok)
    snprintf(e, n, "%s: write failed", path);
  return ok;
}
