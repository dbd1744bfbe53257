/* libFuzzer target: the .npy reader (runtime/npy.c) on arbitrary bytes,
   read from memory. A read either fails with a message or returns a tensor
   whose byte count matches the data it holds. */

#include "npy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  /* fmemopen takes a writable buffer even to read: a copy of exactly the
     input, so ASan still sees any read past it */
  void *copy = malloc(size);
  if (!copy)
    return 0;
  memcpy(copy, data, size);
  FILE *f = fmemopen(copy, size, "rb");
  if (!f) {
    free(copy);
    return 0;
  }
  DlcTensor t;
  memset(&t, 0, sizeof t);
  char err[512] = "";
  if (dlcNpyReadStream(f, "fuzz.npy", &t, err, sizeof err)) {
    int64_t bytes = dlcTensorTypeNumBytes(&t.type);
    if (bytes < 0 || (size_t)bytes > size || !t.data)
      abort(); /* accepted a shape its data cannot hold */
    volatile unsigned char sink = 0;
    for (int64_t i = 0; i < bytes; ++i) /* every byte readable (ASan) */
      sink ^= ((unsigned char *)t.data)[i];
    (void)sink;
    free(t.data);
  } else if (!err[0] || t.data) {
    abort(); /* a failure must say why and own no buffer */
  }
  fclose(f);
  free(copy);
  return 0;
}
