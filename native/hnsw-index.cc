// HnswIndex: Conifer's own binding of hnswlib, the header-only HNSW library that the pinned
// hnswlib-node package vendors (binding.gyp includes its headers from there; the bench's
// in-process reference still runs hnswlib-node itself). The engine's only user is
// src/engine/graph/hnsw-graph.ts, through src/engine/graph/hnsw-binding.ts.
//
// Why our own binding rather than hnswlib-node's class:
//   - vectors cross as Float32Array views (hnswlib-node takes number[], which the graph
//     had to fill element by element for every query and every insert);
//   - a filtered walk tests a Bitmap's words natively (hnswlib-node calls a JavaScript
//     function for every candidate, and a function that throws aborts the process);
//   - a batch of inserts can run on several threads (hnswlib's addPoint is safe against
//     concurrent addPoint; never against a concurrent search, see the thread rule);
//   - the graph's native memory is released when the graph is dropped (close()), not when
//     the garbage collector gets to the wrapper.
// The file format is hnswlib's own (saveIndex/loadIndex of the same header), so graph
// snapshots written through hnswlib-node load here and the other way round (a test does
// both).
//
// Metrics: 'l2' (squared euclidean) and 'ip' (1 − dot) as hnswlib-node defines them, and
// 'cosine' as Conifer keeps it (RawCosineSpace below): each node holds the vector as it
// was written, then its inverse length, so that for every metric a node's first dim floats
// are the record's values bit for bit and the engine keeps no other copy of a vector once
// its node holds it (src/engine/vectors/arena.ts; rows() and vectors() read the nodes).
// hnswlib-node's cosine nodes hold unit vectors instead: its 'l2' and 'ip' graph files
// load here and the other way round, its cosine files are refused (another vector size).
//
// rows() hands the node array to the exact scan (native/graph-rows.h); nodeOf maps a label
// to its node for it, kept here because hnswlib's own map is a hash table the scan's
// module cannot read.
//
// Thread rule: an HnswIndex belongs to the JavaScript thread that created it, and every
// method but saveInBackground is synchronous. addPoints and searchMany may share their
// work with extra native threads, but every one of them is done before they return, so no
// search ever runs beside an insert (hnswlib's search takes no locks; searches beside each
// other are safe: they only read, and take their visited lists from a locked pool).
// load(path, true) reads the file on a native thread that touches nothing but its own
// result; every method joins it first.
// saveInBackground(path) writes the graph on a libuv pool thread; that thread only READS
// the graph, so searches (and capacity/count, which read) go on beside it, while every
// method that changes the graph or frees it waits until the write has ended (WaitForSave).
// Nothing here keeps a pointer into a JavaScript buffer after a call returns.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

#include "arg-checks.h"
#include "graph-rows.h"
#include "helper-pool.h"
#include "huge-pages.h"

// hnswlib allocates its node arrays with malloc and grows them with realloc; the macros
// route exactly those calls through huge-pages.h, which (inside ReadGraph's AdviseScope)
// advises large blocks for huge pages before they are first touched. Every header hnswlib
// includes is included here first, so the macros reach hnswlib's own code and no
// standard header's declarations.
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <deque>
#include <fstream>
#include <iostream>
#include <list>
#include <queue>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#include <x86intrin.h>
#endif
#define malloc(size) conifer_memory::AllocateAdvised(size)
#define realloc(block, size) conifer_memory::ReallocateAdvised(block, size)
#include "hnswlib/hnswlib.h"
#undef malloc
#undef realloc

namespace {

using arg_checks::fail;
using arg_checks::isNullish;
using arg_checks::number;
using arg_checks::typedArray;

// The cosine space: a node's data is dim floats as written, then 1/‖v‖ as a float (0 for
// a zero vector, +Infinity when ‖v‖ is too small for float32 to hold its inverse).
// Distance 1 − (a·b)·(1/‖a‖)·(1/‖b‖), with a·b from the same SIMD functions hnswlib's 'ip'
// space picks for the dimension, so a walk costs what it did over unit vectors (one more
// multiply). Where float32 cannot hold that product (values so large the dot overflows,
// or so small their inverse lengths do) it is computed in float64 from the values instead:
// a walk then still orders such vectors as cosine does.
class RawCosineSpace : public hnswlib::SpaceInterface<float> {
 public:
  explicit RawCosineSpace(size_t dim) {
    param_.dim = dim;
    // hnswlib's 'ip' space choice for this CPU and dimension, each dot product a direct
    // (inlined) call: one indirect call per distance, as for 'ip', not two.
#if defined(USE_AVX)
    if (AVXCapable()) {
      Choose<hnswlib::InnerProductSIMD16ExtAVX, hnswlib::InnerProductSIMD4ExtAVX>(dim);
      return;
    }
#endif
#if defined(USE_SSE)
    Choose<hnswlib::InnerProductSIMD16ExtSSE, hnswlib::InnerProductSIMD4ExtSSE>(dim);
#else
    distance_ = DistanceWith<hnswlib::InnerProduct>;
#endif
  }
  size_t get_data_size() override { return (param_.dim + 1) * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return distance_; }
  void* get_dist_func_param() override { return &param_; }

  // Writes `v` (dim floats) and its inverse length into out[0..dim].
  static void Prepare(const float* v, size_t dim, float* out) {
    double sum = 0;
    for (size_t i = 0; i < dim; i++) sum += double(v[i]) * double(v[i]);
    memcpy(out, v, dim * sizeof(float));
    out[dim] = sum > 0 ? float(1 / std::sqrt(sum)) : 0.0f;
  }

 private:
  using Dot = float (*)(const void*, const void*, const void*);
  struct Param {
    size_t dim;  // hnswlib's dot products read their length through a pointer to it
  };

  template <Dot k16, Dot k4>
  void Choose(size_t dim) {
    if (dim % 16 == 0) distance_ = DistanceWith<k16>;
    else if (dim % 4 == 0) distance_ = DistanceWith<k4>;
    else if (dim > 16) distance_ = DistanceWith<Residual<k16, 16>>;
    else if (dim > 4) distance_ = DistanceWith<Residual<k4, 4>>;
    else distance_ = DistanceWith<hnswlib::InnerProduct>;
  }

  // The SIMD dot over the largest multiple of kStep, the rest one by one (hnswlib's residuals).
  template <Dot kSimd, size_t kStep>
  static float Residual(const void* a, const void* b, const void* n) {
    const size_t dim = *static_cast<const size_t*>(n);
    size_t whole = dim / kStep * kStep, rest = dim - whole;
    return kSimd(a, b, &whole) + hnswlib::InnerProduct(static_cast<const float*>(a) + whole, static_cast<const float*>(b) + whole, &rest);
  }

  template <Dot kDot>
  static float DistanceWith(const void* a, const void* b, const void* p) {
    const size_t dim = static_cast<const Param*>(p)->dim;
    const float* x = static_cast<const float*>(a);
    const float* y = static_cast<const float*>(b);
    const float ix = x[dim], iy = y[dim];
    if (ix == 0 || iy == 0) return 1.0f;  // a zero vector, as 'ip' over it
    const float scale = ix * iy;
    if (scale < 1e30f) {
      const float d = 1.0f - kDot(a, b, &dim) * scale;
      if (std::isfinite(d)) return d;
    }
    double xy = 0, xx = 0, yy = 0;
    for (size_t i = 0; i < dim; i++) {
      xy += double(x[i]) * double(y[i]);
      xx += double(x[i]) * double(x[i]);
      yy += double(y[i]) * double(y[i]);
    }
    return float(1 - xy / (std::sqrt(xx) * std::sqrt(yy)));
  }

  Param param_;
  hnswlib::DISTFUNC<float> distance_ = nullptr;
};

// The node of each label (label → internal id; kNoNode when none), for rows().
std::vector<uint32_t> NodesOf(const hnswlib::HierarchicalNSW<float>& g) {
  std::vector<uint32_t> nodeOf;
  const size_t count = g.cur_element_count;
  for (size_t i = 0; i < count; i++) {
    const size_t label = g.getExternalLabel(static_cast<hnswlib::tableint>(i));
    if (label > 0xfffffffeu) throw std::runtime_error("the graph file holds a label past 2^32 - 2");
    if (label >= nodeOf.size()) nodeOf.resize(std::max(label + 1, nodeOf.size() * 2), conifer_graph::kNoNode);
    nodeOf[label] = static_cast<uint32_t>(i);
  }
  return nodeOf;
}

struct HnswIndex {
  uint32_t dim = 0;
  bool cosine = false;
  // nodeOf[label]: the label's node (NodesOf); kept in step by every call that adds nodes.
  std::vector<uint32_t> nodeOf;
  std::unique_ptr<hnswlib::SpaceInterface<float>> space;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> index;
  // The ef last given to hnswlib (setEf is a member write; most queries keep it).
  size_t ef = 0;
  // A background load (load(path, true)) in progress: its thread writes `loaded` or
  // `loadError` and nothing else; the owner thread reads them only after joining it
  // (Settle), and every method settles first, so the graph is never used half-read.
  std::thread loading;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> loaded;
  std::vector<uint32_t> loadedNodeOf;
  std::string loadError;
  // A background save (saveInBackground) in progress: set on the owner thread when it is
  // queued, cleared by the pool thread when the file is written (under saveMutex).
  std::mutex saveMutex;
  std::condition_variable saveEnded;
  bool saveRunning = false;

  ~HnswIndex() {
    if (loading.joinable()) loading.join();
    WaitForSave();
  }

  // Blocks until no background save reads the graph.
  void WaitForSave() {
    std::unique_lock<std::mutex> lock(saveMutex);
    saveEnded.wait(lock, [this] { return !saveRunning; });
  }
};

// The graph in `path`, read and checked (the caller verified the file's checksum first:
// hnswlib trusts what it reads beyond the checks below).
std::unique_ptr<hnswlib::HierarchicalNSW<float>> ReadGraph(hnswlib::SpaceInterface<float>* space, const std::string& path) {
  auto graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(space);
  conifer_memory::AdviseScope huge;  // the node array, filled from the file (huge-pages.h)
  try {
    graph->loadIndex(path, space);
  } catch (...) {
    // loadIndex sets the node count from the header before it finds the file damaged;
    // the destructor would then free that many per-node lists that were never read
    // (hnswlib-node crashes right there). Zero it: the lists read so far leak instead.
    graph->cur_element_count = 0;
    throw;
  }
  if (graph->label_offset_ - graph->offsetData_ != space->get_data_size())
    throw std::runtime_error("the graph file holds vectors of another dimension (or unit vectors: a cosine graph hnswlib-node wrote)");
  return graph;
}

// Waits for a background load; its graph becomes the index, or its error is thrown (as a
// JS Error, returning false) when `report` is set and dropped otherwise.
bool Settle(napi_env env, HnswIndex* h, bool report) {
  if (!h->loading.joinable()) return true;
  h->loading.join();
  h->ef = 0;
  if (h->loadError.empty()) {
    h->index = std::move(h->loaded);
    h->nodeOf = std::move(h->loadedNodeOf);
    return true;
  }
  std::string error;
  error.swap(h->loadError);
  if (!report) return true;
  napi_throw_error(env, nullptr, error.c_str());
  return false;
}

// Writes the graph to `path` in hnswlib's format and checks the file is whole. hnswlib's
// saveIndex checks no stream state: a directory that does not exist, or a disk that
// fills, would leave a short file and no error. So the size is checked against what
// saveIndex writes (the header fields, the node array, then per node a length and its
// upper-layer links). Only regular files have a size to check (a test writes to a FIFO).
void WriteGraph(hnswlib::HierarchicalNSW<float>* g, const std::string& path) {
  g->saveIndex(path);
  size_t expected = sizeof g->offsetLevel0_ + sizeof g->max_elements_ + sizeof g->cur_element_count +
                    sizeof g->size_data_per_element_ + sizeof g->label_offset_ + sizeof g->offsetData_ +
                    sizeof g->maxlevel_ + sizeof g->enterpoint_node_ + sizeof g->maxM_ + sizeof g->maxM0_ + sizeof g->M_ +
                    sizeof g->mult_ + sizeof g->ef_construction_;
  const size_t count = g->cur_element_count;
  expected += count * g->size_data_per_element_;
  for (size_t i = 0; i < count; i++) {
    expected += sizeof(unsigned int);
    if (g->element_levels_[i] > 0) expected += g->size_links_per_element_ * g->element_levels_[i];
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0) throw std::runtime_error("the graph file could not be written: " + path);
  if (S_ISREG(st.st_mode) && static_cast<size_t>(st.st_size) != expected)
    throw std::runtime_error("the graph file was written short (" + std::to_string(st.st_size) + " of " +
                             std::to_string(expected) + " bytes; is the disk full?)");
}

// The node of `label`, or kNoNode when it has none (nodeOf, checked against the node count).
uint32_t NodeOfLabel(const HnswIndex* h, uint32_t label) {
  const uint32_t node = label < h->nodeOf.size() ? h->nodeOf[label] : conifer_graph::kNoNode;
  return node < h->index->cur_element_count ? node : conifer_graph::kNoNode;
}

// A vector as the graph's space takes it (a point or a query): `v` itself, or under cosine
// `v` and its inverse length copied into `scratch` (dim + 1 floats).
const float* AsNode(const HnswIndex* h, const float* v, std::vector<float>& scratch) {
  if (!h->cosine) return v;
  scratch.resize(h->dim + 1);
  RawCosineSpace::Prepare(v, h->dim, scratch.data());
  return scratch.data();
}

// A filter that admits the labels set in a Bitmap's words (src/engine/metadata/bitmap.ts:
// bit i of word i >> 5). It cannot fail: a label past the bitmap is simply not admitted.
class BitmapFilter : public hnswlib::BaseFilterFunctor {
 public:
  BitmapFilter(const uint32_t* words, size_t bits) : words_(words), bits_(bits) {}
  bool operator()(hnswlib::labeltype label) override {
    return label < bits_ && ((words_[label >> 5] >> (label & 31)) & 1u) != 0;
  }

 private:
  const uint32_t* words_;
  size_t bits_;
};

napi_value Undefined(napi_env env) {
  napi_value u;
  napi_get_undefined(env, &u);
  return u;
}

napi_value Number(napi_env env, double value) {
  napi_value n;
  napi_create_double(env, value, &n);
  return n;
}

// What a method does with the graph: kReads may run beside a background save, kChanges
// (the default) waits for it to end first.
enum Access { kChanges, kReads };

// The wrapped index of `this` and up to `max` arguments, after any background load has
// ended (and, unless `access` is kReads, any background save); null (with a JS error
// thrown) when `this` is not an HnswIndex, or when `needIndex` and the index was closed,
// never created, or failed to load.
HnswIndex* Self(napi_env env, napi_callback_info info, size_t max, napi_value* argv, size_t* argc, bool needIndex = true,
                Access access = kChanges) {
  napi_value self;
  *argc = max;
  if (napi_get_cb_info(env, info, argc, argv, &self, nullptr) != napi_ok) return nullptr;
  void* data = nullptr;
  if (napi_unwrap(env, self, &data) != napi_ok || data == nullptr) {
    fail(env, "not an HnswIndex");
    return nullptr;
  }
  auto* h = static_cast<HnswIndex*>(data);
  if (access == kChanges) h->WaitForSave();
  if (!Settle(env, h, needIndex)) return nullptr;
  if (needIndex && !h->index) {
    napi_throw_error(env, nullptr, "the index is closed or was never initialised");
    return nullptr;
  }
  return h;
}

bool Count(napi_env env, napi_value v, double max, size_t* out) {
  double d;
  if (!number(env, v, &d) || d < 0 || d > max || std::floor(d) != d) return false;
  *out = static_cast<size_t>(d);
  return true;
}

bool Text(napi_env env, napi_value v, std::string* out) {
  size_t length;
  if (napi_get_value_string_utf8(env, v, nullptr, 0, &length) != napi_ok) return false;
  out->resize(length);
  return napi_get_value_string_utf8(env, v, out->data(), length + 1, &length) == napi_ok;
}

// Runs `call`; a C++ exception becomes a JavaScript Error with its message.
template <typename F>
napi_value Guard(napi_env env, F call) {
  try {
    return call();
  } catch (const std::exception& err) {
    napi_throw_error(env, nullptr, err.what());
  } catch (...) {
    napi_throw_error(env, nullptr, "unknown failure");
  }
  return nullptr;
}

// A method of one whole-number argument (a label or a capacity): checks it, then runs
// `apply(index, n)` under Guard.
template <typename F>
napi_value WithWholeNumber(napi_env env, napi_callback_info info, const char* usage, F apply) {
  napi_value argv[1];
  size_t argc;
  HnswIndex* h = Self(env, info, 1, argv, &argc);
  if (!h) return nullptr;
  size_t n;
  if (argc != 1 || !Count(env, argv[0], 4294967295.0, &n)) return fail(env, usage);
  return Guard(env, [&] {
    apply(h, n);
    return Undefined(env);
  });
}

// new HnswIndex(space: 'l2' | 'ip' | 'cosine', dim)
napi_value New(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  napi_value self;
  size_t argc = 2;
  napi_get_cb_info(env, info, &argc, argv, &self, nullptr);
  std::string name;
  size_t dim;
  if (argc != 2 || !Text(env, argv[0], &name) || (name != "l2" && name != "ip" && name != "cosine"))
    return fail(env, "HnswIndex(space, dim): space is 'l2', 'ip' or 'cosine'");
  if (!Count(env, argv[1], 1 << 20, &dim) || dim == 0) return fail(env, "HnswIndex(space, dim): dim is a whole number from 1");
  auto h = std::make_unique<HnswIndex>();
  h->dim = static_cast<uint32_t>(dim);
  h->cosine = name == "cosine";
  if (name == "l2")
    h->space = std::make_unique<hnswlib::L2Space>(dim);
  else if (name == "ip")
    h->space = std::make_unique<hnswlib::InnerProductSpace>(dim);
  else
    h->space = std::make_unique<RawCosineSpace>(dim);
  HnswIndex* raw = h.release();
  napi_status status = napi_wrap(
      env, self, raw, [](napi_env, void* data, void*) { delete static_cast<HnswIndex*>(data); }, nullptr, nullptr);
  if (status != napi_ok) {
    delete raw;
    napi_throw_error(env, nullptr, "could not wrap the index");
    return nullptr;
  }
  return self;
}

// init(capacity, M, efConstruction, seed): an empty graph.
napi_value Init(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  size_t argc;
  HnswIndex* h = Self(env, info, 4, argv, &argc, false);
  if (!h) return nullptr;
  size_t capacity, m, efc, seed;
  if (argc != 4 || !Count(env, argv[0], 4294967295.0, &capacity) || !Count(env, argv[1], 65535, &m) || m < 2 ||
      !Count(env, argv[2], 1e7, &efc) || !Count(env, argv[3], 4294967295.0, &seed))
    return fail(env, "init(capacity, M, efConstruction, seed): whole numbers, M from 2");
  return Guard(env, [&] {
    h->index = std::make_unique<hnswlib::HierarchicalNSW<float>>(h->space.get(), capacity, m, efc, seed);
    h->nodeOf.clear();
    h->ef = 0;
    return Undefined(env);
  });
}

// load(path, background = false): the graph saved at `path`. In the background, a native
// thread reads it while this thread goes on (start-up loads the records meanwhile); the
// next call of any method waits for it, and wait() reports how it ended.
napi_value Load(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc;
  HnswIndex* h = Self(env, info, 2, argv, &argc, false);
  if (!h) return nullptr;
  std::string path;
  bool background = false;
  if (argc < 1 || argc > 2 || !Text(env, argv[0], &path) ||
      (argc == 2 && !isNullish(env, argv[1]) && napi_get_value_bool(env, argv[1], &background) != napi_ok))
    return fail(env, "load(path: string, background?: boolean)");
  h->index.reset();
  h->nodeOf.clear();
  h->ef = 0;
  if (!background) {
    return Guard(env, [&] {
      auto graph = ReadGraph(h->space.get(), path);
      h->nodeOf = NodesOf(*graph);
      h->index = std::move(graph);
      return Undefined(env);
    });
  }
  return Guard(env, [&] {
    h->loading = std::thread([h, path] {
      try {
        auto graph = ReadGraph(h->space.get(), path);
        h->loadedNodeOf = NodesOf(*graph);
        h->loaded = std::move(graph);
      } catch (const std::exception& err) {
        h->loadError = err.what();
      } catch (...) {
        h->loadError = "unknown failure";
      }
      if (!h->loaded && h->loadError.empty()) h->loadError = "unknown failure";
    });
    return Undefined(env);
  });
}

// wait(): ends a background load; throws its error if it failed (the index is then empty).
napi_value Wait(napi_env env, napi_callback_info info) {
  size_t argc;
  HnswIndex* h = Self(env, info, 0, nullptr, &argc);
  return h ? Undefined(env) : nullptr;
}

// save(path): writes the graph in hnswlib's format (the caller makes it durable); throws
// when the file could not be written whole.
napi_value Save(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  size_t argc;
  HnswIndex* h = Self(env, info, 1, argv, &argc);
  if (!h) return nullptr;
  std::string path;
  if (argc != 1 || !Text(env, argv[0], &path)) return fail(env, "save(path): path is a string");
  return Guard(env, [&] {
    WriteGraph(h->index.get(), path);
    return Undefined(env);
  });
}

// A background save: what the pool thread needs, and the JS object kept alive meanwhile.
struct SaveWork {
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  napi_ref self = nullptr;
  HnswIndex* h = nullptr;
  std::string path;
  std::string error;
};

// Pool thread: writes the file (reading the graph only), then lets waiting writers on.
void SaveExecute(napi_env, void* data) {
  auto* w = static_cast<SaveWork*>(data);
  try {
    WriteGraph(w->h->index.get(), w->path);
  } catch (const std::exception& err) {
    w->error = err.what();
  } catch (...) {
    w->error = "unknown failure";
  }
  {
    std::lock_guard<std::mutex> lock(w->h->saveMutex);
    w->h->saveRunning = false;
  }
  w->h->saveEnded.notify_all();
}

// Owner thread: settles the promise and frees the work.
void SaveComplete(napi_env env, napi_status status, void* data) {
  auto* w = static_cast<SaveWork*>(data);
  if (status != napi_ok && w->error.empty()) {
    // Cancelled before it ran: SaveExecute never cleared the flag.
    std::lock_guard<std::mutex> lock(w->h->saveMutex);
    w->h->saveRunning = false;
    w->error = "the save was cancelled";
  }
  w->h->saveEnded.notify_all();
  if (w->error.empty()) {
    napi_resolve_deferred(env, w->deferred, Undefined(env));
  } else {
    napi_value message, error;
    napi_create_string_utf8(env, w->error.c_str(), NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, nullptr, message, &error);
    napi_reject_deferred(env, w->deferred, error);
  }
  napi_delete_reference(env, w->self);
  napi_delete_async_work(env, w->work);
  delete w;
}

// saveInBackground(path): a Promise; writes the graph in hnswlib's format on a libuv pool
// thread (the caller makes it durable). Until it settles, searches run beside it and
// every method that changes the graph waits for the write to end (see the thread rule).
napi_value SaveInBackground(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  napi_value self;
  size_t argc;
  HnswIndex* h = Self(env, info, 1, argv, &argc);
  if (!h) return nullptr;
  std::string path;
  if (argc != 1 || !Text(env, argv[0], &path)) return fail(env, "saveInBackground(path): path is a string");
  size_t none = 0;
  napi_get_cb_info(env, info, &none, nullptr, &self, nullptr);
  auto w = std::make_unique<SaveWork>();
  w->h = h;
  w->path = std::move(path);
  napi_value promise, name;
  napi_create_string_utf8(env, "conifer:hnsw-save", NAPI_AUTO_LENGTH, &name);
  if (napi_create_promise(env, &w->deferred, &promise) != napi_ok || napi_create_reference(env, self, 1, &w->self) != napi_ok ||
      napi_create_async_work(env, nullptr, name, SaveExecute, SaveComplete, w.get(), &w->work) != napi_ok) {
    if (w->self) napi_delete_reference(env, w->self);
    napi_throw_error(env, nullptr, "could not start the save");
    return nullptr;
  }
  h->saveRunning = true;  // no other thread reads it before the work is queued
  if (napi_queue_async_work(env, w->work) != napi_ok) {
    h->saveRunning = false;
    napi_delete_reference(env, w->self);
    napi_delete_async_work(env, w->work);
    napi_throw_error(env, nullptr, "could not queue the save");
    return nullptr;
  }
  w.release();
  return promise;
}

// resize(capacity): room for `capacity` nodes (copies the graph).
napi_value Resize(napi_env env, napi_callback_info info) {
  return WithWholeNumber(env, info, "resize(capacity): a whole number", [](HnswIndex* h, size_t capacity) { h->index->resizeIndex(capacity); });
}

// capacity(): nodes the graph has room for; count(): nodes it holds (deleted ones included).
napi_value Capacity(napi_env env, napi_callback_info info) {
  size_t argc;
  HnswIndex* h = Self(env, info, 0, nullptr, &argc, true, kReads);
  return h ? Number(env, static_cast<double>(h->index->getMaxElements())) : nullptr;
}

napi_value NodeCount(napi_env env, napi_callback_info info) {
  size_t argc;
  HnswIndex* h = Self(env, info, 0, nullptr, &argc, true, kReads);
  return h ? Number(env, static_cast<double>(h->index->getCurrentElementCount())) : nullptr;
}

// addPoints(vectors: Float32Array (n × dim), labels: Uint32Array (n), threads): inserts each
// vector under its label. A label whose node is marked deleted gets the new vector in place
// and is unmarked (hnswlib's update); a new label takes a fresh node, and a batch whose new
// labels do not fit in capacity() fails before inserting anything. With threads > 1 the points are shared out over that many
// threads (this one included); the order of insertion, and so the graph, then depends on
// scheduling. The first point of an empty graph is always inserted alone (hnswlib's
// concurrent insert needs an entry point).
napi_value AddPoints(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  size_t argc;
  HnswIndex* h = Self(env, info, 3, argv, &argc);
  if (!h) return nullptr;
  void* vdata;
  void* ldata;
  size_t vlen, n, threads;
  if (argc != 3 || !typedArray(env, argv[0], napi_float32_array, &vdata, &vlen) ||
      !typedArray(env, argv[1], napi_uint32_array, &ldata, &n) || !Count(env, argv[2], 64, &threads) || threads < 1)
    return fail(env, "addPoints(vectors: Float32Array, labels: Uint32Array, threads: 1..64)");
  if (vlen != n * h->dim) return fail(env, "addPoints: vectors must hold labels.length × dim floats");
  const float* vectors = static_cast<const float*>(vdata);
  const uint32_t* labels = static_cast<const uint32_t*>(ldata);
  return Guard(env, [&] {
    // Checked before any insert, so a batch that does not fit changes nothing. (No other
    // thread touches the graph yet: reading label_lookup_ unlocked is safe here.)
    size_t fresh = 0;
    for (size_t i = 0; i < n; i++) fresh += h->index->label_lookup_.count(labels[i]) == 0;
    if (h->index->getCurrentElementCount() + fresh > h->index->getMaxElements())
      throw std::runtime_error("addPoints: not enough capacity (resize first)");
    hnswlib::HierarchicalNSW<float>* index = h->index.get();
    const uint32_t dim = h->dim;
    std::atomic<size_t> next{0};
    std::mutex failed;
    std::string error;
    // Inserts point i; the first failure is kept and stops every thread.
    auto insert = [&](size_t i, std::vector<float>& scratch) {
      try {
        index->addPoint(AsNode(h, vectors + i * dim, scratch), labels[i]);
      } catch (const std::exception& err) {
        std::lock_guard<std::mutex> lock(failed);
        if (error.empty()) error = err.what();
        next = n;
      }
    };
    // Takes the next point not yet taken until none is left (run by every thread).
    auto work = [&] {
      std::vector<float> scratch;
      for (size_t i = next++; i < n; i = next++) insert(i, scratch);
    };
    if (n > 0 && index->getCurrentElementCount() == 0) {
      std::vector<float> scratch;
      insert(0, scratch);
      if (next == 0) next = 1;
    }
    const size_t remaining = n - std::min(n, next.load());
    const size_t extra = remaining > 1 ? std::min(threads, remaining) - 1 : 0;
    std::vector<std::thread> helpers;
    helpers.reserve(extra);
    for (size_t t = 0; t < extra; t++) helpers.emplace_back(work);
    work();
    for (auto& t : helpers) t.join();
    // Every label that has a node now (all of them, unless an insert failed) in nodeOf.
    for (size_t i = 0; i < n; i++) {
      const auto found = index->label_lookup_.find(labels[i]);
      if (found == index->label_lookup_.end()) continue;
      if (labels[i] >= h->nodeOf.size()) h->nodeOf.resize(std::max<size_t>(labels[i] + 1, h->nodeOf.size() * 2), conifer_graph::kNoNode);
      h->nodeOf[labels[i]] = found->second;
    }
    if (!error.empty()) throw std::runtime_error(error);
    return Undefined(env);
  });
}

// markDelete(label): hides the label's node from every search (it stays in the graph).
napi_value MarkDelete(napi_env env, napi_callback_info info) {
  return WithWholeNumber(env, info, "markDelete(label): a whole number", [](HnswIndex* h, size_t label) { h->index->markDelete(label); });
}

// search(query: Float32Array (dim), k, ef, allowed: Uint32Array | null, allowedBits):
// up to k labels near the query, nearest first, as a Uint32Array. The walk's ef is
// max(ef, k). With `allowed` (a Bitmap's words, `allowedBits` bits long) only labels set
// in it are returned; the walk still passes through the others.
napi_value Search(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  size_t argc;
  HnswIndex* h = Self(env, info, 5, argv, &argc, true, kReads);
  if (!h) return nullptr;
  void* qdata;
  size_t qlen, k, ef;
  if (argc != 5 || !typedArray(env, argv[0], napi_float32_array, &qdata, &qlen) || !Count(env, argv[1], 1e7, &k) ||
      !Count(env, argv[2], 1e7, &ef))
    return fail(env, "search(query: Float32Array, k, ef, allowed: Uint32Array | null, allowedBits)");
  if (qlen != h->dim) return fail(env, "search: the query's length must be the graph's dimension");
  const uint32_t* words = nullptr;
  size_t bits = 0;
  if (!isNullish(env, argv[3])) {
    void* wdata;
    size_t wlen;
    if (!typedArray(env, argv[3], napi_uint32_array, &wdata, &wlen) || !Count(env, argv[4], 4294967295.0, &bits) ||
        bits > wlen * 32)
      return fail(env, "search: allowed is a Uint32Array of at least allowedBits bits");
    words = static_cast<const uint32_t*>(wdata);
  }
  return Guard(env, [&]() -> napi_value {
    std::vector<float> scratch;
    const float* q = AsNode(h, static_cast<const float*>(qdata), scratch);
    const size_t wanted = std::max(ef, k);
    if (wanted != h->ef) {
      h->index->setEf(wanted);
      h->ef = wanted;
    }
    BitmapFilter filter(words, bits);
    auto found = h->index->searchKnn(q, k, words ? &filter : nullptr);
    napi_value buffer, out;
    void* odata;
    const size_t count = found.size();
    if (napi_create_arraybuffer(env, count * 4, &odata, &buffer) != napi_ok ||
        napi_create_typedarray(env, napi_uint32_array, count, buffer, 0, &out) != napi_ok)
      throw std::runtime_error("could not allocate the answer");
    uint32_t* labels = static_cast<uint32_t*>(odata);
    // The queue pops the farthest first.
    for (size_t i = count; i-- > 0;) {
      labels[i] = static_cast<uint32_t>(found.top().second);
      found.pop();
    }
    return out;
  });
}

// searchMany(queries: Float32Array (count × dim), count, k, ef, allowed: Array of
// Uint32Array | null (one per query), allowedBits: Uint32Array (one per query), threads):
// search() for each query, the queries shared over up to `threads` threads (this one and
// helpers of the shared HelperPool, all done before it returns, as addPoints's threads
// are), as an Array of Uint32Arrays in query order. Searches may run side by side (see the
// thread rule above); no call that changes the graph can run meanwhile, since the owner
// thread is inside this one. ef is hnswlib's member: every query of the call walks with
// max(ef, k), set once before the threads start.
napi_value SearchMany(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  size_t argc;
  HnswIndex* h = Self(env, info, 7, argv, &argc, true, kReads);
  if (!h) return nullptr;
  const char* usage = "searchMany(queries: Float32Array, count, k, ef, allowed: (Uint32Array | null)[], allowedBits: Uint32Array, threads)";
  void* qdata;
  void* bdata;
  size_t qlen, count, k, ef, blen, threads;
  bool isArray = false;
  if (argc != 7 || !typedArray(env, argv[0], napi_float32_array, &qdata, &qlen) || !Count(env, argv[1], 1e6, &count) ||
      !Count(env, argv[2], 1e7, &k) || !Count(env, argv[3], 1e7, &ef) || napi_is_array(env, argv[4], &isArray) != napi_ok ||
      !isArray || !typedArray(env, argv[5], napi_uint32_array, &bdata, &blen) || !Count(env, argv[6], 1024, &threads) ||
      threads == 0)
    return fail(env, usage);
  uint32_t allowedCount = 0;
  napi_get_array_length(env, argv[4], &allowedCount);
  if (qlen != count * h->dim || allowedCount != count || blen != count)
    return fail(env, "searchMany: count queries of the graph's dimension, and one allowed and allowedBits entry each");
  const uint32_t* bits = static_cast<const uint32_t*>(bdata);
  // Read on this thread: the helpers touch no JavaScript value, only these pointers into
  // buffers that stay alive (and in place) for the whole call.
  std::vector<const uint32_t*> words(count, nullptr);
  for (uint32_t i = 0; i < count; i++) {
    napi_value entry;
    if (napi_get_element(env, argv[4], i, &entry) != napi_ok) return fail(env, usage);
    if (isNullish(env, entry)) continue;
    void* wdata;
    size_t wlen;
    if (!typedArray(env, entry, napi_uint32_array, &wdata, &wlen) || bits[i] > wlen * 32)
      return fail(env, "searchMany: each allowed entry is null or a Uint32Array of at least its allowedBits bits");
    words[i] = static_cast<const uint32_t*>(wdata);
  }
  return Guard(env, [&]() -> napi_value {
    const float* queries = static_cast<const float*>(qdata);
    const size_t wanted = std::max(ef, k);
    if (wanted != h->ef) {
      h->index->setEf(wanted);
      h->ef = wanted;
    }
    std::vector<std::vector<uint32_t>> found(count);
    std::atomic<size_t> next{0};
    std::mutex failed;
    std::string error;
    // Takes the next query not yet taken until none is left (run by every thread).
    auto work = [&] {
      std::vector<float> scratch;
      for (size_t i = next++; i < count; i = next++) {
        try {
          const float* q = AsNode(h, queries + i * h->dim, scratch);
          BitmapFilter filter(words[i], bits[i]);
          auto heap = h->index->searchKnn(q, k, words[i] ? &filter : nullptr);
          auto& labels = found[i];
          labels.resize(heap.size());
          // The queue pops the farthest first.
          for (size_t j = labels.size(); j-- > 0;) {
            labels[j] = static_cast<uint32_t>(heap.top().second);
            heap.pop();
          }
        } catch (const std::exception& err) {
          std::lock_guard<std::mutex> lock(failed);
          if (error.empty()) error = err.what();
          next = count;
        }
      }
    };
    const size_t extra = count > 1 ? std::min(threads, count) - 1 : 0;
    conifer_native::HelperPool::Shared().Run(extra, work);
    if (!error.empty()) throw std::runtime_error(error);
    napi_value out;
    if (napi_create_array_with_length(env, count, &out) != napi_ok) throw std::runtime_error("could not allocate the answer");
    for (size_t i = 0; i < count; i++) {
      napi_value buffer, labels;
      void* odata;
      const size_t n = found[i].size();
      if (napi_create_arraybuffer(env, n * 4, &odata, &buffer) != napi_ok ||
          napi_create_typedarray(env, napi_uint32_array, n, buffer, 0, &labels) != napi_ok ||
          napi_set_element(env, out, static_cast<uint32_t>(i), labels) != napi_ok)
        throw std::runtime_error("could not allocate the answer");
      if (n > 0) memcpy(odata, found[i].data(), n * 4);
    }
    return out;
  });
}

// close(): frees the graph now (after any background load ends); any later call but
// init/load throws.
napi_value Close(napi_env env, napi_callback_info info) {
  size_t argc;
  HnswIndex* h = Self(env, info, 0, nullptr, &argc, false);
  if (!h) return nullptr;
  h->index.reset();
  h->nodeOf.clear();
  h->nodeOf.shrink_to_fit();
  return Undefined(env);
}

// rows(): an External holding a GraphRows (native/graph-rows.h) over the nodes as they are
// now, for the exact scan; valid only until the next call that changes the graph.
napi_value Rows(napi_env env, napi_callback_info info) {
  size_t argc;
  HnswIndex* h = Self(env, info, 0, nullptr, &argc, true, kReads);
  if (!h) return nullptr;
  return Guard(env, [&]() -> napi_value {
    auto rows = std::make_unique<conifer_graph::GraphRows>();
    const auto* g = h->index.get();
    rows->base = g->data_level0_memory_ + g->offsetData_;
    rows->stride = g->size_data_per_element_;
    rows->nodes = g->cur_element_count;
    rows->dim = h->dim;
    rows->nodeOf = h->nodeOf.data();
    rows->nodeOfLength = h->nodeOf.size();
    napi_value out;
    if (napi_create_external(env, rows.get(), [](napi_env, void* data, void*) { delete static_cast<conifer_graph::GraphRows*>(data); },
                             nullptr, &out) != napi_ok)
      throw std::runtime_error("could not allocate the rows");
    rows.release();
    return out;
  });
}

// vectors(labels: Uint32Array, out: Float32Array): copies each label's node vector (dim
// floats: the values as written, for every metric) into out, one after another; throws
// when a label has no node.
napi_value Vectors(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc;
  HnswIndex* h = Self(env, info, 2, argv, &argc, true, kReads);
  if (!h) return nullptr;
  void* ldata;
  void* odata;
  size_t n, outLength;
  if (argc != 2 || !typedArray(env, argv[0], napi_uint32_array, &ldata, &n) || !typedArray(env, argv[1], napi_float32_array, &odata, &outLength) ||
      outLength < n * h->dim)
    return fail(env, "vectors(labels: Uint32Array, out: Float32Array of labels.length × dim)");
  const uint32_t* labels = static_cast<const uint32_t*>(ldata);
  float* out = static_cast<float*>(odata);
  return Guard(env, [&]() -> napi_value {
    for (size_t i = 0; i < n; i++) {
      const uint32_t node = NodeOfLabel(h, labels[i]);
      if (node == conifer_graph::kNoNode) throw std::runtime_error("vectors: label " + std::to_string(labels[i]) + " has no node");
      memcpy(out + i * h->dim, h->index->getDataByInternalId(node), h->dim * sizeof(float));
    }
    return Undefined(env);
  });
}

// holding(labels: Uint32Array, vectors: Float32Array (labels.length × dim)): a Uint8Array,
// 1 where the label has a node whose vector is bit for bit the one given, 0 elsewhere (no
// node, or another vector): what a restore checks before trusting a snapshot's node as a
// vector's only copy.
napi_value Holding(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc;
  HnswIndex* h = Self(env, info, 2, argv, &argc, true, kReads);
  if (!h) return nullptr;
  void* ldata;
  void* vdata;
  size_t n, vlen;
  if (argc != 2 || !typedArray(env, argv[0], napi_uint32_array, &ldata, &n) || !typedArray(env, argv[1], napi_float32_array, &vdata, &vlen) ||
      vlen != n * h->dim)
    return fail(env, "holding(labels: Uint32Array, vectors: Float32Array of labels.length × dim)");
  const uint32_t* labels = static_cast<const uint32_t*>(ldata);
  const float* vectors = static_cast<const float*>(vdata);
  return Guard(env, [&]() -> napi_value {
    napi_value buffer, out;
    void* odata;
    if (napi_create_arraybuffer(env, n, &odata, &buffer) != napi_ok || napi_create_typedarray(env, napi_uint8_array, n, buffer, 0, &out) != napi_ok)
      throw std::runtime_error("could not allocate the answer");
    uint8_t* same = static_cast<uint8_t*>(odata);
    for (size_t i = 0; i < n; i++) {
      const uint32_t node = NodeOfLabel(h, labels[i]);
      same[i] = node != conifer_graph::kNoNode && memcmp(h->index->getDataByInternalId(node), vectors + i * h->dim, h->dim * sizeof(float)) == 0;
    }
    return out;
  });
}

}  // namespace

namespace {

napi_value Register(napi_env env, napi_value exports) {
  const napi_property_descriptor methods[] = {
      {"init", nullptr, Init, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"load", nullptr, Load, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"wait", nullptr, Wait, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"save", nullptr, Save, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"saveInBackground", nullptr, SaveInBackground, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"resize", nullptr, Resize, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"capacity", nullptr, Capacity, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"count", nullptr, NodeCount, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"addPoints", nullptr, AddPoints, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"markDelete", nullptr, MarkDelete, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"search", nullptr, Search, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"searchMany", nullptr, SearchMany, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"close", nullptr, Close, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"rows", nullptr, Rows, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"vectors", nullptr, Vectors, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"holding", nullptr, Holding, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_value cls;
  napi_define_class(env, "HnswIndex", NAPI_AUTO_LENGTH, New, nullptr, sizeof methods / sizeof methods[0], methods, &cls);
  napi_set_named_property(env, exports, "HnswIndex", cls);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Register)
