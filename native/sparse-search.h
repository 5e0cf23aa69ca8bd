// Native sparse search over one namespace's inverted index (sparse-search.cc):
// sparseSearch, sparseSearchHead, sparseSearchMany, sparseCandidates, sparseReaching, sparseDots.
#pragma once
#include <node_api.h>

napi_value SparseSearch(napi_env env, napi_callback_info info);
napi_value SparseSearchHead(napi_env env, napi_callback_info info);
napi_value SparseSearchMany(napi_env env, napi_callback_info info);
napi_value SparseCandidates(napi_env env, napi_callback_info info);
napi_value SparseReaching(napi_env env, napi_callback_info info);
napi_value SparseDots(napi_env env, napi_callback_info info);
