// cpuFeatures() → { avx2, fma }: what this CPU can run, so the engine loads the hnswlib
// build that uses them only where it is safe (src/engine/graph/hnswlib-binding.ts).
#pragma once
#include <node_api.h>

napi_value CpuFeatures(napi_env env, napi_callback_info info);
