#include "release-memory.h"

#include <v8.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

struct Release {
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  bool done = false;
};

// On a libuv pool thread: touches no JavaScript value.
void Execute(napi_env, void* data) {
#if defined(__GLIBC__)
  malloc_trim(0);
  static_cast<Release*>(data)->done = true;
#else
  (void)data;
#endif
}

// Back on the calling thread.
void Complete(napi_env env, napi_status, void* data) {
  Release* r = static_cast<Release*>(data);
  napi_value result;
  napi_get_boolean(env, r->done, &result);
  napi_resolve_deferred(env, r->deferred, result);
  napi_delete_async_work(env, r->work);
  delete r;
}

}  // namespace

napi_value ReleaseFreeMemory(napi_env env, napi_callback_info) {
  Release* r = new Release();
  napi_value promise, name;
  if (napi_create_promise(env, &r->deferred, &promise) != napi_ok ||
      napi_create_string_utf8(env, "conifer:releaseFreeMemory", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_async_work(env, nullptr, name, Execute, Complete, r, &r->work) != napi_ok ||
      napi_queue_async_work(env, r->work) != napi_ok) {
    // Only on an exhausted environment; the promise (if any) never settles, so say so.
    if (r->work) napi_delete_async_work(env, r->work);
    delete r;
    napi_throw_error(env, nullptr, "releaseFreeMemory: could not queue the release");
    return nullptr;
  }
  return promise;
}

napi_value ReleaseIsolateMemory(napi_env env, napi_callback_info) {
  // V8's own API (node-gyp compiles against the running Node's headers, so its ABI
  // matches): N-API has no call for this. kModerate, not kCritical: incremental, no pause.
  if (v8::Isolate* isolate = v8::Isolate::GetCurrent()) isolate->MemoryPressureNotification(v8::MemoryPressureLevel::kModerate);
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  return undefined;
}
