// What one copy of each vector would cost a graph walk (issue 12, "Memory"): the engine
// keeps every vector twice, once in its float32 arena (exact scans, fetch of the tail,
// rescoring) and once inside hnswlib's level-0 block of the node. Keeping only the arena
// means the block holds where the vector is instead (here an 8-byte pointer into the
// arena) and the distance function follows it: one more dependent memory access per
// distance, which hnswlib's prefetch of the next candidate's block does not cover.
//
// Builds three graphs over the same seeded clustered unit vectors, inner product (the
// cosine space over normalised vectors), in the same insertion order on one thread:
// "inline" (hnswlib's own layout), "indirect" (the block holds a pointer into the arena)
// and "computed" (the block holds nothing of the vector; the distance function works out
// the node from the block's address and reads the arena at that node, which needs the
// arena in the graph's node order: no extra load, but the vector is no longer where
// hnswlib's prefetch of the next candidate's block looks). Their distances are bit for bit
// the same, so the graphs and every answer are too (checked), and the only difference left
// is where the vectors are read from. Then searches the same queries on all three, in
// alternating rounds, and prints each round's QPS and the bytes of each layout.
//
// Not part of the addon (nothing in the engine uses it). Build and run:
//   g++ -O3 -std=c++17 -mavx2 -mfma -I node_modules/hnswlib-node/src -o /tmp/graph-indirection \
//     bench/native/graph-indirection.cc -lpthread && /tmp/graph-indirection [n] [dim] [ef]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "hnswlib/hnswlib.h"

namespace {

// The pointer layout: a node's data is the address of its vector, and so is the query's.
struct IndirectParam {
  hnswlib::DISTFUNC<float> inner;
  void* innerParam;
};

float IndirectDistance(const void* a, const void* b, const void* param) {
  const IndirectParam* p = static_cast<const IndirectParam*>(param);
  const float* va = *static_cast<const float* const*>(a);
  const float* vb = *static_cast<const float* const*>(b);
  return p->inner(va, vb, p->innerParam);
}

// The computed layout: a pointer inside the graph's level-0 memory is a node's block (its
// vector is the arena's row at that node); any other pointer is a vector itself (the query,
// or a point being inserted, which hnswlib passes as given).
struct ComputedParam {
  hnswlib::DISTFUNC<float> inner;
  void* innerParam;
  const hnswlib::HierarchicalNSW<float>* graph;  // set once the graph exists
  const float* arena;
  size_t dim;
};

const float* VectorOf(const ComputedParam* p, const void* x) {
  const char* at = static_cast<const char*>(x);
  const char* base = p->graph ? p->graph->data_level0_memory_ : nullptr;
  const size_t block = p->graph ? p->graph->size_data_per_element_ : 1;
  if (base == nullptr || at < base || at >= base + block * p->graph->max_elements_) return static_cast<const float*>(x);
  return p->arena + size_t(at - base) / block * p->dim;
}

float ComputedDistance(const void* a, const void* b, const void* param) {
  const ComputedParam* p = static_cast<const ComputedParam*>(param);
  return p->inner(VectorOf(p, a), VectorOf(p, b), p->innerParam);
}

class ComputedSpace : public hnswlib::SpaceInterface<float> {
 public:
  ComputedSpace(hnswlib::InnerProductSpace& inner, const float* arena, size_t dim)
      : param_{inner.get_dist_func(), inner.get_dist_func_param(), nullptr, arena, dim} {}
  void attach(const hnswlib::HierarchicalNSW<float>* graph) { param_.graph = graph; }
  size_t get_data_size() override { return 4; }  // hnswlib copies something; nothing reads it
  hnswlib::DISTFUNC<float> get_dist_func() override { return ComputedDistance; }
  void* get_dist_func_param() override { return &param_; }

 private:
  ComputedParam param_;
};

class IndirectSpace : public hnswlib::SpaceInterface<float> {
 public:
  explicit IndirectSpace(hnswlib::InnerProductSpace& inner) : param_{inner.get_dist_func(), inner.get_dist_func_param()} {}
  size_t get_data_size() override { return sizeof(const float*); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return IndirectDistance; }
  void* get_dist_func_param() override { return &param_; }

 private:
  IndirectParam param_;
};

// Clustered unit vectors, like bench/data.ts: 100 centres, each vector a centre plus noise.
std::vector<float> Clustered(size_t n, size_t dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> gauss(0, 1);
  std::vector<float> centres(100 * dim);
  for (float& c : centres) c = gauss(rng) * 0.8f;
  std::vector<float> out(n * dim);
  for (size_t i = 0; i < n; i++) {
    const float* c = &centres[(rng() % 100) * dim];
    double norm = 0;
    for (size_t j = 0; j < dim; j++) {
      out[i * dim + j] = c[j] + gauss(rng) * 0.3f;
      norm += double(out[i * dim + j]) * out[i * dim + j];
    }
    const float scale = float(1 / std::sqrt(norm));
    for (size_t j = 0; j < dim; j++) out[i * dim + j] *= scale;
  }
  return out;
}

double Seconds(std::chrono::steady_clock::time_point from) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
}

}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100000;
  const size_t dim = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 384;
  const size_t ef = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 100;
  const size_t queries = 1000, k = 10, rounds = 5;
  const std::vector<float> data = Clustered(n, dim, 7);
  const std::vector<float> query = Clustered(queries, dim, 8);

  hnswlib::InnerProductSpace inline_space(dim);
  IndirectSpace indirect_space(inline_space);
  auto started = std::chrono::steady_clock::now();
  hnswlib::HierarchicalNSW<float> inline_graph(&inline_space, n, 16, 200, 100);
  for (size_t i = 0; i < n; i++) inline_graph.addPoint(&data[i * dim], i);
  const double inline_build = Seconds(started);
  started = std::chrono::steady_clock::now();
  hnswlib::HierarchicalNSW<float> indirect_graph(&indirect_space, n, 16, 200, 100);
  for (size_t i = 0; i < n; i++) {
    const float* at = &data[i * dim];
    indirect_graph.addPoint(&at, i);
  }
  const double indirect_build = Seconds(started);
  // One thread inserts in label order, so node i holds label i and the arena (data) is
  // already in the graph's node order.
  ComputedSpace computed_space(inline_space, data.data(), dim);
  started = std::chrono::steady_clock::now();
  hnswlib::HierarchicalNSW<float> computed_graph(&computed_space, n, 16, 200, 100);
  computed_space.attach(&computed_graph);
  for (size_t i = 0; i < n; i++) computed_graph.addPoint(&data[i * dim], i);
  const double computed_build = Seconds(started);
  inline_graph.setEf(ef);
  indirect_graph.setEf(ef);
  computed_graph.setEf(ef);

  size_t differ = 0;
  for (size_t q = 0; q < queries; q++) {
    const float* at = &query[q * dim];
    auto a = inline_graph.searchKnn(at, k);
    auto b = indirect_graph.searchKnn(&at, k);
    auto c = computed_graph.searchKnn(at, k);
    while (!a.empty() && !b.empty() && !c.empty()) {
      differ += a.top() != b.top() || a.top() != c.top();
      a.pop();
      b.pop();
      c.pop();
    }
    differ += a.size() + b.size() + c.size();
  }
  std::printf("%zu x %zu, M 16, efConstruction 200, ef %zu, %zu queries per round\n", n, dim, ef, queries);
  std::printf("build: inline %.1f s, indirect %.1f s, computed %.1f s; answers that differ: %zu (0: the same graphs)\n", inline_build, indirect_build, computed_build, differ);
  // Per vector: the level-0 block (links, the data hnswlib keeps, the label) plus the arena's row.
  const size_t row = dim * sizeof(float);
  std::printf("bytes per vector, level-0 block + arena row: inline %zu + %zu (two copies), indirect %zu + %zu, computed %zu + %zu (one copy)\n",
              inline_graph.size_data_per_element_, row, indirect_graph.size_data_per_element_, row, computed_graph.size_data_per_element_, row);
  enum Layout { kInline, kIndirect, kComputed };
  auto qps = [&](Layout layout) {
    started = std::chrono::steady_clock::now();
    size_t sink = 0;
    for (size_t q = 0; q < queries; q++) {
      const float* at = &query[q * dim];
      sink += layout == kIndirect ? indirect_graph.searchKnn(&at, k).size()
              : layout == kComputed ? computed_graph.searchKnn(at, k).size()
                                    : inline_graph.searchKnn(at, k).size();
    }
    if (sink != queries * k) std::abort();
    return queries / Seconds(started);
  };
  for (size_t r = 0; r < rounds; r++) {
    const double a = qps(kInline);
    const double b = qps(kIndirect);
    const double c = qps(kComputed);
    std::printf("round %zu: inline %.0f QPS, indirect %.0f (%.3f of inline), computed %.0f (%.3f)\n", r + 1, a, b, b / a, c, c / a);
  }
}
