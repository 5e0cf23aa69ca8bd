{
  "targets": [
    {
      "target_name": "conifer_native",
      "sources": ["native/exact-scan.cc"],
      "cflags_cc": ["-O3", "-std=c++17"]
    }
  ]
}
