#include "cpu-features.h"

napi_value CpuFeatures(napi_env env, napi_callback_info) {
  bool avx2 = false, fma = false;
#if defined(__x86_64__) && defined(__GNUC__)
  // __builtin_cpu_supports also checks that the OS saves the AVX registers (XGETBV).
  __builtin_cpu_init();
  avx2 = __builtin_cpu_supports("avx2");
  fma = __builtin_cpu_supports("fma");
#endif
  napi_value result, v;
  napi_create_object(env, &result);
  napi_get_boolean(env, avx2, &v);
  napi_set_named_property(env, result, "avx2", v);
  napi_get_boolean(env, fma, &v);
  napi_set_named_property(env, result, "fma", v);
  return result;
}
