/* The host side of --lower-to-nvvm programs: the mgpu* entry points that
   MLIR's gpu-to-llvm lowering (and the gpu.binary's LLVM translation)
   calls, over the CUDA driver API.

   libcuda.so.1 is opened with dlopen at the first call, so dlc builds,
   links and loads where no GPU or driver is; dlcCudaAvailable() says why
   not ("no CUDA driver: ..."), and callers check it before compiling for
   the GPU. The mgpu* functions cannot return errors to the generated code:
   a failing driver call is printed once with its name and kept as the
   last error (dlcCudaTakeError), which the caller checks after a run.

   One context: the primary context of device 0 (mgpuSetDefaultDevice
   changes the device before the first use).

   Constants (weights): a program's host code asks for each constant's
   device copy through dlcCudaConstant_<type> (emitted by dlc-gpu-map),
   which uploads it on first use and returns the same device buffer after:
   a weight crosses to the device once per compiled program, not per call.
   The copies live in a DlcCudaConstants table the caller of the program
   creates with it, binds around each call and destroys with it, which
   frees them; a program run with no table bound (AOT, other callers)
   uses one process-wide table, freed at exit by the driver.

   DLC_CUDA_DRIVER_PATH names another driver library than libcuda.so.1
   (test/GPU/runtime-calls.test loads a fake one that records the calls). */

#include "cuda_runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult; /* CUDA_SUCCESS == 0 */
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUevent;
typedef unsigned long long CUdeviceptr;

enum { CU_STREAM_NON_BLOCKING = 1, CU_JIT_OPTIMIZATION_LEVEL = 7, CU_MEM_ATTACH_GLOBAL = 1 };

/* The driver functions used, by their versioned ABI names. */
static struct {
  CUresult (*init)(unsigned);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*moduleUnload)(CUmodule);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void **, void **);
  CUresult (*streamCreate)(CUstream *, unsigned);
  CUresult (*streamDestroy)(CUstream);
  CUresult (*streamSynchronize)(CUstream);
  CUresult (*streamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*eventCreate)(CUevent *, unsigned);
  CUresult (*eventDestroy)(CUevent);
  CUresult (*eventRecord)(CUevent, CUstream);
  CUresult (*eventSynchronize)(CUevent);
  CUresult (*eventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memAllocManaged)(CUdeviceptr *, size_t, unsigned);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*memcpy)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*memsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*memsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
  CUresult (*getErrorString)(CUresult, const char **);
} cu;

static const struct {
  const char *name;
  size_t offset;
} kSymbols[] = {
#define SYM(field, name) {name, offsetof(__typeof__(cu), field)}
    SYM(init, "cuInit"),
    SYM(deviceGet, "cuDeviceGet"),
    SYM(primaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    SYM(ctxSetCurrent, "cuCtxSetCurrent"),
    SYM(moduleLoadData, "cuModuleLoadData"),
    SYM(moduleLoadDataEx, "cuModuleLoadDataEx"),
    SYM(moduleUnload, "cuModuleUnload"),
    SYM(moduleGetFunction, "cuModuleGetFunction"),
    SYM(launchKernel, "cuLaunchKernel"),
    SYM(streamCreate, "cuStreamCreate"),
    SYM(streamDestroy, "cuStreamDestroy_v2"),
    SYM(streamSynchronize, "cuStreamSynchronize"),
    SYM(streamWaitEvent, "cuStreamWaitEvent"),
    SYM(eventCreate, "cuEventCreate"),
    SYM(eventDestroy, "cuEventDestroy_v2"),
    SYM(eventRecord, "cuEventRecord"),
    SYM(eventSynchronize, "cuEventSynchronize"),
    SYM(eventElapsedTime, "cuEventElapsedTime"),
    SYM(memAlloc, "cuMemAlloc_v2"),
    SYM(memAllocManaged, "cuMemAllocManaged"),
    SYM(memFree, "cuMemFree_v2"),
    SYM(memcpyAsync, "cuMemcpyAsync"),
    SYM(memcpy, "cuMemcpy"),
    SYM(memsetD32Async, "cuMemsetD32Async"),
    SYM(memsetD16Async, "cuMemsetD16Async"),
    SYM(getErrorString, "cuGetErrorString"),
#undef SYM
};

/* CUtensorMap (cuda.h): 128 opaque bytes, 64-byte aligned. */
typedef struct {
  _Alignas(64) unsigned long long opaque[16];
} CUtensorMap;

/* cuTensorMapEncodeTiled exists from CUDA 12 on: looked up apart from
   kSymbols, so an older driver still runs every program without TMA and
   only a TMA descriptor fails, naming the missing function. */
static CUresult (*tensorMapEncodeTiled)(CUtensorMap *, int, uint32_t, void *, const uint64_t *,
                                        const uint64_t *, const uint32_t *, const uint32_t *, int,
                                        int, int, int);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char loadError[512];
static int defaultDevice;
static CUcontext context;
static _Thread_local char lastError[512];

static void load(void) {
  const char *path = getenv("DLC_CUDA_DRIVER_PATH");
  if (!path || !path[0])
    path = "libcuda.so.1";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(loadError, sizeof loadError, "no CUDA driver: cannot load %s (%s)", path,
             e ? e : "not found");
    return;
  }
  for (size_t i = 0; i < sizeof kSymbols / sizeof kSymbols[0]; ++i) {
    void *f = dlsym(lib, kSymbols[i].name);
    if (!f) {
      snprintf(loadError, sizeof loadError,
               "no usable CUDA driver: libcuda.so.1 lacks %s", kSymbols[i].name);
      return;
    }
    memcpy((char *)&cu + kSymbols[i].offset, &f, sizeof f);
  }
  void *encode = dlsym(lib, "cuTensorMapEncodeTiled");
  memcpy(&tensorMapEncodeTiled, &encode, sizeof encode);
  CUdevice dev;
  CUresult r = cu.init(0);
  if (r == 0)
    r = cu.deviceGet(&dev, defaultDevice);
  if (r == 0)
    r = cu.primaryCtxRetain(&context, dev);
  if (r != 0) {
    const char *s = NULL;
    cu.getErrorString(r, &s);
    snprintf(loadError, sizeof loadError, "no CUDA device: driver error %d (%s)", r,
             s ? s : "unknown");
  }
}

bool dlcCudaAvailable(char *message, size_t size) {
  pthread_once(&once, load);
  if (loadError[0] && message && size)
    snprintf(message, size, "%s", loadError);
  return loadError[0] == 0;
}

bool dlcCudaTakeError(char *message, size_t size) {
  if (!lastError[0])
    return false;
  if (message && size)
    snprintf(message, size, "%s", lastError);
  lastError[0] = 0;
  return true;
}

/* True when the driver is usable and the call succeeded; else records why. */
static bool check(CUresult r, const char *what) {
  if (r == 0)
    return true;
  const char *s = NULL;
  if (cu.getErrorString)
    cu.getErrorString(r, &s);
  if (!lastError[0]) {
    snprintf(lastError, sizeof lastError, "%s failed: error %d (%s)", what, r, s ? s : "unknown");
    fprintf(stderr, "dlc cuda runtime: %s\n", lastError);
  }
  return false;
}

static bool ready(const char *what) {
  pthread_once(&once, load);
  if (loadError[0]) {
    if (!lastError[0])
      snprintf(lastError, sizeof lastError, "%s: %s", what, loadError);
    return false;
  }
  return check(cu.ctxSetCurrent(context), "cuCtxSetCurrent");
}

/*--- The mgpu* entry points -------------------------------------------------------*/

DLC_CUDA_EXPORT void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

void *mgpuModuleLoad(void *data, size_t size) {
  (void)size;
  CUmodule m = NULL;
  if (ready("mgpuModuleLoad"))
    check(cu.moduleLoadData(&m, data), "cuModuleLoadData");
  return m;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  CUmodule m = NULL;
  int opts[1] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *vals[1] = {(void *)(intptr_t)optLevel};
  if (ready("mgpuModuleLoadJIT"))
    check(cu.moduleLoadDataEx(&m, data, 1, opts, vals), "cuModuleLoadDataEx (PTX JIT)");
  return m;
}

DLC_CUDA_EXPORT void mgpuModuleUnload(void *module) {
  if (module && ready("mgpuModuleUnload"))
    check(cu.moduleUnload(module), "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  CUfunction f = NULL;
  if (module && ready("mgpuModuleGetFunction"))
    check(cu.moduleGetFunction(&f, module, name), "cuModuleGetFunction");
  return f;
}

DLC_CUDA_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                      intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t smem,
                      void *stream, void **params, void **extra, size_t paramsCount) {
  (void)paramsCount;
  if (!function) { /* its module did not load: an error, never a skipped kernel */
    if (!lastError[0])
      snprintf(lastError, sizeof lastError, "mgpuLaunchKernel: the kernel's module is not loaded");
    return;
  }
  if (ready("mgpuLaunchKernel"))
    check(cu.launchKernel(function, (unsigned)gridX, (unsigned)gridY, (unsigned)gridZ,
                          (unsigned)blockX, (unsigned)blockY, (unsigned)blockZ, (unsigned)smem,
                          stream, params, extra),
          "cuLaunchKernel");
}

/* Stream timing (dlcCudaTimingBegin/End): while on, in this thread, a
   CUDA event is recorded on each stream the program creates, and another
   when the program synchronises it; the time between them (the stream's
   kernels and copies, not the caller's input and output copies) is
   summed. One stream at a time is what gpu-async-region emits. */
static _Thread_local struct {
  bool on;
  CUstream stream;
  CUevent start, stop;
  double ms;
  int streams;
} timing;

void *mgpuStreamCreate(void) {
  CUstream s = NULL;
  if (ready("mgpuStreamCreate"))
    check(cu.streamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  if (s && timing.on && !timing.stream && timing.start &&
      check(cu.eventRecord(timing.start, s), "cuEventRecord"))
    timing.stream = s;
  return s;
}

static void releaseTensorMaps(void *stream);

DLC_CUDA_EXPORT void mgpuStreamDestroy(void *stream) {
  releaseTensorMaps(stream);
  if (ready("mgpuStreamDestroy"))
    check(cu.streamDestroy(stream), "cuStreamDestroy");
}

DLC_CUDA_EXPORT void mgpuStreamSynchronize(void *stream) {
  bool timed = timing.on && stream && stream == timing.stream &&
               check(cu.eventRecord(timing.stop, stream), "cuEventRecord");
  if (ready("mgpuStreamSynchronize"))
    check(cu.streamSynchronize(stream), "cuStreamSynchronize");
  if (timed) {
    float ms = 0;
    if (check(cu.eventElapsedTime(&ms, timing.start, timing.stop), "cuEventElapsedTime")) {
      timing.ms += ms;
      ++timing.streams;
    }
    timing.stream = NULL;
  }
}

DLC_CUDA_EXPORT void mgpuStreamWaitEvent(void *stream, void *event) {
  if (ready("mgpuStreamWaitEvent"))
    check(cu.streamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

void *mgpuEventCreate(void) {
  CUevent e = NULL;
  if (ready("mgpuEventCreate"))
    check(cu.eventCreate(&e, 0), "cuEventCreate");
  return e;
}

DLC_CUDA_EXPORT void mgpuEventDestroy(void *event) {
  if (ready("mgpuEventDestroy"))
    check(cu.eventDestroy(event), "cuEventDestroy");
}

DLC_CUDA_EXPORT void mgpuEventSynchronize(void *event) {
  if (ready("mgpuEventSynchronize"))
    check(cu.eventSynchronize(event), "cuEventSynchronize");
}

DLC_CUDA_EXPORT void mgpuEventRecord(void *event, void *stream) {
  if (ready("mgpuEventRecord"))
    check(cu.eventRecord(event, stream), "cuEventRecord");
}

void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared) {
  (void)stream;
  CUdeviceptr p = 0;
  if (bytes == 0 || !ready("mgpuMemAlloc"))
    return NULL;
  if (isHostShared)
    check(cu.memAllocManaged(&p, bytes, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged");
  else
    check(cu.memAlloc(&p, bytes), "cuMemAlloc");
  return (void *)(uintptr_t)p;
}

DLC_CUDA_EXPORT void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  if (ptr && ready("mgpuMemFree"))
    check(cu.memFree((CUdeviceptr)(uintptr_t)ptr), "cuMemFree");
}

DLC_CUDA_EXPORT void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  if (bytes && ready("mgpuMemcpy"))
    check(cu.memcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, bytes, stream),
          "cuMemcpyAsync");
}

DLC_CUDA_EXPORT void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream) {
  if (count && ready("mgpuMemset32"))
    check(cu.memsetD32Async((CUdeviceptr)(uintptr_t)dst, value, count, stream),
          "cuMemsetD32Async");
}

DLC_CUDA_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  if (count && ready("mgpuMemset16"))
    check(cu.memsetD16Async((CUdeviceptr)(uintptr_t)dst, value, count, stream),
          "cuMemsetD16Async");
}

/*--- TMA descriptors (sm_90) -----------------------------------------------------------*/

/* Records `what` as the last error (the first since it was taken). */
static void fail(const char *what) {
  if (!lastError[0]) {
    snprintf(lastError, sizeof lastError, "%s", what);
    fprintf(stderr, "dlc cuda runtime: %s\n", lastError);
  }
}

/* The device copies of the tensor maps this thread made since its last
   stream was destroyed. A program's host code makes its maps (one per
   wgmma operand and launch: the buffers' addresses change between calls)
   before the launches on its stream, synchronises that stream at the end
   of the call and destroys it; the maps are freed there, after the
   kernels that read them finished, so a call leaves none behind. */
static _Thread_local struct {
  CUdeviceptr *p;
  size_t n, cap;
} pendingMaps;

static bool keepTensorMap(CUdeviceptr p) {
  if (pendingMaps.n == pendingMaps.cap) {
    size_t cap = pendingMaps.cap ? 2 * pendingMaps.cap : 16;
    CUdeviceptr *q = realloc(pendingMaps.p, cap * sizeof *q);
    if (!q)
      return false;
    pendingMaps.p = q;
    pendingMaps.cap = cap;
  }
  pendingMaps.p[pendingMaps.n++] = p;
  return true;
}

static void releaseTensorMaps(void *stream) {
  if (!pendingMaps.n)
    return;
  if (ready("mgpuStreamDestroy")) /* the kernels reading them are done */
    check(cu.streamSynchronize(stream), "cuStreamSynchronize");
  for (size_t i = 0; i < pendingMaps.n; ++i)
    cu.memFree(pendingMaps.p[i]);
  pendingMaps.n = 0;
}

static bool encodeTiled(CUtensorMap *map, int dataType, uint32_t rank, void *address,
                        const uint64_t *dims, const uint64_t *strides, const uint32_t *box,
                        const uint32_t *elementStrides, int interleave, int swizzle,
                        int l2Promotion, int oobFill) {
  if (!ready("mgpuTensorMapEncodeTiled"))
    return false;
  if (!tensorMapEncodeTiled) {
    fail("mgpuTensorMapEncodeTiled: the CUDA driver has no cuTensorMapEncodeTiled (TMA needs a "
         "CUDA 12 driver or newer)");
    return false;
  }
  return check(tensorMapEncodeTiled(map, dataType, rank, address, dims, strides, box,
                                    elementStrides, interleave, swizzle, l2Promotion, oobFill),
               "cuTensorMapEncodeTiled");
}

/* The CUDA driver's own signature (cuTensorMapEncodeTiled), as MLIR's
   CUDA runtime wrappers export it; the enums are ints. */
DLC_CUDA_EXPORT void mgpuTensorMapEncodeTiled(CUtensorMap *map, int dataType, uint32_t rank,
                                              void *address, const uint64_t *dims,
                                              const uint64_t *strides, const uint32_t *box,
                                              const uint32_t *elementStrides, int interleave,
                                              int swizzle, int l2Promotion, int oobFill) {
  encodeTiled(map, dataType, rank, address, dims, strides, box, elementStrides, interleave,
              swizzle, l2Promotion, oobFill);
}

/* Bytes of an element of each CUtensorMapDataType (cuda.h's order: u8,
   u16, u32, i32, u64, i64, f16, f32, f64, bf16, f32 ftz, tf32, tf32 ftz). */
static const int kTensorMapElementBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};

/* What nvgpu.tma.create.descriptor lowers to (NVGPUToNVVM): a tensor map
   of the ranked memref whose descriptor is at `memref` ({allocated,
   aligned, offset, sizes[rank], strides[rank]}), tiles of `box` (outermost
   first, as the memref's dims), copied to device memory for the kernel's
   TMA loads (freed when this thread's stream is destroyed, after the
   call's kernels: releaseTensorMaps); its address, or NULL with the last
   error set. The arguments
   are i64 in the generated call. The memref's innermost dim must be
   contiguous (TMA walks it element by element); the offset is honoured. */
DLC_CUDA_EXPORT void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *memref, int64_t dataType,
                                                     int64_t interleave, int64_t swizzle,
                                                     int64_t l2Promotion, int64_t oobFill,
                                                     const int64_t *box) {
  char msg[256];
  if (rank < 1 || rank > 5) {
    snprintf(msg, sizeof msg, "mgpuTensorMapEncodeTiledMemref: rank %lld is not 1 to 5",
             (long long)rank);
    fail(msg);
    return NULL;
  }
  if (dataType < 0 || dataType >= (int64_t)(sizeof kTensorMapElementBytes / sizeof(int))) {
    snprintf(msg, sizeof msg, "mgpuTensorMapEncodeTiledMemref: unknown data type %lld",
             (long long)dataType);
    fail(msg);
    return NULL;
  }
  struct {
    char *allocated, *aligned;
    int64_t offset, shape[];
  } *d = memref;
  const int64_t *sizes = d->shape, *memStrides = d->shape + rank;
  int64_t bytes = kTensorMapElementBytes[dataType];
  if (memStrides[rank - 1] != 1) {
    snprintf(msg, sizeof msg,
             "mgpuTensorMapEncodeTiledMemref: the innermost dim has stride %lld, TMA needs 1",
             (long long)memStrides[rank - 1]);
    fail(msg);
    return NULL;
  }
  /* the driver's order is innermost first; strides of the outer dims, in bytes */
  uint64_t dims[5] = {1, 1, 1, 1, 1}, strides[5] = {0};
  uint32_t boxDims[5] = {1, 1, 1, 1, 1}, elementStrides[5] = {1, 1, 1, 1, 1};
  for (int64_t i = 0; i < rank; ++i) {
    dims[i] = (uint64_t)sizes[rank - 1 - i];
    if (box[rank - 1 - i] < 1 || box[rank - 1 - i] > 256) {
      snprintf(msg, sizeof msg,
               "mgpuTensorMapEncodeTiledMemref: box dim %lld is %lld, not 1 to 256",
               (long long)(rank - 1 - i), (long long)box[rank - 1 - i]);
      fail(msg);
      return NULL;
    }
    boxDims[i] = (uint32_t)box[rank - 1 - i];
  }
  for (int64_t i = 0; i + 1 < rank; ++i)
    strides[i] = (uint64_t)(memStrides[rank - 2 - i] * bytes);
  CUtensorMap map;
  memset(&map, 0, sizeof map);
  if (!encodeTiled(&map, (int)dataType, (uint32_t)rank, d->aligned + d->offset * bytes, dims,
                   strides, boxDims, elementStrides, (int)interleave, (int)swizzle,
                   (int)l2Promotion, (int)oobFill))
    return NULL;
  CUdeviceptr p = 0;
  if (!check(cu.memAlloc(&p, sizeof map), "cuMemAlloc"))
    return NULL;
  if (!check(cu.memcpy(p, (CUdeviceptr)(uintptr_t)&map, sizeof map), "cuMemcpy")) {
    cu.memFree(p);
    return NULL;
  }
  if (!keepTensorMap(p)) {
    cu.memFree(p);
    fail("mgpuTensorMapEncodeTiledMemref: out of host memory for the tensor map list");
    return NULL;
  }
  return (void *)(uintptr_t)p;
}

/*--- For callers (dlc-run, the C API) ----------------------------------------------*/

void *dlcCudaAlloc(size_t bytes) { return mgpuMemAlloc(bytes ? bytes : 1, NULL, false); }

void dlcCudaFree(void *p) { mgpuMemFree(p, NULL); }

bool dlcCudaCopy(void *dst, const void *src, size_t bytes) {
  if (!bytes)
    return true;
  if (!ready("dlcCudaCopy"))
    return false;
  return check(cu.memcpy((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, bytes),
               "cuMemcpy");
}

bool dlcCudaSynchronize(void) {
  return ready("dlcCudaSynchronize") && check(cu.streamSynchronize(NULL), "cuStreamSynchronize");
}

bool dlcCudaEventTimer(void **start, void **stop) {
  *start = mgpuEventCreate();
  *stop = mgpuEventCreate();
  return *start && *stop;
}

float dlcCudaElapsedMs(void *start, void *stop) {
  float ms = -1;
  if (ready("dlcCudaElapsedMs") && check(cu.eventSynchronize(stop), "cuEventSynchronize"))
    check(cu.eventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  return ms;
}

/*--- Constants: uploaded once per program --------------------------------------------*/

struct DlcCudaConstants {
  pthread_mutex_t lock; /* concurrent calls of one program share its table */
  size_t n, cap;
  const void **host;
  void **device;
};

static DlcCudaConstants processConstants = {.lock = PTHREAD_MUTEX_INITIALIZER};
static _Thread_local DlcCudaConstants *bound;

DlcCudaConstants *dlcCudaConstantsCreate(void) {
  DlcCudaConstants *c = calloc(1, sizeof *c);
  if (c)
    pthread_mutex_init(&c->lock, NULL);
  return c;
}

void dlcCudaConstantsDestroy(DlcCudaConstants *c) {
  if (!c)
    return;
  for (size_t i = 0; i < c->n; ++i)
    dlcCudaFree(c->device[i]);
  free(c->host);
  free(c->device);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

DlcCudaConstants *dlcCudaConstantsBind(DlcCudaConstants *c) {
  DlcCudaConstants *previous = bound;
  bound = c;
  return previous;
}

void *dlcCudaConstant(const void *host, size_t bytes) {
  DlcCudaConstants *c = bound ? bound : &processConstants;
  void *dev = NULL;
  pthread_mutex_lock(&c->lock);
  for (size_t i = 0; i < c->n && !dev; ++i)
    if (c->host[i] == host)
      dev = c->device[i];
  if (!dev && c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 16;
    const void **h = realloc(c->host, cap * sizeof *h);
    if (h)
      c->host = h;
    void **d = h ? realloc(c->device, cap * sizeof *d) : NULL;
    if (d) {
      c->device = d;
      c->cap = cap;
    }
  }
  if (!dev && c->n < c->cap) {
    dev = dlcCudaAlloc(bytes);
    if (dev && !dlcCudaCopy(dev, host, bytes)) {
      dlcCudaFree(dev);
      dev = NULL;
    }
    if (dev) {
      c->host[c->n] = host;
      c->device[c->n++] = dev;
    }
  }
  pthread_mutex_unlock(&c->lock);
  if (!dev && !lastError[0]) /* the run reports it; kernels read a null buffer never */
    snprintf(lastError, sizeof lastError, "cannot upload a %zu-byte constant", bytes);
  return dev;
}

/* The C interface of `func.func private @dlcCudaConstant_<T>(memref<?xT>,
   index) -> memref<?xT> attributes {llvm.emit_c_interface}`: the result
   descriptor first, then the host constant (flattened) and its bytes. */
typedef struct {
  void *allocated, *aligned;
  int64_t offset, size, stride;
} MemRef1;

static void constantOf(MemRef1 *out, const MemRef1 *in, int64_t bytes) {
  int64_t elem = in->size > 0 ? bytes / in->size : 1;
  const char *host = (const char *)in->aligned + in->offset * elem;
  void *dev = dlcCudaConstant(host, (size_t)bytes);
  *out = (MemRef1){dev, dev, 0, in->size, 1};
}

#define DLC_CONSTANT_OF(T)                                                                   \
  DLC_CUDA_EXPORT void _mlir_ciface_dlcCudaConstant_##T(MemRef1 *out, MemRef1 *in,           \
                                                         int64_t bytes) {                    \
    constantOf(out, in, bytes);                                                              \
  }
DLC_CONSTANT_OF(f64)
DLC_CONSTANT_OF(f32)
DLC_CONSTANT_OF(f16)
DLC_CONSTANT_OF(bf16)
DLC_CONSTANT_OF(i64)
DLC_CONSTANT_OF(i32)
DLC_CONSTANT_OF(i16)
DLC_CONSTANT_OF(i8)
DLC_CONSTANT_OF(i1)
#undef DLC_CONSTANT_OF

/* What compiled host code calls, for a JIT that does not search the
   process's symbols (libdlc.so loaded RTLD_LOCAL, as Python's ctypes does). */
static const struct {
  const char *name;
  void *address;
} kEntryPoints[] = {
    {"mgpuSetDefaultDevice", (void *)mgpuSetDefaultDevice},
    {"mgpuModuleLoad", (void *)mgpuModuleLoad},
    {"mgpuModuleLoadJIT", (void *)mgpuModuleLoadJIT},
    {"mgpuModuleUnload", (void *)mgpuModuleUnload},
    {"mgpuModuleGetFunction", (void *)mgpuModuleGetFunction},
    {"mgpuLaunchKernel", (void *)mgpuLaunchKernel},
    {"mgpuStreamCreate", (void *)mgpuStreamCreate},
    {"mgpuStreamDestroy", (void *)mgpuStreamDestroy},
    {"mgpuStreamSynchronize", (void *)mgpuStreamSynchronize},
    {"mgpuStreamWaitEvent", (void *)mgpuStreamWaitEvent},
    {"mgpuEventCreate", (void *)mgpuEventCreate},
    {"mgpuEventDestroy", (void *)mgpuEventDestroy},
    {"mgpuEventSynchronize", (void *)mgpuEventSynchronize},
    {"mgpuEventRecord", (void *)mgpuEventRecord},
    {"mgpuMemAlloc", (void *)mgpuMemAlloc},
    {"mgpuMemFree", (void *)mgpuMemFree},
    {"mgpuMemcpy", (void *)mgpuMemcpy},
    {"mgpuMemset32", (void *)mgpuMemset32},
    {"mgpuMemset16", (void *)mgpuMemset16},
    {"mgpuTensorMapEncodeTiled", (void *)mgpuTensorMapEncodeTiled},
    {"mgpuTensorMapEncodeTiledMemref", (void *)mgpuTensorMapEncodeTiledMemref},
    {"_mlir_ciface_dlcCudaConstant_f64", (void *)_mlir_ciface_dlcCudaConstant_f64},
    {"_mlir_ciface_dlcCudaConstant_f32", (void *)_mlir_ciface_dlcCudaConstant_f32},
    {"_mlir_ciface_dlcCudaConstant_f16", (void *)_mlir_ciface_dlcCudaConstant_f16},
    {"_mlir_ciface_dlcCudaConstant_bf16", (void *)_mlir_ciface_dlcCudaConstant_bf16},
    {"_mlir_ciface_dlcCudaConstant_i64", (void *)_mlir_ciface_dlcCudaConstant_i64},
    {"_mlir_ciface_dlcCudaConstant_i32", (void *)_mlir_ciface_dlcCudaConstant_i32},
    {"_mlir_ciface_dlcCudaConstant_i16", (void *)_mlir_ciface_dlcCudaConstant_i16},
    {"_mlir_ciface_dlcCudaConstant_i8", (void *)_mlir_ciface_dlcCudaConstant_i8},
    {"_mlir_ciface_dlcCudaConstant_i1", (void *)_mlir_ciface_dlcCudaConstant_i1},
};

bool dlcCudaRuntimeSymbol(size_t i, const char **name, void **address) {
  if (i >= sizeof kEntryPoints / sizeof kEntryPoints[0])
    return false;
  *name = kEntryPoints[i].name;
  *address = kEntryPoints[i].address;
  return true;
}

/*--- Timing with CUDA events -----------------------------------------------------------*/

bool dlcCudaTimingBegin(void) {
  if (!ready("dlcCudaTimingBegin"))
    return false;
  if (!timing.start && !check(cu.eventCreate(&timing.start, 0), "cuEventCreate"))
    return false;
  if (!timing.stop && !check(cu.eventCreate(&timing.stop, 0), "cuEventCreate"))
    return false;
  timing.on = true;
  timing.stream = NULL;
  timing.ms = 0;
  timing.streams = 0;
  return true;
}

double dlcCudaTimingEnd(int *streams) {
  timing.on = false;
  if (streams)
    *streams = timing.streams;
  return timing.ms;
}
