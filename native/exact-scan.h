// The exact scan's native pre-pass (exact-scan.cc): candidates(query, metric, chunks,
// chunkShift, norms, labels, count, k, out, codes, params) → how many labels it wrote to
// out; and
// denseScores(query, metric, chunks, chunkShift, norms, labels, count, qNorm, out), the
// exact dense parts Scorer.denseScore() computes.
#pragma once
#include <node_api.h>

napi_value Candidates(napi_env env, napi_callback_info info);
napi_value DenseScores(napi_env env, napi_callback_info info);
