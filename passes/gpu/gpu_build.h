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

/*--- 128-bit epilogue stores from mma.sync C fragments (dlc-gpu-mma, dlc-gpu-conv) ---

   An mma.sync C tile (16 x 8 f32, PTX ISA) gives lane 4g + t its elements
   v[2h + p] at row g + 8h, column 2t + p: two columns of a row, 8 bytes. A
   16-byte store needs adjacent columns of one row in one lane, so lanes
   exchange values (warp shuffles, no shared memory, no barrier):

   round 1 (lanes t and t ^ 1, every tile): the lane takes row g + 8 odd,
     columns 4 (t >> 1) .. + 3 (odd = t & 1); each lane sends the pair its
     partner needs. Four f32: a vector<4xf32> store.
   round 2 (lanes t and t ^ 2, tiles j and j + 1, for 16-bit outputs):
     after round 1 both lanes hold the same row, columns 0-3 (lo, t < 2)
     and 4-7 (hi) of both tiles; lo takes tile j's 8 columns, hi tile
     j + 1's. Eight values: a vector<8xf16> store.

   The send / join halves are apart so that an emulation on the CPU
   (dlc-gpu-conv{emulate}) can compute a partner lane's send from that
   lane's accumulators where the GPU shuffles its own send. */

/* Round 1: what the lane sends (odd ? v[0..1] : v[2..3]) and its four
   adjacent values from its own v and the partner's send `recv`. */
void dlcGpuQuadSend(DlcBuilder *b, MlirValue odd, const MlirValue v[4], MlirValue send[2]);
void dlcGpuQuadJoin(DlcBuilder *b, MlirValue odd, const MlirValue v[4], const MlirValue recv[2],
                    MlirValue out[4]);

/* Round 2 on the round-1 values of tiles j (`a`) and j + 1 (`c`): the
   lane sends hi ? a : c and holds 8 adjacent values of tile j + hi. */
void dlcGpuPairSend(DlcBuilder *b, MlirValue hi, const MlirValue a[4], const MlirValue c[4],
                    MlirValue send[4]);
void dlcGpuPairJoin(DlcBuilder *b, MlirValue hi, const MlirValue a[4], const MlirValue c[4],
                    const MlirValue recv[4], MlirValue out[8]);

/* The value of lane ^ mask (gpu.shuffle xor over the whole warp). */
MlirValue dlcGpuShuffleXor(DlcBuilder *b, MlirValue v, int mask);

/* i1 `x & bit` != 0 of an index. */
MlirValue dlcGpuBitSet(DlcBuilder *b, MlirValue x, int64_t bit);

/* vector.store of the `n` scalars `vals` (one type) into `mem` at `idx`
   (`rank` indices): a 16-byte store when n values make 16 bytes and the
   address is 16-byte aligned (LLVM proves it from the indices). */
void dlcGpuStoreVector(DlcBuilder *b, int n, const MlirValue *vals, MlirValue mem, intptr_t rank,
                       const MlirValue *idx);

/*--- Multi-stage shared-memory staging by cp.async (dlc-gpu-mma, dlc-gpu-conv) --------*/

/* A memref.global "private" @<prefix><i> (the first free i) of `shape`
   (`rank` dims) and `elt` in shared memory, 16-byte aligned, at the top of
   `module`; its memref.get_global by `b`. */
MlirValue dlcGpuSharedGlobal(DlcBuilder *b, MlirOperation module, const char *prefix,
                             intptr_t rank, const int64_t *shape, MlirType elt);

/* nvgpu.device_async_copy (cp.async) of `elements` elements from
   src[srcIdx] to dst[dstIdx]; `srcElements` (an index, may be null) of
   them read, the rest zero-filled; `bypassL1` (16 bytes only): .cg. Its
   token. */
MlirValue dlcGpuAsyncCopy(DlcBuilder *b, MlirValue dst, intptr_t nDst, const MlirValue *dstIdx,
                          MlirValue src, intptr_t nSrc, const MlirValue *srcIdx,
                          int64_t elements, MlirValue srcElements, bool bypassL1);

/* The copies of `tokens` as one group (cp.async.commit_group); its token. */
MlirValue dlcGpuAsyncCommit(DlcBuilder *b, intptr_t n, const MlirValue *tokens);

/* cp.async.wait_group numGroups: at most that many younger groups still
   in flight (`group`: any group token, the lowering ignores it). */
void dlcGpuAsyncWait(DlcBuilder *b, MlirValue group, int32_t numGroups);

#endif
