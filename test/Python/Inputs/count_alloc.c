/* An allocator preloaded in front of libc's (as tcmalloc or jemalloc are):
   it counts the malloc/aligned_alloc/posix_memalign calls of at least
   64 KiB made while counting is on (Python's own are smaller), and
   forwards every call to the next definition. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

static int counting;
static long calls;

void countAllocStart(void) { calls = 0, counting = 1; }
long countAllocStop(void) { counting = 0; return calls; }

#define FORWARD(ret, name, params, args)                       \
  ret name params {                                            \
    static ret(*next) params;                                  \
    if (!next)                                                 \
      *(void **)&next = dlsym(RTLD_NEXT, #name);               \
    if (counting && n >= 65536)                                \
      ++calls;                                                 \
    return next args;                                          \
  }

FORWARD(void *, malloc, (size_t n), (n))
FORWARD(void *, aligned_alloc, (size_t a, size_t n), (a, n))
FORWARD(int, posix_memalign, (void **p, size_t a, size_t n), (p, a, n))
