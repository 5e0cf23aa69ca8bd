#include "chunk-memory.h"

#include "arg-checks.h"

#include <cstdlib>

namespace {

// What a chunk's ArrayBuffer is wrapped with: its memory, and whether freeChunk freed it.
struct Chunk {
  void* data;
  bool freed;
};

// The wrap's finalizer: the buffer was collected; free the memory unless freeChunk did.
void Collected(napi_env, void* data, void*) {
  Chunk* chunk = static_cast<Chunk*>(data);
  if (!chunk->freed) std::free(chunk->data);
  delete chunk;
}

}  // namespace

napi_value AllocateChunk(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  double bytes = 0;
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != 1 ||
      !arg_checks::number(env, argv[0], &bytes) || bytes < 1 || bytes > 4294967296.0 || bytes != static_cast<double>(static_cast<size_t>(bytes))) {
    return arg_checks::fail(env, "allocateChunk(bytes): a whole number from 1 to 2^32");
  }
  void* data = std::calloc(static_cast<size_t>(bytes), 1);
  if (data == nullptr) {
    napi_throw_error(env, nullptr, "allocateChunk: out of memory");
    return nullptr;
  }
  napi_value buffer;
  Chunk* chunk = new Chunk{data, false};
  // No finalizer on the buffer itself: the wrap's frees the memory, once.
  if (napi_create_external_arraybuffer(env, data, static_cast<size_t>(bytes), nullptr, nullptr, &buffer) != napi_ok ||
      napi_wrap(env, buffer, chunk, Collected, nullptr, nullptr) != napi_ok) {
    std::free(data);
    delete chunk;
    napi_throw_error(env, nullptr, "allocateChunk: could not create the buffer");
    return nullptr;
  }
  return buffer;
}

napi_value FreeChunk(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  void* wrapped = nullptr;
  bool isBuffer = false;
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != 1 ||
      napi_is_arraybuffer(env, argv[0], &isBuffer) != napi_ok || !isBuffer || napi_unwrap(env, argv[0], &wrapped) != napi_ok ||
      wrapped == nullptr) {
    return arg_checks::fail(env, "freeChunk(buffer): an ArrayBuffer from allocateChunk");
  }
  Chunk* chunk = static_cast<Chunk*>(wrapped);
  if (!chunk->freed) {
    // Detached first, so no view can reach the memory once it is freed.
    if (napi_detach_arraybuffer(env, argv[0]) != napi_ok) {
      napi_throw_error(env, nullptr, "freeChunk: could not detach the buffer");
      return nullptr;
    }
    std::free(chunk->data);
    chunk->freed = true;
  }
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  return undefined;
}
