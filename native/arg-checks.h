// Argument checks shared by the addon's functions (exact-scan.cc, sparse-search.cc): each
// answers whether a JavaScript value is what the function needs, without throwing;
// fail() throws the TypeError a bad argument becomes. Header-only (inline): every
// translation unit that includes it gets the same definitions.
#pragma once
#include <node_api.h>

#include <cmath>
#include <cstddef>

namespace arg_checks {

// True when `v` is a typed array of type `want`; then *data and *length describe it.
inline bool typedArray(napi_env env, napi_value v, napi_typedarray_type want, void** data, size_t* length) {
  bool is = false;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return false;
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  if (napi_get_typedarray_info(env, v, &type, length, data, &buffer, &offset) != napi_ok) return false;
  return type == want;
}

// True when `v` is null or undefined.
inline bool isNullish(napi_env env, napi_value v) {
  napi_valuetype type;
  return napi_typeof(env, v, &type) == napi_ok && (type == napi_null || type == napi_undefined);
}

// True when `v` is a number other than NaN; then *out holds it.
inline bool number(napi_env env, napi_value v, double* out) {
  return napi_get_value_double(env, v, out) == napi_ok && !std::isnan(*out);
}

// Throws a TypeError with `message`; returns what a failed napi function returns.
inline napi_value fail(napi_env env, const char* message) {
  napi_throw_type_error(env, nullptr, message);
  return nullptr;
}

}  // namespace arg_checks
