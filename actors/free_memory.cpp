#include "actors/free_memory.hpp"

#include <cstddef>

#include <malloc.h>

// jemalloc's control interface. Weak: the engine is a library, and the
// program that embeds it chooses its allocator; without jemalloc this is null.
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
  __attribute__((weak));

namespace stepwise {

void release_free_memory() {
  if (mallctl != nullptr) {
    // "arena.<MALLCTL_ARENAS_ALL>.purge": every arena's unused dirty pages.
    // glibc's malloc_trim would do nothing here: jemalloc owns the heap.
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return;
  }
  malloc_trim(0);
}

} // namespace stepwise
