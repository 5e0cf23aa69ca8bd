{
  "targets": [
    {
      # Conifer's addon (native/addon.cc): the exact scan's pre-pass, sparse search, float32
      # JSON printing and parsing, memory release and the arena's chunk memory, and the CPU
      # feature check. -ffp-contract=off: no fused multiply-add,
      # so native float64 sums round exactly as JavaScript's (native/sparse-search.cc relies
      # on it). Exceptions
      # on: sparse-search.cc turns an inconsistent index into a JS Error with one.
      "target_name": "conifer_native",
      "sources": ["native/addon.cc", "native/exact-scan.cc", "native/sparse-search.cc", "native/cpu-features.cc", "native/float-json.cc", "native/json-floats.cc", "native/release-memory.cc", "native/chunk-memory.cc"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-O3", "-std=c++17", "-ffp-contract=off"]
    },
    {
      # Conifer's binding of hnswlib (native/hnsw-index.cc) for the x86-64 baseline (SSE),
      # i.e. every CPU; hnswlib's headers come from the pinned hnswlib-node package.
      # -fvisibility=hidden: hnswlib's templates stay private to this module, so they are
      # never unified with another addon's copy compiled for other instructions.
      "target_name": "conifer_hnsw",
      "sources": ["native/hnsw-index.cc"],
      "include_dirs": ["<!(node -p \"require('path').relative('.', require('path').join(require('path').dirname(require.resolve('hnswlib-node/package.json')), 'src'))\")"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-O3", "-std=c++17", "-fvisibility=hidden"]
    }
  ],
  "conditions": [
    ["target_arch=='x64'", {
      "targets": [
        {
          # The same binding compiled with AVX2 and FMA, so hnswlib's distance functions use
          # 256-bit vectors. src/engine/graph/hnsw-binding.ts loads it only on a CPU that
          # has both, and conifer_hnsw otherwise; never both in one process.
          "target_name": "conifer_hnsw_avx2",
          "sources": ["native/hnsw-index.cc"],
          "include_dirs": ["<!(node -p \"require('path').relative('.', require('path').join(require('path').dirname(require.resolve('hnswlib-node/package.json')), 'src'))\")"],
          "cflags!": ["-fno-exceptions"],
          "cflags_cc!": ["-fno-exceptions"],
          "cflags_cc": ["-O3", "-std=c++17", "-fvisibility=hidden", "-mavx2", "-mfma"]
        },
        {
          # hnswlib-node's own addon source, compiled again with AVX2 and FMA: the bench's
          # in-process hnswlib reference (bench/hnswlib-reference.ts) runs the same
          # instructions as the engine. Loaded only on a CPU that has both.
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
