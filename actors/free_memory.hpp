#pragma once

namespace stepwise {

/// Hands the heap's free pages back to the system, whichever allocator the
/// program runs on: jemalloc's purge when the program links jemalloc (the
/// `stepwise` and `stepwise-bench` executables do), glibc's malloc_trim
/// otherwise. May take milliseconds: call it from a worker.
void release_free_memory();

} // namespace stepwise
