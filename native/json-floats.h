// The vectors of a JSON request body, parsed natively (json-floats.cc):
// jsonFloatArrays(bytes: Uint8Array, shape: 0 | 1) → [rest, values, indices, layout] | undefined.
// Used by src/data/json-body.ts, on the HTTP thread (queries) and the writer thread
// (upserts); see json-floats.cc for the contract.
#pragma once
#include <node_api.h>

napi_value JsonFloatArrays(napi_env env, napi_callback_info info);
