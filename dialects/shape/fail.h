/* The shape rules' one way to fail (the .c files of dialects/shape): format the
   message into `err` (when given) and return false, so a rule says
   `return fail(err, "...", ...)`. Defined once in shape.c; private to the
   rule files (the public contract is dlc-c/Shape.h). */

#ifndef DLC_SHAPE_FAIL_H
#define DLC_SHAPE_FAIL_H

#include "dlc-c/Shape.h"

#include <stdbool.h>

bool dlcShapeFail(DlcShapeError *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The rules' short name for it. */
#define fail dlcShapeFail

#endif
