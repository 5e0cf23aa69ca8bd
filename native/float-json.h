// JSON text of float32 values (float-json.cc): float32Json(values: Float32Array) → the
// string JSON.stringify(float32ArrayToJson(values)) gives (src/engine/float32.ts), built
// without a JavaScript number per value.
#pragma once
#include <node_api.h>

napi_value Float32Json(napi_env env, napi_callback_info info);
