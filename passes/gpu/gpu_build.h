/* The IR-building helpers the GPU rewrites (dlc-gpu-mma's mma.sync and
   wgmma paths, dlc-gpu-conv) share: one op with at most one result, an
   index constant, index arithmetic, an scf.if, the top-level module, and
   the value map a cloned epilogue body is built through. */

#ifndef DLC_PASSES_GPU_BUILD_H
#define DLC_PASSES_GPU_BUILD_H

#include "dlc-c/Builder.h"

enum { DLC_GPU_MAX_MAP = 1024 };

/* Old values to the new ones that replace them (a cloned region's block
   arguments and results); a value with no entry maps to itself. */
typedef struct {
  MlirValue from[DLC_GPU_MAX_MAP], to[DLC_GPU_MAX_MAP];
  int n;
} DlcGpuValueMap;

/* The latest entry for `v`, else `v`. */
MlirValue dlcGpuLookup(const DlcGpuValueMap *m, MlirValue v);

/* Op `name` with `n` operands and one result of type `result` (none when
   `result` is null). */
MlirOperation dlcGpuOp(DlcBuilder *b, const char *name, intptr_t n, const MlirValue *ops,
                       MlirType result, intptr_t nAttrs, const MlirNamedAttribute *attrs);

/* The first result of `op`. */
MlirValue dlcGpuRes(MlirOperation op);

/* arith.constant `v` of integer or index type `t`; of index type. */
MlirValue dlcGpuConstInt(DlcBuilder *b, MlirType t, int64_t v);
MlirValue dlcGpuIndex(DlcBuilder *b, int64_t v);

/* x `name` y, of x's type; x `name` c with c an index constant. */
MlirValue dlcGpuBin(DlcBuilder *b, const char *name, MlirValue x, MlirValue y);
MlirValue dlcGpuBinIndex(DlcBuilder *b, const char *name, MlirValue x, int64_t c);

/* x < c, unsigned, on indices (i1). */
MlirValue dlcGpuCmpUlt(DlcBuilder *b, MlirValue x, int64_t c);

/* scf.if `cond` with an empty else; the returned builder inserts into the
   then block, before its scf.yield. */
DlcBuilder dlcGpuIfThen(DlcBuilder *b, MlirValue cond);

/* The outermost op holding `op` (the module the shared buffers go in). */
MlirOperation dlcGpuModuleOf(MlirOperation op);

#endif
