// Conifer's native addon: the functions the engine worker calls, float32Json, which the
// HTTP thread calls, and jsonFloatArrays, which the HTTP and writer threads call (see each
// header).
#include <node_api.h>

#include "chunk-memory.h"
#include "cpu-features.h"
#include "exact-scan.h"
#include "float-json.h"
#include "json-floats.h"
#include "release-memory.h"
#include "sparse-search.h"

namespace {

napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "candidates", NAPI_AUTO_LENGTH, Candidates, nullptr, &fn);
  napi_set_named_property(env, exports, "candidates", fn);
  napi_create_function(env, "denseScores", NAPI_AUTO_LENGTH, DenseScores, nullptr, &fn);
  napi_set_named_property(env, exports, "denseScores", fn);
  napi_create_function(env, "codeVector", NAPI_AUTO_LENGTH, CodeVector, nullptr, &fn);
  napi_set_named_property(env, exports, "codeVector", fn);
  napi_create_function(env, "cpuFeatures", NAPI_AUTO_LENGTH, CpuFeatures, nullptr, &fn);
  napi_set_named_property(env, exports, "cpuFeatures", fn);
  napi_create_function(env, "float32Json", NAPI_AUTO_LENGTH, Float32Json, nullptr, &fn);
  napi_set_named_property(env, exports, "float32Json", fn);
  napi_create_function(env, "jsonFloatArrays", NAPI_AUTO_LENGTH, JsonFloatArrays, nullptr, &fn);
  napi_set_named_property(env, exports, "jsonFloatArrays", fn);
  napi_create_function(env, "sparseSearch", NAPI_AUTO_LENGTH, SparseSearch, nullptr, &fn);
  napi_set_named_property(env, exports, "sparseSearch", fn);
  napi_create_function(env, "sparseSearchHead", NAPI_AUTO_LENGTH, SparseSearchHead, nullptr, &fn);
  napi_set_named_property(env, exports, "sparseSearchHead", fn);
  napi_create_function(env, "sparseSearchMany", NAPI_AUTO_LENGTH, SparseSearchMany, nullptr, &fn);
  napi_set_named_property(env, exports, "sparseSearchMany", fn);
  napi_create_function(env, "sparseCandidates", NAPI_AUTO_LENGTH, SparseCandidates, nullptr, &fn);
  napi_set_named_property(env, exports, "sparseCandidates", fn);
  napi_create_function(env, "sparseReaching", NAPI_AUTO_LENGTH, SparseReaching, nullptr, &fn);
  napi_set_named_property(env, exports, "sparseReaching", fn);
  napi_create_function(env, "sparseDots", NAPI_AUTO_LENGTH, SparseDots, nullptr, &fn);
  napi_set_named_property(env, exports, "sparseDots", fn);
  napi_create_function(env, "releaseFreeMemory", NAPI_AUTO_LENGTH, ReleaseFreeMemory, nullptr, &fn);
  napi_set_named_property(env, exports, "releaseFreeMemory", fn);
  napi_create_function(env, "releaseIsolateMemory", NAPI_AUTO_LENGTH, ReleaseIsolateMemory, nullptr, &fn);
  napi_set_named_property(env, exports, "releaseIsolateMemory", fn);
  napi_create_function(env, "allocateChunk", NAPI_AUTO_LENGTH, AllocateChunk, nullptr, &fn);
  napi_set_named_property(env, exports, "allocateChunk", fn);
  napi_create_function(env, "freeChunk", NAPI_AUTO_LENGTH, FreeChunk, nullptr, &fn);
  napi_set_named_property(env, exports, "freeChunk", fn);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
