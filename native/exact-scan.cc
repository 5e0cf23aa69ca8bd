// Native pre-pass of the engine's exact scan (src/engine/vectors/exact-scan.ts).
//
// candidates(query, metric, chunks, chunkShift, norms, labels, count, k, out, codes,
// params, held, rows) scores every label in float32 SIMD (or from its int8 codes, below) and writes
// to `out` the labels that can still be among the k best, returning how many. It does
// NOT produce the answer: the caller rescores those labels with the JavaScript Scorer,
// whose float64 sums and float32 rounding define every score Conifer prints. Exactness rests on one bound per label:
//   |rank_f32 − rank_exact| ≤ b, with b = (2·dim + 8)·2⁻²⁴·scale
// (scale: |q|·|d| for dot products, 1 for cosine, the distance itself for euclidean;
// the float32 sum of n products errs by at most γₙ ≈ n·2⁻²⁴ of Σ|qᵢdᵢ| ≤ |q|·|d|, and
// the final float32 rounding adds 2⁻²⁴; the factor 2 is margin), plus (dim + 8)·2⁻¹⁴⁸ in
// absolute terms for products and squares that underflow float32 (each loses at most
// 2⁻¹⁴⁹; divided by |q|·|d| under cosine). With lo = rank − b and
// hi = rank + b, the k-th largest lo is a lower bound of the true k-th best rank, so every
// label whose hi reaches it is kept: no label of the exact top k (ties included) is lost.
// A non-finite float32 result (float32 overflow the float64 sum does not have) or a
// zero norm under cosine keeps the label unconditionally.
//
// candidates() takes two more arguments, codes and params: the arena's int8 copies of
// the tail's vectors (arena.ts `code()`; chunked as the vectors, a chunk undefined when it
// holds none) and per label [scale s, error e, L1 of the codes] (3 float32; s NaN: not
// coded; codeVector() below makes them). A coded label is scored from its 1-byte codes c
// instead of its 4-byte floats: the tail of a graph being built is scanned on every
// query, and reading a quarter of the bytes made that scan 1.7–2.5× faster (measured:
// bench/exact-scan.js; 40k–86k clustered 384-d vectors). The bound: with d = s·c + r (|rᵢ| ≤ e, measured when coded) and the
// query likewise q = s_q·c_q + r_q (|r_qᵢ| ≤ e_q),
//   |q·d − s_q·s·(c_q·c)| ≤ ‖q‖₁·e + e_q·s·‖c‖₁
// (q·d − q̃·d̃ = q·(d − d̃) + (q − q̃)·d̃), where c_q·c is an exact int32 sum (|c| ≤ 127,
// dim ≤ 20,000). To it are added 10⁻⁹ of ‖q‖₁·max|d| (the float64 sums the caller
// rescores with differ from the real dot by ~dim·2⁻⁵³ of it) and 2⁻²² of the rank (the
// caller's final float32 rounding, and this function's own float64 steps), and 2⁻¹⁴⁰
// (that rounding where the rank is a float32 subnormal); a rank float32 cannot hold keeps
// the label unconditionally, as a non-finite float32 sum does. Cosine divides
// rank and bound by |q|·|d|; euclidean ranks −(|q|² + |d|² − 2·dot), so the bound doubles,
// plus 10⁻⁹ of |q|² + |d|². An uncoded label is scored from its floats as above.
//
// denseScores(query, metric, chunks, chunkShift, norms, labels, count, qNorm, out, held,
// rows) writes
// to out[i] the exact dense part of labels[i]'s score: what Scorer.denseScore() computes
// in JavaScript, bit for bit. Each label's sum is the same float64 sum in the same order
// (products of float32 values as doubles, which are exact; additions in dimension order;
// no FMA: binding.gyp sets -ffp-contract=off), the cosine divides by the same qNorm (the
// caller's) times the same norm. Four labels are summed side by side so their
// independent additions overlap; each label's own additions keep their order.
//
// Where a label's vector is: both functions end with two more arguments, held and rows.
// held (a Uint8Array by label, or null) marks with 1 the labels whose vector the arena
// holds (its chunks); any other label's vector is read from the graph node that is then
// its only copy, through rows (an External from the graph's rows(), native/graph-rows.h;
// null when the arena holds every vector). A label neither holds is outside the arena.
//
// Thread rule: called only from the engine worker thread that owns the arrays; it reads
// them during the call and keeps no reference.
#include "exact-scan.h"

#include "arg-checks.h"
#include "graph-rows.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using arg_checks::isNullish;
using arg_checks::typedArray;
using arg_checks::fail;

typedef float v8f __attribute__((vector_size(32)));

// On x86-64 Linux one clone per instruction set (AVX2, and the SSE2 baseline every
// x86-64 has); the dynamic loader picks the AVX2 one when the CPU has it. By feature, not
// by model: an "arch=haswell" clone is picked only on a CPU that IS a Haswell
// (__builtin_cpu_is), so every other CPU — this AMD EPYC, later Intel — ran the SSE2 one.
// Elsewhere (ARM, macOS) the compiler maps the 8-lane vector type onto what the target has.
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)
#define CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CLONES
#endif

// Four accumulators side by side, each over every fourth group of 8 dimensions: one
// accumulator chains every addition behind the previous one (no FMA here, see above),
// and that latency, not memory, bounded the scan (40k × 384: 5.4 → 3.9 ms). The order
// of the float32 additions does not matter to the bound: γₙ holds for any summation
// tree of n terms.
CLONES
float dot(const float* q, const float* d, uint32_t dim) {
  v8f acc[4] = {};
  uint32_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    for (int j = 0; j < 4; j++) {
      v8f a, b;
      std::memcpy(&a, q + i + 8 * j, sizeof a);
      std::memcpy(&b, d + i + 8 * j, sizeof b);
      acc[j] += a * b;
    }
  }
  for (; i + 8 <= dim; i += 8) {
    v8f a, b;
    std::memcpy(&a, q + i, sizeof a);
    std::memcpy(&b, d + i, sizeof b);
    acc[0] += a * b;
  }
  const v8f sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  float s = ((sum[0] + sum[1]) + (sum[2] + sum[3])) + ((sum[4] + sum[5]) + (sum[6] + sum[7]));
  for (; i < dim; i++) s += q[i] * d[i];
  return s;
}

CLONES
float l2(const float* q, const float* d, uint32_t dim) {
  v8f acc[4] = {};
  uint32_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    for (int j = 0; j < 4; j++) {
      v8f a, b;
      std::memcpy(&a, q + i + 8 * j, sizeof a);
      std::memcpy(&b, d + i + 8 * j, sizeof b);
      const v8f t = a - b;
      acc[j] += t * t;
    }
  }
  for (; i + 8 <= dim; i += 8) {
    v8f a, b;
    std::memcpy(&a, q + i, sizeof a);
    std::memcpy(&b, d + i, sizeof b);
    const v8f t = a - b;
    acc[0] += t * t;
  }
  const v8f sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  float s = ((sum[0] + sum[1]) + (sum[2] + sum[3])) + ((sum[4] + sum[5]) + (sum[6] + sum[7]));
  for (; i < dim; i++) {
    float t = q[i] - d[i];
    s += t * t;
  }
  return s;
}

enum Metric { kCosine = 0, kEuclidean = 1, kDot = 2 };

// The arena's chunks (an Array of Float32Array), each looked up on first use only: a call
// that reads a few hundred labels touches a fraction of a large arena's chunks.
template <typename T, napi_typedarray_type kType>
class TypedChunks {
 public:
  TypedChunks(napi_env env, napi_value array, uint32_t count)
      : env_(env), array_(array), data_(count, nullptr), lengths_(count, 0), looked_(count, false) {}

  // The chunk's data and length, or false when it is missing or not of type T (looked up
  // once either way: a scan asks again for every label of the chunk).
  bool Get(uint32_t c, const T** data, size_t* length) {
    if (c >= data_.size()) return false;
    if (!looked_[c]) {
      looked_[c] = true;
      napi_value chunk;
      void* raw;
      if (napi_get_element(env_, array_, c, &chunk) != napi_ok || !typedArray(env_, chunk, kType, &raw, &lengths_[c])) return false;
      data_[c] = static_cast<const T*>(raw);
    }
    *data = data_[c];
    *length = lengths_[c];
    return data_[c] != nullptr;
  }

 private:
  napi_env env_;
  napi_value array_;
  std::vector<const T*> data_;
  std::vector<size_t> lengths_;
  std::vector<bool> looked_;
};
using Chunks = TypedChunks<float, napi_float32_array>;

// The arena's int8 codes (candidates()'s codes and params): a label's codes and params,
// or false when it is not coded (its chunk absent, or its scale NaN).
class Codes {
 public:
  Codes(napi_env env, napi_value codes, napi_value params, uint32_t count, uint32_t shift, size_t dim)
      : codes_(env, codes, count), params_(env, params, count), shift_(shift), dim_(dim) {}

  bool Get(uint32_t label, const int8_t** codes, const float** params) {
    const int8_t* chunk;
    const float* p;
    size_t codesLength, paramsLength;
    const size_t slot = label & ((1u << shift_) - 1);
    if (!codes_.Get(label >> shift_, &chunk, &codesLength) || !params_.Get(label >> shift_, &p, &paramsLength)) return false;
    if ((slot + 1) * dim_ > codesLength || (slot + 1) * 3 > paramsLength || !(p[3 * slot] == p[3 * slot])) return false;
    *codes = chunk + slot * dim_;
    *params = p + 3 * slot;
    return true;
  }

 private:
  TypedChunks<int8_t, napi_int8_array> codes_;
  TypedChunks<float, napi_float32_array> params_;
  uint32_t shift_;
  size_t dim_;
};

// The int8 codes of dim values (the format at the top of this file): s = max|vᵢ| / 127
// rounded to float32, cᵢ = vᵢ / s rounded within ±127; returns [s, e, ‖c‖₁] with e the
// largest |vᵢ − s·cᵢ| (exact in float64: s·cᵢ has at most 31 significant bits). Any
// rounding of cᵢ will do, as e is measured after it: a product and a truncation, which
// compile inline, where nearbyint() is a library call on baseline x86-64. The one rule
// for vectors (codeVector) and queries (candidates).
struct Coded {
  double scale, error, l1;
};
Coded codeValues(const float* v, size_t dim, int8_t* codes) {
  double max = 0;
  for (size_t i = 0; i < dim; i++) max = std::max(max, std::fabs(double(v[i])));
  const double scale = double(float(max / 127.0));
  const double inverse = scale > 0 ? 1 / scale : 0;
  double error = 0, l1 = 0;
  for (size_t i = 0; i < dim; i++) {
    const double x = double(v[i]) * inverse;
    const double c = std::min(127.0, std::max(-127.0, double(int32_t(x + (x >= 0 ? 0.5 : -0.5)))));
    codes[i] = int8_t(c);
    l1 += std::fabs(c);
    error = std::max(error, std::fabs(double(v[i]) - scale * c));
  }
  return {scale, error, l1};
}

// Σ a·b over int8 codes, exact in int32 (|a·b| ≤ 127², dim ≤ 20,000). With AVX2: 16
// codes widened to int16 and multiplied and pair-summed to int32 in one instruction
// (vpmaddwd), which the compiler does not find for the plain loop (it widens twice: about
// half the speed, measured).
int32_t dotCodesPlain(const int8_t* a, const int8_t* b, uint32_t dim) {
  int32_t s = 0;
  for (uint32_t i = 0; i < dim; i++) s += int32_t(a[i]) * int32_t(b[i]);
  return s;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) int32_t dotCodesAvx2(const int8_t* a, const int8_t* b, uint32_t dim) {
  __m256i acc = _mm256_setzero_si256();
  uint32_t i = 0;
  for (; i + 16 <= dim; i += 16) {
    const __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    const __m256i y = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, y));
  }
  const __m128i half = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  const __m128i quarter = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0x4e));
  int32_t s = _mm_cvtsi128_si32(_mm_add_epi32(quarter, _mm_shuffle_epi32(quarter, 0xb1)));
  for (; i < dim; i++) s += int32_t(a[i]) * int32_t(b[i]);
  return s;
}

// Chosen once; __builtin_cpu_supports also checks that the OS saves the AVX registers.
int32_t (*const dotCodes)(const int8_t*, const int8_t*, uint32_t) = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") ? dotCodesAvx2 : dotCodesPlain;
}();
#else
int32_t (*const dotCodes)(const int8_t*, const int8_t*, uint32_t) = dotCodesPlain;
#endif

// The arguments candidates() and denseScores() share, in this order: the query, the
// metric, the arena (chunks, chunk shift, norms) and the labels to score.
struct Scan {
  const float* q;
  size_t dim;
  int32_t metric;
  napi_value chunks;  // read through a Chunks
  uint32_t chunkCount;
  uint32_t shift;
  const double* norms;
  size_t normsLength;
  const uint32_t* labels;
  uint32_t count;
  // The two last arguments (see the top of this file): rows is null unless held is set.
  const uint8_t* held = nullptr;
  size_t heldLength = 0;
  const conifer_graph::GraphRows* rows = nullptr;

  // Label `label`'s vector (its node's when the arena does not hold it), or null when it
  // lies outside both.
  const float* Vector(Chunks& chunks, uint32_t label) const {
    if (label >= normsLength) return nullptr;
    if (rows && !(label < heldLength && held[label] == 1)) {
      if (const float* row = rows->Row(label)) return row;
    }
    const float* chunk;
    size_t length;
    const size_t at = size_t(label & ((1u << shift) - 1)) * dim;
    if (!chunks.Get(label >> shift, &chunk, &length) || at + dim > length) return nullptr;
    return chunk + at;
  }
};

// Parses the held and rows arguments into *scan; false after throwing a TypeError.
bool parseSource(napi_env env, const char* fn, napi_value heldArg, napi_value rowsArg, Scan* scan) {
  const std::string name(fn);
  if (isNullish(env, heldArg)) {
    if (!isNullish(env, rowsArg)) return fail(env, (name + ": rows needs held").c_str()), false;
    return true;
  }
  void* data;
  if (!typedArray(env, heldArg, napi_uint8_array, &data, &scan->heldLength)) return fail(env, (name + ": held must be a Uint8Array or null").c_str()), false;
  scan->held = static_cast<const uint8_t*>(data);
  if (isNullish(env, rowsArg)) return true;
  void* rows = nullptr;
  napi_valuetype type;
  if (napi_typeof(env, rowsArg, &type) != napi_ok || type != napi_external || napi_get_value_external(env, rowsArg, &rows) != napi_ok ||
      rows == nullptr) {
    return fail(env, (name + ": rows must be a graph's rows() or null").c_str()), false;
  }
  const auto* r = static_cast<const conifer_graph::GraphRows*>(rows);
  if (r->magic != conifer_graph::kGraphRowsMagic || r->size != sizeof(conifer_graph::GraphRows)) {
    return fail(env, (name + ": rows must be a graph's rows() or null").c_str()), false;
  }
  if (r->dim != scan->dim) return fail(env, (name + ": the graph's dimension is not the query's").c_str()), false;
  scan->rows = r;
  return true;
}

// Reads the call's `expected` arguments into argv and parses argv[0..7) into *scan; false
// after throwing a TypeError that names `fn`.
bool parseScan(napi_env env, napi_callback_info info, const char* fn, size_t expected, napi_value* argv, Scan* scan) {
  const std::string name(fn);
  const auto bad = [&](const char* what) { return fail(env, (name + ": " + what).c_str()), false; };
  size_t argc = expected;
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != expected) {
    return bad((std::to_string(expected) + " arguments expected").c_str());
  }
  void* data;
  size_t length;
  if (!typedArray(env, argv[0], napi_float32_array, &data, &scan->dim) || scan->dim == 0) return bad("query must be a non-empty Float32Array");
  scan->q = static_cast<const float*>(data);
  if (napi_get_value_int32(env, argv[1], &scan->metric) != napi_ok || scan->metric < 0 || scan->metric > 2) return bad("bad metric");
  bool isArray = false;
  if (napi_is_array(env, argv[2], &isArray) != napi_ok || !isArray || napi_get_array_length(env, argv[2], &scan->chunkCount) != napi_ok) {
    return bad("chunks must be an array");
  }
  scan->chunks = argv[2];
  int32_t shift;
  if (napi_get_value_int32(env, argv[3], &shift) != napi_ok || shift < 0 || shift > 24) return bad("bad chunk shift");
  scan->shift = uint32_t(shift);
  if (!typedArray(env, argv[4], napi_float64_array, &data, &scan->normsLength)) return bad("norms must be a Float64Array");
  scan->norms = static_cast<const double*>(data);
  if (!typedArray(env, argv[5], napi_uint32_array, &data, &length)) return bad("labels must be a Uint32Array");
  scan->labels = static_cast<const uint32_t*>(data);
  if (napi_get_value_uint32(env, argv[6], &scan->count) != napi_ok || scan->count > length) return bad("bad count");
  return true;
}

// Labels scattered over a large arena (a filter's matches, a walk's candidates) each wait
// for their own cache and TLB misses when scored one after another: at 1M × 128 a
// filtered scan of 10,000 matches spent ~230 ns a label, most of it waiting. The loops
// below ask for the vector kAhead labels on before they score the current one, so those
// waits overlap (prefetches change no result). Only where a label does not follow the one
// before it: a run of consecutive labels (a graph's tail) is one stream the hardware
// already fetches ahead, and prefetching it as well made that scan 1.3-1.7x slower.
constexpr uint32_t kAhead = 16;

inline void prefetchBytes(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (size_t at = 0; at < bytes; at += 64) __builtin_prefetch(c + at);
}

// Exact dense parts of four labels at once (d[0..4) their vectors), as JavaScript sums them.
template <int kMetric>
void exact4(const double* q, const float* const* d, uint32_t dim, double* out) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (uint32_t i = 0; i < dim; i++) {
    const double qi = q[i];
    if (kMetric == kEuclidean) {
      const double t0 = qi - double(d[0][i]), t1 = qi - double(d[1][i]), t2 = qi - double(d[2][i]), t3 = qi - double(d[3][i]);
      s0 += t0 * t0;
      s1 += t1 * t1;
      s2 += t2 * t2;
      s3 += t3 * t3;
    } else {
      s0 += qi * double(d[0][i]);
      s1 += qi * double(d[1][i]);
      s2 += qi * double(d[2][i]);
      s3 += qi * double(d[3][i]);
    }
  }
  out[0] = s0;
  out[1] = s1;
  out[2] = s2;
  out[3] = s3;
}

}  // namespace

napi_value Candidates(napi_env env, napi_callback_info info) {
  napi_value argv[13];
  Scan scan;
  if (!parseScan(env, info, "candidates", 13, argv, &scan) || !parseSource(env, "candidates", argv[11], argv[12], &scan)) return nullptr;
  uint32_t k;
  if (napi_get_value_uint32(env, argv[7], &k) != napi_ok || k == 0) return fail(env, "candidates: bad k");
  void* outData;
  size_t outLength;
  if (!typedArray(env, argv[8], napi_uint32_array, &outData, &outLength) || outLength < scan.count) return fail(env, "candidates: out must be a Uint32Array of at least count");
  uint32_t* out = static_cast<uint32_t*>(outData);
  bool codesArray = false, paramsArray = false;
  uint32_t codeChunks = 0, paramChunks = 0;
  if (napi_is_array(env, argv[9], &codesArray) != napi_ok || !codesArray || napi_get_array_length(env, argv[9], &codeChunks) != napi_ok ||
      napi_is_array(env, argv[10], &paramsArray) != napi_ok || !paramsArray || napi_get_array_length(env, argv[10], &paramChunks) != napi_ok) {
    return fail(env, "candidates: codes and params must be arrays");
  }
  Chunks chunks(env, scan.chunks, scan.chunkCount);
  Codes codes(env, argv[9], argv[10], std::min(codeChunks, paramChunks), scan.shift, scan.dim);
  const float* q = scan.q;
  const size_t dim = scan.dim;
  const int32_t metric = scan.metric;
  const double* norms = scan.norms;
  const uint32_t* labels = scan.labels;
  const uint32_t count = scan.count;

  if (count <= k) {
    std::memcpy(out, labels, count * sizeof(uint32_t));
    napi_value result;
    napi_create_uint32(env, count, &result);
    return result;
  }

  double qNorm = 0;
  for (size_t i = 0; i < dim; i++) qNorm += double(q[i]) * double(q[i]);
  qNorm = std::sqrt(qNorm);
  const double unit = double(2 * dim + 8) / 16777216.0;  // (2·dim + 8)·2⁻²⁴
  const double underflow = std::ldexp(double(dim + 8), -148);  // (dim + 8)·2⁻¹⁴⁸
  // The query's own codes (see the top of this file), made only when some label is coded.
  std::vector<int8_t> qCodes;
  double qScale = 0, qError = 0, qL1 = 0;
  const auto codeQuery = [&] {
    qCodes.resize(dim);
    const Coded coded = codeValues(q, dim, qCodes.data());
    qScale = coded.scale;
    qError = coded.error;
    for (size_t i = 0; i < dim; i++) qL1 += std::fabs(double(q[i]));  // ‖q‖₁ of the values, not the codes
  };
  // hi per label, and the k largest lo so far in a min-heap (k < count here): its root
  // ends as the k-th largest lo. (Copying every lo and nth_element over them cost ~0.5 ms
  // at 100k labels.)
  std::vector<double> hi(count);
  std::vector<double> best;
  best.reserve(k);
  const auto offerLo = [&](double lo) {
    if (best.size() < k) {
      best.push_back(lo);
      std::push_heap(best.begin(), best.end(), std::greater<double>());
    } else if (lo > best.front()) {
      std::pop_heap(best.begin(), best.end(), std::greater<double>());
      best.back() = lo;
      std::push_heap(best.begin(), best.end(), std::greater<double>());
    }
  };
  for (uint32_t i = 0; i < count; i++) {
    if (i + kAhead < count && labels[i + kAhead] != labels[i + kAhead - 1] + 1) {
      const uint32_t next = labels[i + kAhead];
      const int8_t* nextCodes;
      const float* nextParams;
      if (codes.Get(next, &nextCodes, &nextParams)) {
        prefetchBytes(nextCodes, dim);
      } else if (const float* v = scan.Vector(chunks, next)) {
        prefetchBytes(v, dim * sizeof(float));
        __builtin_prefetch(norms + next);
      }
    }
    const uint32_t label = labels[i];
    const float* d = scan.Vector(chunks, label);
    if (!d) return fail(env, "candidates: label outside the arena");
    double rank, bound;
    const int8_t* c;
    const float* params;
    if (codes.Get(label, &c, &params)) {
      if (qCodes.empty()) codeQuery();
      const double s = params[0], e = params[1], l1 = params[2];
      const double approx = qScale * s * double(dotCodes(qCodes.data(), c, uint32_t(dim)));
      const double err = qL1 * e + qError * s * l1 + 1e-9 * qL1 * (128.0 * s + e);
      const double norm = norms[label];
      if (metric == kEuclidean) {
        const double squares = qNorm * qNorm + norm * norm;
        rank = -(squares - 2 * approx);
        bound = 2 * err + 1e-9 * squares;
      } else if (metric == kCosine) {
        const double scale = qNorm * norm;
        const double inverse = 1 / scale;  // rank and bound are bounds, not the answer: the 2⁻²² below covers this rounding
        rank = scale > 0 ? approx * inverse : NAN;
        bound = err * inverse;
      } else {
        rank = approx;
        bound = err;
      }
      // The caller's final float32 rounding: 2⁻²³ of the rank (2⁻²² here: margin, a
      // product, not ldexp(), as this runs per label), and 2⁻¹⁴⁹ where it is subnormal.
      bound += std::fabs(rank) * 0x1p-22 + 0x1p-140;
      // A rank float32 cannot hold (the caller's rank is then ±Infinity, and all such tie)
      // is kept unconditionally, as a non-finite float32 sum is below.
      if (!(std::fabs(rank) + bound < 3.4e38)) rank = NAN;
    } else if (metric == kEuclidean) {
      const double dist = l2(q, d, uint32_t(dim));
      rank = -dist;
      bound = unit * dist + underflow;
    } else {
      const double s = dot(q, d, uint32_t(dim));
      if (metric == kCosine) {
        const double scale = qNorm * norms[label];
        rank = scale > 0 ? s / scale : NAN;
        bound = unit + underflow / scale;
      } else {
        rank = s;
        bound = unit * qNorm * norms[label] + underflow;
      }
    }
    if (std::isfinite(rank)) {
      offerLo(rank - bound);
      hi[i] = rank + bound;
    } else {
      offerLo(-INFINITY);
      hi[i] = INFINITY;
    }
  }
  const double floor = best.front();
  uint32_t n = 0;
  for (uint32_t i = 0; i < count; i++) if (hi[i] >= floor) out[n++] = labels[i];
  napi_value result;
  napi_create_uint32(env, n, &result);
  return result;
}

napi_value DenseScores(napi_env env, napi_callback_info info) {
  napi_value argv[11];
  Scan scan;
  if (!parseScan(env, info, "denseScores", 11, argv, &scan) || !parseSource(env, "denseScores", argv[9], argv[10], &scan)) return nullptr;
  double qNorm;
  if (napi_get_value_double(env, argv[7], &qNorm) != napi_ok) return fail(env, "denseScores: qNorm must be a number");
  void* outData;
  size_t outLength;
  if (!typedArray(env, argv[8], napi_float64_array, &outData, &outLength) || outLength < scan.count) return fail(env, "denseScores: out must be a Float64Array of at least count");
  double* out = static_cast<double*>(outData);
  Chunks chunks(env, scan.chunks, scan.chunkCount);

  std::vector<double> q(scan.q, scan.q + scan.dim);
  const uint32_t* labels = scan.labels;
  const uint32_t count = scan.count;
  const float* d[4];
  double sums[4];
  for (uint32_t from = 0; from < count; from += 4) {
    for (uint32_t j = from + kAhead; j < from + kAhead + 4 && j < count; j++) {
      if (labels[j] == labels[j - 1] + 1) continue;
      if (const float* v = scan.Vector(chunks, labels[j])) prefetchBytes(v, scan.dim * sizeof(float));
    }
    const uint32_t n = std::min<uint32_t>(4, count - from);
    for (uint32_t j = 0; j < 4; j++) {
      // A group of fewer than four repeats its first label; only n results are kept.
      d[j] = scan.Vector(chunks, labels[from + (j < n ? j : 0)]);
      if (!d[j]) return fail(env, "denseScores: label outside the arena");
    }
    if (scan.metric == kEuclidean) exact4<kEuclidean>(q.data(), d, uint32_t(scan.dim), sums);
    else exact4<kDot>(q.data(), d, uint32_t(scan.dim), sums);
    for (uint32_t j = 0; j < n; j++) {
      out[from + j] = scan.metric == kCosine ? sums[j] / (qNorm * scan.norms[labels[from + j]]) : sums[j];
    }
  }
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  return undefined;
}

// codeVector(values, codes, codesAt, params, paramsAt): the int8 codes of one vector (the
// arena's code(); codeValues()) into codes[codesAt..+dim) and [s, e, ‖c‖₁] into
// params[paramsAt..+3), e rounded up to float32, so the bound holds whatever the
// roundings did. Native because the arena codes every vector a write adds to a tail:
// in JavaScript it took ~7 µs a 384-d vector, ten times the store itself (here ~1.4 µs).
napi_value CodeVector(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  const char* usage = "codeVector(values: Float32Array, codes: Int8Array, codesAt, params: Float32Array, paramsAt)";
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != 5) return fail(env, usage);
  void* data;
  size_t dim, codesLength, paramsLength;
  uint32_t codesAt, paramsAt;
  if (!typedArray(env, argv[0], napi_float32_array, &data, &dim)) return fail(env, usage);
  const float* v = static_cast<const float*>(data);
  if (!typedArray(env, argv[1], napi_int8_array, &data, &codesLength)) return fail(env, usage);
  int8_t* codes = static_cast<int8_t*>(data);
  if (!typedArray(env, argv[3], napi_float32_array, &data, &paramsLength)) return fail(env, usage);
  float* params = static_cast<float*>(data);
  if (napi_get_value_uint32(env, argv[2], &codesAt) != napi_ok || napi_get_value_uint32(env, argv[4], &paramsAt) != napi_ok ||
      size_t(codesAt) + dim > codesLength || size_t(paramsAt) + 3 > paramsLength) {
    return fail(env, "codeVector: codesAt or paramsAt leaves no room for the vector's codes");
  }
  const Coded coded = codeValues(v, dim, codes + codesAt);
  params[paramsAt] = float(coded.scale);  // already a float32 value
  // Rounded up: float32 rounding is at most 2⁻²⁴ relative (2⁻¹⁵⁰ absolute when subnormal).
  params[paramsAt + 1] = float(coded.error * (1 + 0x1p-20) + 0x1p-148);
  params[paramsAt + 2] = float(coded.l1);  // an integer below 2²⁴ (dim ≤ 20,000): exact
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  return undefined;
}
