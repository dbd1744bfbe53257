/* The lowering of dlg ops to linalg / tensor / arith / math, by op family.

   Each family file (elementwise.c, reduction.c, norm.c, contraction.c,
   pool.c, data.c) exports one table of {op name, lower function} rows;
   --dlk-to-linalg (dlk_to_linalg.c) dispatches through their
   concatenation. Adding an op to a family is one row and one function. A
   lower function builds the op's value before the op and returns it (null
   after emitting an error on the op); the driver replaces and erases the op. */

#ifndef DLC_PASSES_LOWERING_LOWER_H
#define DLC_PASSES_LOWERING_LOWER_H

#include "lowering/emit.h"
#include "schedule/gemm_packing.h"

#include "dlc-c/Dialects.h"

/* What a lower function may depend on besides the op: the strategy's
   choices (today the GEMM packing policy, CPU or GPU). */
typedef struct DlcLowerPolicy {
  DlcGemmPacking packing;
} DlcLowerPolicy;

typedef MlirValue (*DlcLowerFn)(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p);

typedef struct DlcLowering {
  const char *op; /* e.g. "dlg.matmul" */
  DlcLowerFn lower;
} DlcLowering;

/* The family tables, each with its row count. */
#define DLC_DECLARE_LOWERINGS(family)                                                        \
  extern const DlcLowering dlc##family##Lowerings[];                                         \
  extern const size_t dlc##family##LoweringCount
DLC_DECLARE_LOWERINGS(Elementwise);
DLC_DECLARE_LOWERINGS(Reduction);
DLC_DECLARE_LOWERINGS(Norm);
DLC_DECLARE_LOWERINGS(Contraction);
DLC_DECLARE_LOWERINGS(Pool);
DLC_DECLARE_LOWERINGS(Data);
#undef DLC_DECLARE_LOWERINGS

/* Defines a family's table and its count from one initializer list. */
#define DLC_LOWERINGS(family, ...)                                                           \
  const DlcLowering dlc##family##Lowerings[] = {__VA_ARGS__};                                \
  const size_t dlc##family##LoweringCount =                                                  \
      sizeof dlc##family##Lowerings / sizeof dlc##family##Lowerings[0]

/*--- Shared by the families (common.c) ---------------------------------------*/

MlirValue dlcLowerNull(void);
/* Emits `msg` on op; returns a null value. */
MlirValue dlcLowerFail(MlirOperation op, const char *msg);
DlcShape dlcLowerShape(MlirValue v);
MlirType dlcLowerResultType(MlirOperation op);
/* Result 0 of op (null for a null op). */
MlirValue dlcLowerOut(MlirOperation op);
/* attr `axis` of op (default `dflt`), negative counting from the end. */
intptr_t dlcLowerAxis(MlirOperation op, intptr_t rank, int64_t dflt);

/* Where each dim of a tensor to create takes its size from when it is
   dynamic: dim idx[i] of value of[i] (a null value: no source). One
   struct for the (value, dim) pairs every lowering used to spell out. */
typedef struct DlcDimSources {
  MlirValue of[DLC_MAX_LOOPS];
  int64_t idx[DLC_MAX_LOOPS];
} DlcDimSources;

/* No sources (a fully static tensor). */
DlcDimSources dlcDimsNone(void);
/* Dim i from dim i of x (a tensor shaped like x). */
DlcDimSources dlcDimsOf(MlirValue x);
/* Dim i from dim perm[i] of x. */
DlcDimSources dlcDimsPermuted(MlirValue x, const int64_t *perm, intptr_t rank);
/* Dim i of a `rank`-dim tensor from the first operand of op that has a
   dynamic dim there, aligned at the trailing dims (NumPy broadcasting);
   false when some dynamic dim of `type` has none. */
bool dlcDimsFromOperands(MlirOperation op, MlirType type, DlcDimSources *out);

/* tensor.empty / a filled tensor of `type`, dynamic dims from `d`. */
MlirValue dlcEmptyFrom(DlcBuilder *b, MlirType type, const DlcDimSources *d);
MlirValue dlcFilledFrom(DlcBuilder *b, MlirType type, double v, const DlcDimSources *d);
/* tensor.empty of op's result type `type`, dims from op's operands
   (dlcDimsFromOperands); emits an error on op when one has no source. */
MlirValue dlcEmptyLike(DlcBuilder *b, MlirOperation op, MlirType type);

/*--- Reductions, shared with the normalisations (reduction.c) ----------------*/

/* How an operand of a reduction-family generic is indexed by the loop nest
   over x's dims: all dims, the kept (not reduced) ones, those from `axis`
   on, or only `axis`. */
typedef enum { DLC_ACCESS_FULL, DLC_ACCESS_KEPT, DLC_ACCESS_TRAILING, DLC_ACCESS_CHANNEL } DlcAccess;

MlirAffineMap dlcAccessMap(MlirContext ctx, DlcAccess a, intptr_t rank, const bool *reduced,
                           intptr_t axis);

typedef enum {
  DLC_RED_SUM,
  DLC_RED_MAX,
  DLC_RED_MIN,
  DLC_RED_SUM_EXP_SHIFTED, /* sum of exp(x - stat) */
  DLC_RED_SUM_SQ,
  DLC_RED_SUM_SQ_CENTERED, /* sum of (x - stat * invN)^2 */
} DlcReduceKind;

typedef struct DlcReduce {
  DlcReduceKind kind;
  double invN; /* for DLC_RED_SUM_SQ_CENTERED: the mean is sum * invN */
} DlcReduce;

/* Reduces x over the `reduced` dims into a tensor of the kept dims, reading
   `stat` (kept-dims shaped) when not null. */
MlirValue dlcReduceInto(DlcBuilder *b, MlirOperation op, MlirValue x, const bool *reduced,
                        MlirValue stat, const DlcReduce *c);

/* The number of elements over the reduced dims, -1 when one is dynamic. */
double dlcReducedCount(MlirType xt, const bool *reduced, intptr_t rank);

/*--- Control flow (control.c) --------------------------------------------------*/

/* Lowers dlg.if / dlg.while (regions already lowered) to scf.if / scf.while
   and erases op: 1 done (dlg.yield and dlg.condition: nothing to do, their
   parent replaces them), 0 failed (error emitted), -1 not a control op. */
int dlcLowerControl(MlirOperation op);

/*--- Selection (nms.c, nonzero.c) -----------------------------------------*/

/* Lowers dlg.non_max_suppression and dlg.non_zero to host loops on
   tensors (a private function, called in its place) and erases op: 1 done,
   0 failed (error emitted; also when `hostLoops` is false), -1 not a
   selection op. */
int dlcLowerSelection(MlirOperation op, bool hostLoops);

/* dlg.non_zero's part of dlcLowerSelection (nonzero.c). */
int dlcLowerNonZero(MlirOperation op, bool hostLoops);

/* Replaces op by a call of the private function @name, made from
   makeText(args, name) unless the module has it already (functions are
   shared by ops of one shape and attribute set; `marker` is the unit
   attribute the text gives the function, checked so a user symbol of that
   name is an error, not a call). Returns as dlcLowerSelection. */
int dlcLowerToLoopFunction(MlirOperation op, const char *name, const char *marker,
                           char *(*makeText)(const void *args, const char *name),
                           const void *args);

#endif /* DLC_PASSES_LOWERING_LOWER_H */
