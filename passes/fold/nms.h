/* The C reference kernel of dlg.non_max_suppression, for constant folding
   (--dlg-fold-constants): the same greedy selection as its lowering
   (lowering/nms.c), computed in f32 with onnxruntime's operations. */
#ifndef DLC_PASSES_FOLD_NMS_H
#define DLC_PASSES_FOLD_NMS_H

#include "fold/host_tensor.h"

/* Evaluates `op` (a dlg.non_max_suppression of static types) on boxes and
   scores into out[0] (the padded [rows, 3] i64 selection) and out[1] (the
   0-d i64 count). False, with `out` left empty, when a result exceeds
   `maxElements` or the types are not static. */
bool dlcReferenceNonMaxSuppression(MlirOperation op, const DlcHostTensor *boxes,
                                   const DlcHostTensor *scores, int64_t maxElements,
                                   DlcHostTensor out[2]);

#endif /* DLC_PASSES_FOLD_NMS_H */
