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
#pragma once
#include <node_api.h>

napi_value ReleaseFreeMemory(napi_env env, napi_callback_info info);
