// The exact scan's native pre-pass (exact-scan.cc): candidates(query, metric, chunks,
// chunkShift, norms, labels, count, k, out, codes, params, held, rows) → how many labels it
// wrote to out; denseScores(query, metric, chunks, chunkShift, norms, labels, count, qNorm,
// out, held, rows), the exact dense parts Scorer.denseScore() computes; and codeVector(values, codes,
// codesAt, params, paramsAt), one vector's int8 codes (the arena's code()).
#pragma once
#include <node_api.h>

napi_value Candidates(napi_env env, napi_callback_info info);
napi_value DenseScores(napi_env env, napi_callback_info info);
napi_value CodeVector(napi_env env, napi_callback_info info);
