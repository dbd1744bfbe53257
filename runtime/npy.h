/* Reading and writing NumPy .npy files (format versions 1-3, little-endian,
   C order) for the dtypes dlc runs on. */

#ifndef DLC_RUNTIME_NPY_H
#define DLC_RUNTIME_NPY_H

#include "dlc-c/Compile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Reads `path` into a malloc'd tensor (release t->data with free). On
   failure returns false with a one-line reason in `error`. */
bool dlcNpyRead(const char *path, DlcTensor *t, char *error, size_t errorLength);
/* The same from an open, seekable stream (not closed); `path` names it in
   messages. The fuzz target reads from memory through this. */
bool dlcNpyReadStream(FILE *f, const char *path, DlcTensor *t, char *error,
                      size_t errorLength);
bool dlcNpyWrite(const char *path, const DlcTensor *t, char *error, size_t errorLength);

#endif /* DLC_RUNTIME_NPY_H */
