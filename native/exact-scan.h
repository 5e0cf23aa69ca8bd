// The exact scan's native pre-pass (exact-scan.cc): candidates(query, metric, chunks,
// chunkShift, norms, labels, count, k, out) → how many labels it wrote to out.
#pragma once
#include <node_api.h>

napi_value Candidates(napi_env env, napi_callback_info info);
