/* The CUDA runtime of dlc's GPU programs (cuda_runtime.c): availability,
   device buffers and event timing for the callers of compiled programs;
   the mgpu* entry points themselves are called by generated code only. */

#ifndef DLC_RUNTIME_CUDA_RUNTIME_H
#define DLC_RUNTIME_CUDA_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>

#define DLC_CUDA_EXPORT __attribute__((visibility("default")))

/* Loads libcuda.so.1 and device 0's context once; false with the reason
   ("no CUDA driver: ...") when there is none. */
DLC_CUDA_EXPORT bool dlcCudaAvailable(char *message, size_t size);
/* The first driver error since the last call, if any (per thread). */
DLC_CUDA_EXPORT bool dlcCudaTakeError(char *message, size_t size);
DLC_CUDA_EXPORT void *dlcCudaAlloc(size_t bytes);
DLC_CUDA_EXPORT void dlcCudaFree(void *p);
/* Synchronous copy; host or device pointers on either side (UVA). */
DLC_CUDA_EXPORT bool dlcCudaCopy(void *dst, const void *src, size_t bytes);
DLC_CUDA_EXPORT bool dlcCudaSynchronize(void);
DLC_CUDA_EXPORT bool dlcCudaEventTimer(void **start, void **stop);
DLC_CUDA_EXPORT float dlcCudaElapsedMs(void *start, void *stop);

/* A program's device copies of its constants (weights), uploaded on first
   use by the program's host code and kept until destroyed (cuda_runtime.c).
   Bind one around each call of the program (per thread; returns the one
   bound before, to restore); destroying it frees the copies. */
typedef struct DlcCudaConstants DlcCudaConstants;
DLC_CUDA_EXPORT DlcCudaConstants *dlcCudaConstantsCreate(void);
DLC_CUDA_EXPORT void dlcCudaConstantsDestroy(DlcCudaConstants *c);
DLC_CUDA_EXPORT DlcCudaConstants *dlcCudaConstantsBind(DlcCudaConstants *c);
/* The device copy of the constant at `host` in the bound table. */
DLC_CUDA_EXPORT void *dlcCudaConstant(const void *host, size_t bytes);
/* Times the GPU work of the programs run in this thread between Begin and
   End with CUDA events on their own streams (kernels and on-stream copies;
   not the caller's input and output copies): End returns the milliseconds
   summed over the timed streams, and their count in `*streams`. */
DLC_CUDA_EXPORT bool dlcCudaTimingBegin(void);
DLC_CUDA_EXPORT double dlcCudaTimingEnd(int *streams);

/* The i-th entry point compiled host code calls (mgpu*, the constant
   table's C interfaces), for registering with a JIT; false past the end. */
DLC_CUDA_EXPORT bool dlcCudaRuntimeSymbol(size_t i, const char **name, void **address);

#endif
