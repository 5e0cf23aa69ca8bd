// Memory for the vector arena's chunks (src/engine/vectors/arena.ts), freed when the arena
// drops a chunk rather than when the garbage collector gets to it.
//
// allocateChunk(bytes) → an ArrayBuffer of `bytes` zeroed bytes from calloc.
// freeChunk(buffer) → detaches such a buffer (every view of it then has length 0) and
// frees its memory at once; a buffer freeChunk never saw is freed when it is collected.
//
// Why: the arena drops a chunk once a graph holds all its vectors, ~1.5 MiB at 1024 × 384.
// A JavaScript ArrayBuffer's memory goes back to malloc only when V8 collects it, and the
// engine worker's quiet release (worker/quiet-release.ts) starts an incremental collection
// and runs malloc_trim at once, before that collection has freed anything: after a
// 100k × 384 ingest the server held ~1.8 KB per vector more than it used until the next
// release. Freed here, the memory is malloc's free memory by the time that trim runs.
//
// Thread rule: a buffer is freed by the thread that allocated it (each engine worker owns
// its arenas); the allocation and the free touch no shared state.
#pragma once
#include <node_api.h>

napi_value AllocateChunk(napi_env env, napi_callback_info info);
napi_value FreeChunk(napi_env env, napi_callback_info info);
