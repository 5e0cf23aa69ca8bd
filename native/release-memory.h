// releaseFreeMemory() → Promise<boolean>: hands the heap pages malloc holds free back to
// the operating system (glibc's malloc_trim(0), every arena of every thread), on a libuv
// pool thread: after an ingest one pass took 75 ms here, which no query should wait for.
// Resolves false where there is no such call (another C library) and nothing was done.
//
// Why: each thread that allocates gets its own glibc arena, and an arena keeps what was
// freed in it for reuse. After an ingest the writer's and the HTTP thread's arenas hold
// the parsed bodies' memory, free but resident: ~0.9 KB per 384-d vector ingested
// (100k vectors: RSS 633 → 543 MiB after one call). Safe from any thread at any time
// (malloc locks each arena while trimming it).
//
// releaseIsolateMemory(): tells V8 the calling thread's JavaScript heap is under moderate
// memory pressure, which starts an incremental collection that ends by shrinking the heap
// (the thread keeps running its tasks meanwhile: the call itself took 1–14 ms here; the
// synchronous LowMemoryNotification paused the engine worker 80 ms). A worker thread that
// allocated hard keeps its young generation at its largest (32 MiB, resident) while idle:
// after a 100k × 384 ingest the writer's and the engine worker's held 64 MiB, mostly
// empty, and were back to 1 MiB a second after this call. Only the thread's own heap;
// each thread calls it for itself.
#pragma once
#include <node_api.h>

napi_value ReleaseFreeMemory(napi_env env, napi_callback_info info);
napi_value ReleaseIsolateMemory(napi_env env, napi_callback_info info);
