/* What dlc-gpu-mma (gpu_mma.c) lends other tensor-core rewrites
   (gpu_conv.c): one mma.sync on fragments. */

#ifndef DLC_PASSES_GPU_MMA_H
#define DLC_PASSES_GPU_MMA_H

#include "dlc-c/Builder.h"

/* acc (vector<2x2xf32>) + a x b by one mma.sync of shape `mma` on the
   fragments a (vector<4x2xT> f16 / bf16, vector<4x1xf32> tf32) and b
   (vector<2x2xT>, vector<2x1xf32>): nvgpu.mma.sync, or nvvm.mma.sync with
   packed registers for bf16 (MLIR 22's nvgpu lowering rejects bf16). */
MlirValue dlcGpuMmaSync(DlcBuilder *b, MlirValue a, MlirValue bFrag, MlirValue acc,
                        const int64_t mma[3]);

#endif
