/* A stand-in for libcuda.so.1 that records the calls dlc's CUDA runtime
   makes (test/GPU/runtime-calls.test, loaded through DLC_CUDA_DRIVER_PATH).
   "Device" memory is host memory, copies are memcpy, kernels do not run:
   it checks the runtime's call sequence (how often a weight is uploaded,
   what is freed), never numerics. fakeCudaReport() prints the counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

int launches, allocs, frees, modules;
enum { kMaxCopies = 4096 };
static size_t copyBytes[kMaxCopies];
static int copies;
static void *live[kMaxCopies];
static size_t liveBytes[kMaxCopies];

static void copy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  memcpy((void *)dst, (const void *)src, n);
  if (copies < kMaxCopies)
    copyBytes[copies++] = n;
}

CUresult cuInit(unsigned f) { return 0; }
CUresult cuDeviceGet(int *d, int o) { *d = o; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)1; return 0; }
CUresult cuCtxSetCurrent(void *c) { return 0; }
CUresult cuModuleLoadData(void **m, const void *img) { ++modules; *m = (void *)2; return 0; }
CUresult cuModuleLoadDataEx(void **m, const void *img, unsigned n, int *o, void **v) {
  return cuModuleLoadData(m, img);
}
CUresult cuModuleUnload(void *m) { return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) { *f = (void *)3; return 0; }
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, void *s, void **params, void **extra) {
  ++launches;
  return 0;
}
CUresult cuStreamCreate(void **s, unsigned f) { *s = (void *)4; return 0; }
CUresult cuStreamDestroy_v2(void *s) { return 0; }
CUresult cuStreamSynchronize(void *s) { return 0; }
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) { return 0; }
CUresult cuEventCreate(void **e, unsigned f) { *e = (void *)5; return 0; }
CUresult cuEventDestroy_v2(void *e) { return 0; }
CUresult cuEventRecord(void *e, void *s) { return 0; }
CUresult cuEventSynchronize(void *e) { return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) { *ms = 1.0f; return 0; }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
  void *m = calloc(1, n ? n : 1);
  if (!m)
    return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  for (int i = 0; i < kMaxCopies; ++i)
    if (!live[i]) {
      live[i] = m;
      liveBytes[i] = n;
      break;
    }
  ++allocs;
  *p = (CUdeviceptr)m;
  return 0;
}
CUresult cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned f) { return cuMemAlloc_v2(p, n); }
CUresult cuMemFree_v2(CUdeviceptr p) {
  for (int i = 0; i < kMaxCopies; ++i)
    if (live[i] == (void *)p)
      live[i] = NULL;
  ++frees;
  free((void *)p);
  return 0;
}
CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, void *st) { copy(d, s, n); return 0; }
CUresult cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n) { copy(d, s, n); return 0; }
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, void *s) { return 0; }
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, void *s) { return 0; }
CUresult cuGetErrorString(CUresult r, const char **s) { *s = "fake"; return 0; }

#ifndef FAKE_CUDA_NO_TMA
/* CUDA 12's TMA descriptor encoder: prints what it was given (innermost
   dim first, as the driver takes it) and fills the 128-byte map with a
   marker the caller can find in the device copy. Built without it
   (-DFAKE_CUDA_NO_TMA) it stands for a CUDA 11 driver. */
CUresult cuTensorMapEncodeTiled(void *map, int type, unsigned rank, void *addr,
                                const unsigned long long *dims, const unsigned long long *strides,
                                const unsigned *box, const unsigned *elementStrides, int interleave,
                                int swizzle, int l2, int oob) {
  printf("cuTensorMapEncodeTiled type=%d rank=%u addr=%p dims=", type, rank, addr);
  for (unsigned i = 0; i < rank; ++i)
    printf("%s%llu", i ? "," : "", dims[i]);
  printf(" strides=");
  for (unsigned i = 0; i + 1 < rank; ++i)
    printf("%s%llu", i ? "," : "", strides[i]);
  printf(" box=");
  for (unsigned i = 0; i < rank; ++i)
    printf("%s%u", i ? "," : "", box[i]);
  printf(" elementStrides=");
  for (unsigned i = 0; i < rank; ++i)
    printf("%s%u", i ? "," : "", elementStrides[i]);
  printf(" interleave=%d swizzle=%d l2=%d oob=%d\n", interleave, swizzle, l2, oob);
  fflush(stdout);
  memset(map, 0x5a, 128);
  return box[0] * 2 > 128 && swizzle == 3 ? 1 /* CUDA_ERROR_INVALID_VALUE */ : 0;
}
#endif

/* Copies of `bytes` bytes, and buffers of that size still allocated. */
void fakeCudaReport(size_t bytes) {
  int n = 0, alive = 0;
  for (int i = 0; i < copies; ++i)
    n += copyBytes[i] == bytes;
  for (int i = 0; i < kMaxCopies; ++i)
    alive += live[i] && liveBytes[i] == bytes;
  printf("copies of %zu bytes: %d; live buffers of %zu bytes: %d; launches: %d\n", bytes, n,
         bytes, alive, launches);
  fflush(stdout);
}

/* With FAKE_CUDA_EXIT_REPORT=BYTES, the report of BYTES-sized copies and
   buffers at process exit (for callers that cannot reach fakeCudaReport,
   e.g. dlc-run). */
__attribute__((destructor)) static void exitReport(void) {
  const char *bytes = getenv("FAKE_CUDA_EXIT_REPORT");
  if (bytes) {
    printf("at exit: ");
    fakeCudaReport((size_t)strtoull(bytes, NULL, 10));
  }
}
