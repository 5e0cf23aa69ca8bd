{
  "targets": [
    {
      # Conifer's addon (native/addon.cc): the exact scan's pre-pass, sparse search, float32
      # JSON printing and the CPU feature check. -ffp-contract=off: no fused multiply-add,
      # so native float64 sums round exactly as JavaScript's (native/sparse-search.cc relies
      # on it). Exceptions
      # on: sparse-search.cc turns an inconsistent index into a JS Error with one.
      "target_name": "conifer_native",
      "sources": ["native/addon.cc", "native/exact-scan.cc", "native/sparse-search.cc", "native/cpu-features.cc", "native/float-json.cc"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-O3", "-std=c++17", "-ffp-contract=off"]
    }
  ],
  "conditions": [
    ["target_arch=='x64'", {
      "targets": [
        {
          # hnswlib-node's own addon source, compiled again with AVX2 and FMA so hnswlib's
          # distance functions use 256-bit vectors (the package builds for the x86-64
          # baseline, SSE only). Same source, same API: src/engine/graph/hnswlib-binding.ts
          # loads it only on a CPU that has both, and the package's build otherwise.
          "target_name": "hnswlib_avx2",
          "sources": ["<!(node -p \"require('path').relative('.', require('path').join(require('path').dirname(require.resolve('hnswlib-node/package.json')), 'src', 'addon.cc'))\")"],
          "include_dirs": ["<!(node -p \"require(require.resolve('node-addon-api', {paths: [require('path').dirname(require.resolve('hnswlib-node/package.json'))]})).include_dir\")"],
          "defines": ["NAPI_DISABLE_CPP_EXCEPTIONS"],
          "cflags!": ["-fno-exceptions"],
          "cflags_cc!": ["-fno-exceptions"],
          "cflags_cc": ["-O3", "-mavx2", "-mfma"]
        }
      ]
    }]
  ]
}
