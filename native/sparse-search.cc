// Native sparse search over one namespace's inverted index (src/engine/sparse/), the
// engine's hot loops in C++: the same algorithms as sparse-index.ts's JavaScript path,
// which stays the fallback when the addon is absent (and the reference tests compare).
//
// Every function takes the query and the index as
//   lists    Array, one per query term: the term's PostingList entry buffer (Uint32Array
//            of [label, generation, float32 weight bits] triples) or null when no list
//   meta     Float64Array, 4 per term: [entries, 1 if the list holds stale entries else 0,
//            max weight, min weight]
//   dims     Uint32Array, the query's dimensions, ascending, unique
//   weights  Float32Array, the query's weight per dimension
//   state    Array [gen, indices, values, start, len]: the per-label generation (entries
//            with another are stale) and the SparseStore's pools (Uint32Array, Float32Array)
//            and per-label tables (Uint32Array)
// and returns labels (a new Uint32Array) that the caller rescores with its own
// SparseStore.dot(): JavaScript defines every score Conifer prints. The native exact
// score (QueryDims::Dot() below) is the same float64 sum in the same order as SparseStore.dot()
// (products of float32 values as doubles, added in ascending dimension order; no FMA:
// binding.gyp sets -ffp-contract=off), so it selects exactly the records JavaScript
// would.
//
// sparseSearchHead(..., k, columns, steps, sorted, labelEnd): sparseSearch()'s answer with
// no filter, through head columns (HeadSearch below; native only: without the addon,
// MaxScore answers those queries).
// sparseSearch(..., allow, k, strategy, pairsPerRecord): every label that may be in the
// exact top k (allow: a Bitmap's words, or null for all): all allowed labels sharing a
// dimension whose float32-rounded score reaches the k-th best such score. Ties at the
// k-th score are all returned; the caller's TopK orders them by id. strategy 0
// accumulates every list in dimension order; 1 is MaxScore (see Pruned()).
// sparseCandidates(..., n, coverage) and sparseReaching(..., tau, maxPostings,
// maxRecords, pairsPerRecord): SparseIndex.candidates() and .reaching() (hybrid search).
// sparseDots(dims, weights, state, labels, count, out) is the exception to the rule above:
// it writes to out[i] the exact score of labels[i] (NaN: no shared dimension), the same
// float64 sum as SparseStore.dot(), bit for bit, which hybrid search ranks by directly.
//
// Bad arguments throw a TypeError; an entry or label outside the arrays passed (which
// a consistent index never holds) throws an Error. Neither crashes.
//
// Thread rule: called only from the thread that owns the arrays; it reads them during
// the call and keeps no reference. Scratch arrays are per thread (thread_local), so
// sparseSearchMany's helper threads each search with their own.
#include "sparse-search.h"

#include "arg-checks.h"
#include "helper-pool.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <functional>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CONIFER_HEAD_AVX2 1
#endif
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using arg_checks::typedArray;
using arg_checks::isNullish;
using arg_checks::fail;
using arg_checks::number;

// Same constants as sparse-index.ts (see there for why they suffice).
constexpr double kSumSlack = 1e-9;
constexpr double kRelMargin = 3e-7;
// THETA_REFRESH_GROWTH in sparse-index.ts.
constexpr size_t kThetaRefreshGrowth = 4;
// Native only (MaxScore's 4-byte sums, see Scratch and Bounds()): twice float's unit
// roundoff (2^-24).
constexpr double kFloatRounding = 1.0 / (1 << 23);

struct Term {
  const uint32_t* entries;
  uint32_t length;
  bool stale;
  double max;
  double min;
  float weight;
  uint32_t pos;  // the term's position in the query (dims, weights)
};

struct Index {
  const uint32_t* gen;
  size_t extent;  // labels: gen's length
  const uint32_t* indices;
  const float* values;
  size_t pool;
  const uint32_t* start;
  const uint32_t* len;
  size_t labels;  // start's and len's common length
};

struct Query {
  // Terms with a non-empty list, in query order (dimension ascending).
  std::vector<Term> terms;
  const uint32_t* dims;
  const float* weights;
  size_t n;
};

// A search's per-label state, kept small because adding a postings entry into its
// label's sum is a random access, most of a search's time: the sums take 8 bytes a label
// (800 KB at 100k labels) and "touched by this search" and "scored exactly by it" one bit
// each (12.5 KB, L1). 16-byte slots with per-search epochs did not fit: on this machine
// 46k random adds cost 123 µs into them and 26 µs into doubles (the mix of one query at
// 100k records).
//
// MaxScore keeps its sums in 4 bytes (sums32): they only decide which records are scored
// exactly, so rounding is allowed for in its slack (Bounds()), and half the bytes is half
// the cache lines a search brings in: with the caches emptied between queries (as a dense
// query's graph walk empties them), its p50 at 100k of the bench's records went from 750
// to 682 µs (in process, builds alternated; 508 → 502 µs with warm caches). The other
// searches need their sums exact (plain() offers them as scores, candidates() orders by
// them as JavaScript does) and keep doubles (acc).
//
// Invariant between searches: every sum is 0 and every bit of touchedBits, offeredBits
// and marks is clear. A Search restores it for the labels it touched when it ends (its
// destructor, an exception included), so no search pays for the whole arrays.
struct Scratch {
  std::vector<double> acc;
  std::vector<float> sums32;
  std::vector<uint64_t> touchedBits, offeredBits;
  std::vector<uint32_t> touched, survivors, offered;
  // survivors' partial sums, side by side with them while pruned() first narrows them: read
  // in order instead of from acc at random (twice per survivor).
  std::vector<double> survivorAcc;
  // The labels whose sum rose above the θ estimates' bar since the last estimate
  // (Search::List), and one bit per label for "in that list", all clear between searches.
  std::vector<uint32_t> listed;
  std::vector<uint64_t> listedBits;
  // One bit per label, set for exactly the survivors while a search narrows them and all
  // clear between searches (SurvivorMarks).
  std::vector<uint64_t> marks;
  // AddToMarked()'s buffer: the entries of one list that belong to survivors (as long as
  // the longest list narrowed so far, 8 bytes an entry).
  std::vector<uint32_t> hitLabels;
  std::vector<float> hitWeights;
};
thread_local Scratch scratch;

template <typename Sum>
std::vector<Sum>& SumsOf(Scratch& s);
template <>
std::vector<double>& SumsOf<double>(Scratch& s) {
  return s.acc;
}
template <>
std::vector<float>& SumsOf<float>(Scratch& s) {
  return s.sums32;
}

// Thrown inside the search when the arrays contradict each other; becomes a JS Error.
struct Corrupt {};

// Σ w·v over the dimensions the label shares with the query (dims ascending, n of them),
// in dimension order (SparseStore.dot()); NaN when none. Throws Corrupt when the label's
// pairs lie outside the pools. A merge of the two sorted lists: QueryDims::Dot() below is
// the faster path and falls back to this one.
double dot(const Index& ix, const uint32_t* dims, const float* weights, size_t n, uint32_t label) {
  if (label >= ix.labels) return NAN;
  const uint32_t len = ix.len[label];
  if (len == 0) return NAN;
  size_t i = ix.start[label];
  const size_t end = i + len;
  if (end > ix.pool) throw Corrupt();
  size_t j = 0;
  double score = 0;
  bool overlap = false;
  while (i < end && j < n) {
    const uint32_t a = ix.indices[i];
    const uint32_t b = dims[j];
    if (a < b) {
      i++;
    } else if (a > b) {
      j++;
    } else {
      score += double(weights[j]) * double(ix.values[i]);
      overlap = true;
      i++;
      j++;
    }
  }
  return overlap ? score : NAN;
}

// Exact scores through a table from dimension to the query's position in it, for queries
// whose dimensions are all below kTableDims (learned sparse vocabularies: ~30k): dot()'s
// merge takes an unpredictable three-way branch per step, while a lookup per record pair
// branches only on a match, a few of a record's ~120 pairs. Native MaxScore p50 at 100k
// of the bench's records, in process, the two builds alternated: 627 → 583 and 563 →
// 526 µs (a uint8 table measured the same). The products are added in the record's
// dimension order, as dot() adds them, so the sums are the same bit for bit.
//
// The table is per thread (2 bytes a dimension, 128 KB), all zero between uses: a
// QueryDims sets the query's entries (position + 1) and clears them when it goes out of
// scope. One QueryDims per thread at a time (a search, or one sparseDots() call).
constexpr uint32_t kTableDims = 65536;
thread_local std::vector<uint16_t> dimTable;

class QueryDims {
 public:
  QueryDims(const uint32_t* dims, const float* weights, size_t n) : dims_(dims), weights_(weights), n_(n) {
    // dims ascending: the last is the largest.
    if (n == 0 || n >= 65535 || dims[n - 1] >= kTableDims) return;
    if (dimTable.size() < kTableDims) dimTable.assign(kTableDims, 0);
    table_ = dimTable.data();
    for (size_t j = 0; j < n; j++) table_[dims[j]] = uint16_t(j + 1);
  }
  ~QueryDims() {
    if (table_) for (size_t j = 0; j < n_; j++) table_[dims_[j]] = 0;
  }
  QueryDims(const QueryDims&) = delete;
  QueryDims& operator=(const QueryDims&) = delete;

  // dot()'s answer (NaN: no shared dimension; throws Corrupt as it does).
  double Dot(const Index& ix, uint32_t label) const {
    if (!table_) return dot(ix, dims_, weights_, n_, label);
    if (label >= ix.labels) return NAN;
    const uint32_t len = ix.len[label];
    if (len == 0) return NAN;
    const size_t from = ix.start[label];
    const size_t end = from + len;
    if (end > ix.pool) throw Corrupt();
    double score = 0;
    bool overlap = false;
    for (size_t i = from; i < end; i++) {
      const uint32_t d = ix.indices[i];
      const uint32_t j = d < kTableDims ? table_[d] : 0;
      if (j != 0) {
        score += double(weights_[j - 1]) * double(ix.values[i]);
        overlap = true;
      }
    }
    return overlap ? score : NAN;
  }

 private:
  const uint32_t* dims_;
  const float* weights_;
  size_t n_;
  uint16_t* table_ = nullptr;
};

// Parses the state argument [gen, indices, values, start, len]; false after throwing.
bool parseState(napi_env env, napi_value state, Index* ix) {
  void* data;
  bool stateArray = false;
  uint32_t stateLength;
  if (napi_is_array(env, state, &stateArray) != napi_ok || !stateArray || napi_get_array_length(env, state, &stateLength) != napi_ok || stateLength != 5) {
    return fail(env, "sparse: state must be [gen, indices, values, start, len]"), false;
  }
  napi_value s[5];
  for (uint32_t i = 0; i < 5; i++) {
    if (napi_get_element(env, state, i, &s[i]) != napi_ok) return fail(env, "sparse: state must be [gen, indices, values, start, len]"), false;
  }
  size_t indicesLength, valuesLength, startLength, lenLength;
  if (!typedArray(env, s[0], napi_uint32_array, &data, &ix->extent)) return fail(env, "sparse: gen must be a Uint32Array"), false;
  ix->gen = static_cast<const uint32_t*>(data);
  if (!typedArray(env, s[1], napi_uint32_array, &data, &indicesLength)) return fail(env, "sparse: indices must be a Uint32Array"), false;
  ix->indices = static_cast<const uint32_t*>(data);
  if (!typedArray(env, s[2], napi_float32_array, &data, &valuesLength)) return fail(env, "sparse: values must be a Float32Array"), false;
  ix->values = static_cast<const float*>(data);
  if (!typedArray(env, s[3], napi_uint32_array, &data, &startLength)) return fail(env, "sparse: start must be a Uint32Array"), false;
  ix->start = static_cast<const uint32_t*>(data);
  if (!typedArray(env, s[4], napi_uint32_array, &data, &lenLength)) return fail(env, "sparse: len must be a Uint32Array"), false;
  ix->len = static_cast<const uint32_t*>(data);
  ix->pool = std::min(indicesLength, valuesLength);
  ix->labels = std::min(startLength, lenLength);
  return true;
}

// Parses the common arguments argv[0..5); false after throwing.
bool parse(napi_env env, napi_value* argv, Query* q, Index* ix) {
  void* data;
  size_t length;
  if (!typedArray(env, argv[2], napi_uint32_array, &data, &q->n)) return fail(env, "sparse: dims must be a Uint32Array"), false;
  q->dims = static_cast<const uint32_t*>(data);
  if (!typedArray(env, argv[3], napi_float32_array, &data, &length) || length != q->n) return fail(env, "sparse: weights must be a Float32Array as long as dims"), false;
  q->weights = static_cast<const float*>(data);
  if (!typedArray(env, argv[1], napi_float64_array, &data, &length) || length != 4 * q->n) return fail(env, "sparse: meta must be a Float64Array of 4 per dimension"), false;
  const double* meta = static_cast<const double*>(data);
  bool isArray = false;
  uint32_t listCount;
  if (napi_is_array(env, argv[0], &isArray) != napi_ok || !isArray || napi_get_array_length(env, argv[0], &listCount) != napi_ok || listCount != q->n) {
    return fail(env, "sparse: lists must be an array with one entry per dimension"), false;
  }
  for (uint32_t t = 0; t < listCount; t++) {
    napi_value list;
    if (napi_get_element(env, argv[0], t, &list) != napi_ok) return fail(env, "sparse: lists must be an array with one entry per dimension"), false;
    const double entries = meta[4 * t];
    if (!(entries >= 0 && entries <= 4294967295.0 && entries == std::floor(entries))) return fail(env, "sparse: meta holds a bad list length"), false;
    if (isNullish(env, list)) {
      if (entries != 0) return fail(env, "sparse: a missing list must have length 0"), false;
      continue;
    }
    if (!typedArray(env, list, napi_uint32_array, &data, &length) || length / 3 < entries) return fail(env, "sparse: every list must be a Uint32Array of at least 3 per entry"), false;
    if (entries == 0) continue;
    q->terms.push_back(Term{static_cast<const uint32_t*>(data), uint32_t(entries), meta[4 * t + 1] != 0, meta[4 * t + 2], meta[4 * t + 3], q->weights[t], t});
  }
  return parseState(env, argv[4], ix);
}

// The float32 a score ranks by, as scoreFloat32() (engine/float32.ts) rounds it: a score
// beyond float32's range becomes the largest float32 of its sign (clamped before the
// conversion, which is undefined for doubles out of float's range). Not for NaN.
inline double Rank32(double score) {
  constexpr double kMax = 3.4028234663852886e38;  // FLT_MAX
  return double(float(std::min(std::max(score, -kMax), kMax)));
}

inline float entryWeight(const uint32_t* e) {
  float w;
  std::memcpy(&w, e, sizeof w);
  return w;
}

// The exact top k by float32 rank, ties at the k-th included: θ is the k-th best rank
// offered so far (a min-heap: its root), and Kept() gives every offered label whose rank
// reaches the final θ. Search and HeadSearch rank their exact scores with it.
class TopRanks {
 public:
  explicit TopRanks(size_t k = 0) { Reset(k); }
  void Reset(size_t k) {
    k_ = k;
    heap_.clear();
    heap_.reserve(k);
    kept_.clear();
  }
  bool Full() const { return heap_.size() >= k_; }
  double Theta() const { return heap_.front(); }
  void Offer(uint32_t label, double score) {
    if (std::isnan(score)) return;
    const double rank = Rank32(score);
    if (!Full()) {
      heap_.push_back(rank);
      std::push_heap(heap_.begin(), heap_.end(), std::greater<double>());
    } else if (rank < Theta()) {
      return;
    } else if (rank > Theta()) {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<double>());
      heap_.back() = rank;
      std::push_heap(heap_.begin(), heap_.end(), std::greater<double>());
    }
    kept_.push_back({label, rank});
  }
  std::vector<uint32_t> Kept() const {
    std::vector<uint32_t> out;
    for (const auto& [label, rank] : kept_) {
      if (!Full() || rank >= Theta()) out.push_back(label);
    }
    return out;
  }

 private:
  size_t k_ = 0;
  std::vector<double> heap_;
  std::vector<std::pair<uint32_t, double>> kept_;
};

// The searches below mirror sparse-index.ts method by method; see there for the why.
// Sum: the type of the per-label sums (see Scratch).
template <typename Sum>
class Search {
 public:
  Search(const Query& q, const Index& ix) : q_(q), ix_(ix), dims_(q.dims, q.weights, q.n) {
    Scratch& s = scratch;
    std::vector<Sum>& sums = SumsOf<Sum>(s);
    if (sums.size() < ix.extent) sums.resize(ix.extent, 0);
    if (s.touched.size() < ix.extent) {
      const size_t words = (ix.extent + 63) / 64;
      s.touchedBits.resize(words, 0);
      s.offeredBits.resize(words, 0);
      s.marks.resize(words, 0);
      s.listedBits.resize(words, 0);
      s.listed.resize(ix.extent);
      s.touched.resize(ix.extent);
      s.survivors.resize(ix.extent);
      s.survivorAcc.resize(ix.extent);
    }
    s.offered.clear();
    acc_ = sums.data();
    touchedBits_ = s.touchedBits.data();
    offeredBits_ = s.offeredBits.data();
    offered_ = &s.offered;
    touched_ = s.touched.data();
    survivors_ = s.survivors.data();
    survivorAcc_ = s.survivorAcc.data();
    marks_ = s.marks.data();
    listed_ = s.listed.data();
    listedBits_ = s.listedBits.data();
  }

  // Restores the scratch invariant: clears the sums and bits of the labels touched.
  ~Search() {
    if (DenseTouches()) {
      const size_t words = (ix_.extent + 63) / 64;
      for (size_t w = 0; w < words; w++) {
        for (uint64_t bits = touchedBits_[w]; bits != 0; bits &= bits - 1) acc_[w * 64 + __builtin_ctzll(bits)] = 0;
        touchedBits_[w] = 0;
      }
    } else {
      for (uint32_t j = 0; j < touchedCount_; j++) {
        const uint32_t label = touched_[j];
        acc_[label] = 0;
        touchedBits_[label >> 6] = 0;  // every bit set in it belongs to a touched label
      }
    }
    for (const uint32_t label : *offered_) offeredBits_[label >> 6] = 0;
    ClearListed();
  }
  Search(const Search&) = delete;
  Search& operator=(const Search&) = delete;

  double Dot(uint32_t label) const { return dims_.Dot(ix_, label); }

  bool Offered(uint32_t label) const { return (offeredBits_[label >> 6] >> (label & 63) & 1) != 0; }
  void MarkOffered(uint32_t label) {
    offeredBits_[label >> 6] |= uint64_t(1) << (label & 63);
    offered_->push_back(label);
  }

  // Appends the label to listed_ unless it is there already (a sum that fell back under
  // the bar, negative terms, and crossed it again).
  void List(uint32_t label) {
    uint64_t& word = listedBits_[label >> 6];
    const uint64_t bit = uint64_t(1) << (label & 63);
    if (word & bit) return;
    word |= bit;
    listed_[listedCount_++] = label;
  }
  void ClearListed() {
    for (uint32_t j = 0; j < listedCount_; j++) listedBits_[listed_[j] >> 6] = 0;
    listedCount_ = 0;
  }

  // A record's pairs lie at a random place in the pools: dot() waits for its start and
  // length, then for its first pairs, each a cache miss. Loops over labels to score
  // fetch the table entries kTableAhead labels early and the pairs kPairsAhead early.
  static constexpr size_t kTableAhead = 8;
  static constexpr size_t kPairsAhead = 4;
  void PrefetchTable(uint32_t label) const {
    if (label >= ix_.labels) return;
    __builtin_prefetch(ix_.start + label);
    __builtin_prefetch(ix_.len + label);
  }
  void PrefetchPairs(uint32_t label) const {
    if (label >= ix_.labels) return;
    const size_t at = ix_.start[label];
    if (at >= ix_.pool) return;
    __builtin_prefetch(ix_.indices + at);
    __builtin_prefetch(ix_.values + at);
  }
  void PrefetchDot(const uint32_t* labels, size_t j, size_t count) const {
    if (j + kTableAhead < count) PrefetchTable(labels[j + kTableAhead]);
    if (j + kPairsAhead < count) PrefetchPairs(labels[j + kPairsAhead]);
  }

  // Entries ahead of the one being added whose sum is fetched early: the lists are read
  // in order, the sums at random. Indices, not pointers: with a pointer `kAhead` entries
  // on, compared with the list's end, GCC at -O2 dropped the prefetch altogether (a
  // pointer past the end of an array is undefined behaviour).
  static constexpr size_t kAhead = 16;
  // Entries ahead of the one being read whose cache line is requested early: a list is
  // read once, from memory, and the hardware prefetcher alone streamed only ~4 GB/s here
  // (800 KB in 160-225 µs; 90-110 µs with lines requested ~2 KB ahead).
  static constexpr size_t kStreamAhead = 160;

  // Calls visit(label, contribution) for each live entry of the term's list, in
  // list order, prefetching the sums ahead (Gather()'s loop).
  template <typename Visit>
  void ForEachLive(const Term& t, Visit&& visit) {
    const uint32_t* e = t.entries;
    const size_t n = t.length;
    const double w = t.weight;
    const size_t extent = ix_.extent;
    for (size_t k = 0; k < n; k++) {
      if (k + kStreamAhead < n) __builtin_prefetch(e + 3 * (k + kStreamAhead));
      if (k + kAhead < n) {
        const uint32_t ahead = e[3 * (k + kAhead)];
        if (ahead < extent) __builtin_prefetch(acc_ + ahead, 1);
      }
      const uint32_t label = e[3 * k];
      if (label >= extent) throw Corrupt();
      if (t.stale && ix_.gen[label] != e[3 * k + 1]) continue;
      visit(label, w * double(entryWeight(e + 3 * k + 2)));
    }
  }

  // Adds the list's live entries into acc; first touches join `touched`. Returns how
  // many labels are touched now.
  uint32_t Gather(const Term& t) {
    // A local count (the compiler cannot keep a member in a register across the stores
    // to touched_), written back even when the list turns out corrupt: the destructor
    // must see every label touched.
    uint32_t count = touchedCount_;
    try {
      ForEachLive(t, [&](uint32_t label, double x) {
        // Branch-free: whether a label is new to this query is a coin flip the CPU cannot
        // predict. An untouched label's acc is 0, and 0 + x is x exactly, as JavaScript's
        // acc = 0; acc += x.
        uint64_t& word = touchedBits_[label >> 6];
        const uint64_t bit = uint64_t(1) << (label & 63);
        touched_[count] = label;
        count += (word & bit) == 0;
        word |= bit;
        const double before = acc_[label];
        const Sum after = Sum(before + x);
        acc_[label] = after;
        if (after > bar_ && before <= bar_) List(label);
      });
    } catch (...) {
      touchedCount_ = count;
      throw;
    }
    touchedCount_ = count;
    return count;
  }

  // Whether at least one label in 64 is touched. Then the loops over every touched label
  // (ForEachTouched(), the destructor) walk touchedBits in label order, which reads the
  // sums as a walk through acc instead of at random (a long list's labels are spread over
  // the namespace); fewer touches are read from touched_, in first-touch order, as
  // reading every word of touchedBits would cost more. (Walking the bits rather than
  // first rewriting touched_ in label order: MaxScore p50 545 → 521 and 540 → 518 µs at
  // 100k of the bench's records, in process, the two builds alternated.)
  bool DenseTouches() const { return touchedCount_ >= (ix_.extent + 63) / 64; }

  // Calls visit(label) for every touched label, each once (see DenseTouches()).
  template <typename Visit>
  void ForEachTouched(Visit&& visit) {
    if (DenseTouches()) {
      const size_t words = (ix_.extent + 63) / 64;
      for (size_t w = 0; w < words; w++) {
        for (uint64_t bits = touchedBits_[w]; bits != 0; bits &= bits - 1) visit(uint32_t(w * 64 + __builtin_ctzll(bits)));
      }
      return;
    }
    const size_t extent = ix_.extent;
    for (uint32_t j = 0; j < touchedCount_; j++) {
      if (j + kAhead < touchedCount_ && touched_[j + kAhead] < extent) __builtin_prefetch(acc_ + touched_[j + kAhead]);
      visit(touched_[j]);
    }
  }

  // Keeps the survivors_[0, alive) for which keep(j, label) holds (in order) and marks
  // them while the narrowing of pruned() or reaching() reads further lists, in one
  // branch-free pass (which survivors pass is unpredictable); clears the marks of those
  // still alive when it goes out of scope (an exception included). Narrow() clears the
  // marks of those it drops.
  class SurvivorMarks {
   public:
    template <typename Keep>
    SurvivorMarks(Search& s, uint32_t& alive, Keep keep) : s_(s), alive_(alive) {
      uint32_t kept = 0;
      for (uint32_t j = 0; j < alive; j++) {
        const uint32_t label = s_.survivors_[j];
        const bool marked = keep(j, label);
        s_.survivors_[kept] = label;
        kept += marked;
        s_.marks_[label >> 6] |= uint64_t(marked) << (label & 63);
      }
      alive = kept;
    }
    ~SurvivorMarks() {
      for (uint32_t j = 0; j < alive_; j++) s_.marks_[s_.survivors_[j] >> 6] &= ~(uint64_t(1) << (s_.survivors_[j] & 63));
    }
    SurvivorMarks(const SurvivorMarks&) = delete;
    SurvivorMarks& operator=(const SurvivorMarks&) = delete;

   private:
    Search& s_;
    const uint32_t& alive_;
  };

  // Like Gather(), but only into the marked survivors: a list read to narrow them holds
  // mostly other labels, and testing a bit (the marks of 100k labels take 12.5 KB, so they
  // stay in cache) costs less than reading and writing each entry's sum. (The JavaScript
  // addTo() adds into every touched label; only survivors' sums are read after it, so the
  // answers are the same.)
  //
  // Two passes, without a branch on the mark: whether an entry's label survives is a coin
  // flip the CPU cannot predict (a fifth of the labels survive the first narrowing on the
  // bench's data), and its mispredictions cost more than copying every entry's label and
  // weight to a buffer that advances past survivors' entries only. (A list with stale
  // entries still branches there, so that it reads the generations of survivors only.) A
  // list holds one live entry per label, so each sum gets the same adds in the same order.
  void AddToSurvivors(const Term& t) {
    if (t.stale) AddToMarked<true>(t);
    else AddToMarked<false>(t);
  }

  template <bool kStale>
  void AddToMarked(const Term& t) {
    const uint32_t* e = t.entries;
    const size_t n = t.length;
    const double w = t.weight;
    const size_t extent = ix_.extent;
    std::vector<uint32_t>& hitLabels = scratch.hitLabels;
    std::vector<float>& hitWeights = scratch.hitWeights;
    if (hitLabels.size() < n) {
      hitLabels.resize(n);
      hitWeights.resize(n);
    }
    uint32_t* hitLabel = hitLabels.data();
    float* hitWeight = hitWeights.data();
    size_t hits = 0;
    for (size_t k = 0; k < n; k++) {
      if (k + kStreamAhead < n) __builtin_prefetch(e + 3 * (k + kStreamAhead));
      const uint32_t label = e[3 * k];
      if (label >= extent) throw Corrupt();
      bool marked = (marks_[label >> 6] >> (label & 63) & 1) != 0;
      if (kStale) marked = marked && ix_.gen[label] == e[3 * k + 1];
      hitLabel[hits] = label;
      hitWeight[hits] = entryWeight(e + 3 * k + 2);
      hits += marked;
    }
    for (size_t h = 0; h < hits; h++) acc_[hitLabel[h]] += w * double(hitWeight[h]);
  }

  // Keeps the survivors whose acc reaches `need` (in order), unmarking the others.
  // Branch-free, as the survivor loops below: which survivors pass is unpredictable.
  uint32_t Narrow(uint32_t alive, double need) {
    uint32_t kept = 0;
    for (uint32_t j = 0; j < alive; j++) {
      const uint32_t label = survivors_[j];
      const bool keep = acc_[label] >= need;
      survivors_[kept] = label;
      kept += keep;
      marks_[label >> 6] &= ~(uint64_t(!keep) << (label & 63));
    }
    return kept;
  }

  // Terms by bound descending, or by bound per entry when `perEntry` (ties by query
  // order), restFrom_ and slack_ (termBounds(); pruned() says why per entry). Every term
  // here has entries (parse() keeps no empty list).
  void Bounds(bool perEntry = false) {
    const size_t m = q_.terms.size();
    std::vector<double> ub(m), key(m);
    double magnitude = 0;
    for (size_t t = 0; t < m; t++) {
      const Term& term = q_.terms[t];
      const double w = term.weight;
      ub[t] = BoundOf(term);
      key[t] = perEntry ? ub[t] / term.length : ub[t];
      magnitude += std::fabs(w) * std::max(std::fabs(term.max), std::fabs(term.min));
    }
    order_.resize(m);
    for (size_t t = 0; t < m; t++) order_[t] = uint32_t(t);
    std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) { return key[a] > key[b] || (key[a] == key[b] && a < b); });
    restFrom_.assign(m + 1, 0);
    for (size_t i = m; i-- > 0;) restFrom_[i] = restFrom_[i + 1] + ub[order_[i]];
    slack_ = std::max(kSumSlack * magnitude, 1e-30);
    // 4-byte sums: each of a label's at most m adds rounds its sum, by at most 2^-24 of it,
    // and no partial sum exceeds `magnitude` in size; twice that bound for a margin.
    if (std::is_same<Sum, float>::value) slack_ += double(m) * kFloatRounding * magnitude;
  }

  // The heap of the best partial sums: a min-heap of at most k (HeapStart(k)), the least
  // kept at heapValues_[0].
  void HeapStart(size_t k) {
    heapLabels_.resize(k);
    heapValues_.resize(k);
  }

  // Keeps (label, v) if it is among the k best seen since HeapStart(k); `size` is the
  // heap's. Equal sums: the first one seen stays.
  void HeapKeep(uint32_t label, double v, size_t k, size_t& size) {
    uint32_t* hl = heapLabels_.data();
    double* hv = heapValues_.data();
    if (size == k && v <= hv[0]) return;
    if (size < k) {
      size_t c = size++;
      while (c > 0) {
        const size_t p = (c - 1) >> 1;
        if (hv[p] <= v) break;
        hv[c] = hv[p];
        hl[c] = hl[p];
        c = p;
      }
      hv[c] = v;
      hl[c] = label;
      return;
    }
    size_t c = 0;
    for (;;) {
      const size_t l = 2 * c + 1;
      if (l >= size) break;
      const size_t r = l + 1;
      const size_t s = r < size && hv[r] < hv[l] ? r : l;
      if (hv[s] >= v) break;
      hv[c] = hv[s];
      hl[c] = hl[s];
      c = s;
    }
    hv[c] = v;
    hl[c] = label;
  }

  // The (at most) k of labels[0, count) with the highest partial sums, not offered yet
  // and allowed, into the heap (heapSelect()).
  template <typename Allow>
  size_t HeapSelect(const uint32_t* labels, uint32_t count, size_t k, Allow allowed) {
    HeapStart(k);
    size_t size = 0;
    const size_t extent = ix_.extent;
    for (uint32_t j = 0; j < count; j++) {
      const uint32_t label = labels[j];
      if (j + kAhead < count && labels[j + kAhead] < extent) __builtin_prefetch(acc_ + labels[j + kAhead]);
      const double v = acc_[label];
      if (size == k && v <= heapValues_[0]) continue;
      if (Offered(label) || !allowed(label)) continue;
      HeapKeep(label, v, k, size);
    }
    return size;
  }

  // --- top-k bookkeeping (TopRanks): θ is the k-th best float32 rank offered so far.
  void StartTop(size_t k) {
    k_ = k;
    top_.Reset(k);
  }
  bool Full() const { return top_.Full(); }
  double Theta() const { return top_.Theta(); }
  double Cutoff() const { return Full() ? Theta() - kRelMargin * std::fabs(Theta()) - slack_ : -INFINITY; }
  void Offer(uint32_t label, double score) { top_.Offer(label, score); }
  // Labels offered whose rank reaches the final θ: the exact top k and every tie of its last.
  std::vector<uint32_t> Kept() const { return top_.Kept(); }

  // Raises θ while pruned() gathers: scores exactly the k best partial sums not offered
  // yet. The first estimate reads every touched label's sum; once one has
  // found k, each later one reads only the labels listed since (List()), which hold all
  // it could pick. Why: the sums are read at random, and reading every touched one at
  // each estimate took 146 of step 1's 407 µs per query at 100k records of the bench's
  // data (28.5k sums read); listing costs the gathering ~30 µs, after which the
  // estimates take 42 µs (about 200 sums read, and their exact scores).
  //
  // Invariant (while bar_ is finite): every touched label that is allowed, not offered
  // and whose sum exceeds bar_ is in listed_. It holds when an estimate sets bar_ to the
  // least of the k sums it picked, for every allowed label above that was picked (and is
  // now offered); and Gather() lists a label when its sum crosses bar_ upwards. Each
  // estimate picks every listed label that qualifies or k better ones, so once they are
  // offered no qualifying label is left above bar_ and the list starts empty again; bar_
  // only rises, which keeps the invariant.
  template <typename Allow>
  void EstimateTheta(uint32_t count, Allow allowed) {
    const bool tracking = bar_ != INFINITY;
    const size_t size = tracking ? HeapSelect(listed_, listedCount_, k_, allowed) : HeapSelect(touched_, count, k_, allowed);
    // heapValues_[0] is the least of the k sums picked (HeapSelect's min-heap).
    if (size == k_ && (!tracking || heapValues_[0] > bar_)) bar_ = heapValues_[0];
    ClearListed();
    OfferHeap(size);
  }

  // Scores exactly and offers the `size` labels HeapSelect() left in the heap.
  void OfferHeap(size_t size) {
    const uint32_t* best = heapLabels_.data();
    for (size_t j = 0; j < size; j++) {
      PrefetchDot(best, j, size);
      MarkOffered(best[j]);
      Offer(best[j], Dot(best[j]));
    }
  }

  // plain(): every list in dimension order; acc then holds the exact sums.
  template <typename Allow>
  void Plain(Allow allowed) {
    static_assert(std::is_same<Sum, double>::value, "plain() offers the sums as scores: they must be exact");
    uint32_t count = 0;
    for (const Term& t : q_.terms) count = Gather(t);
    for (uint32_t j = 0; j < count; j++) {
      const uint32_t label = touched_[j];
      if (allowed(label)) Offer(label, acc_[label]);
    }
  }

  // pruned(): MaxScore, exact for any query weights (bounds never below 0).
  template <typename Allow>
  void Pruned(Allow allowed, double pairsPerRecord) {
    Bounds(true);
    const size_t m = order_.size();
    const Term* terms = q_.terms.data();
    uint32_t count = 0;
    size_t nextTheta = k_;
    size_t i = 0;
    while (i < m && restFrom_[i] >= Cutoff()) {
      count = Gather(terms[order_[i]]);
      i++;
      if (count >= nextTheta) {
        EstimateTheta(count, allowed);
        nextTheta = size_t(count) * kThetaRefreshGrowth;
      }
    }

    // Survivors under the θ known so far, then the best partial sums among them scored to
    // raise θ (pruned()'s step 1 ends there), then the survivors narrowed by the new θ.
    // The survivors' pass picks the k best of them on the way (HeapKeep()), which are then
    // scored exactly.
    uint32_t alive = 0;
    double need = Cutoff() - restFrom_[i];
    HeapStart(k_);
    size_t best = 0;
    double floor = -INFINITY;  // the heap's least sum once it holds k, which a sum must beat
    ForEachTouched([&](uint32_t label) {
      const double a = acc_[label];
      survivors_[alive] = label;
      survivorAcc_[alive] = a;
      const bool survives = (a >= need) & !Offered(label) & allowed(label);
      alive += survives;
      // One branch, rarely taken once the heap is full (survives alone is a coin flip).
      if (survives & (a > floor)) {
        HeapKeep(label, a, k_, best);
        if (best == k_) floor = heapValues_[0];
      }
    });
    OfferHeap(best);
    need = Cutoff() - restFrom_[i];
    const double dotCost = pairsPerRecord + double(q_.n);
    SurvivorMarks marks(*this, alive, [&](uint32_t j, uint32_t label) { return (survivorAcc_[j] >= need) & !Offered(label); });
    while (i < m && alive > 0 && double(terms[order_[i]].length) < alive * dotCost) {
      AddToSurvivors(terms[order_[i]]);
      i++;
      alive = Narrow(alive, Cutoff() - restFrom_[i]);
    }

    const double rest = restFrom_[i];
    for (uint32_t j = 0; j < alive; j++) {
      PrefetchDot(survivors_, j, alive);
      const uint32_t label = survivors_[j];
      if (acc_[label] + rest < Cutoff()) continue;
      Offer(label, Dot(label));
    }
  }

  // candidates(): the n best partial sums over the highest-bound lists covering `coverage`,
  // best first (equal sums by label), as SparseIndex.candidates() orders them.
  std::vector<uint32_t> Candidates(size_t n, double coverage) {
    static_assert(std::is_same<Sum, double>::value, "candidates() orders by the sums as JavaScript does");
    Bounds();
    const double total = restFrom_[0];
    uint32_t count = 0;
    double covered = 0;
    for (size_t i = 0; i < order_.size(); i++) {
      const Term& t = q_.terms[order_[i]];
      const double b = BoundOf(t);
      if (count > 0 && (covered >= coverage * total || b == 0)) break;
      count = Gather(t);
      covered += b;
    }
    std::vector<std::pair<double, uint32_t>> best;
    if (count <= n) {
      best.reserve(count);
      for (uint32_t j = 0; j < count; j++) best.emplace_back(acc_[touched_[j]], touched_[j]);
    } else {
      const size_t size = HeapSelect(touched_, count, n, [](uint32_t) { return true; });
      best.reserve(size);
      for (size_t j = 0; j < size; j++) best.emplace_back(heapValues_[j], heapLabels_[j]);
    }
    std::sort(best.begin(), best.end(), [](const std::pair<double, uint32_t>& a, const std::pair<double, uint32_t>& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    std::vector<uint32_t> out(best.size());
    for (size_t j = 0; j < best.size(); j++) out[j] = best[j].second;
    return out;
  }

  // reaching(): every label scoring ≥ tau (none clearly below); false when over a limit.
  bool Reaching(double tau, double maxPostings, double maxRecords, double pairsPerRecord, std::vector<uint32_t>* out) {
    Bounds();
    const size_t m = order_.size();
    const Term* terms = q_.terms.data();
    const double floor = tau - kRelMargin * tau - slack_;
    double needed = 0;
    for (size_t i = 0; i < m && restFrom_[i] >= floor; i++) needed += terms[order_[i]].length;
    if (needed > maxPostings) return false;
    uint32_t count = 0;
    size_t i = 0;
    while (i < m && restFrom_[i] >= floor) count = Gather(terms[order_[i++]]);
    uint32_t alive = 0;
    double need = floor - restFrom_[i];
    for (uint32_t j = 0; j < count; j++) {
      const uint32_t label = touched_[j];
      survivors_[alive] = label;
      alive += acc_[label] >= need;
    }
    const double dotCost = pairsPerRecord + double(q_.n);
    SurvivorMarks marks(*this, alive, [](uint32_t, uint32_t) { return true; });
    for (; i < m && alive > 0; i++) {
      const Term& t = terms[order_[i]];
      // maxPostings bounds every entry read, these too (then the survivors decide).
      if (double(t.length) >= alive * dotCost || needed + t.length > maxPostings) break;
      needed += t.length;
      AddToSurvivors(t);
      alive = Narrow(alive, floor - restFrom_[i + 1]);
    }
    if (alive > maxRecords) return false;
    for (uint32_t j = 0; j < alive; j++) {
      const uint32_t label = survivors_[j];
      if (acc_[label] + restFrom_[i] >= floor && Dot(label) >= floor) out->push_back(label);
    }
    return true;
  }

 private:
  static double BoundOf(const Term& t) {
    const double w = t.weight;
    const double b = w >= 0 ? w * t.max : w * t.min;
    return b > 0 ? b : 0;
  }

  const Query& q_;
  const Index& ix_;
  const QueryDims dims_;
  Sum* acc_;
  uint64_t* touchedBits_;
  uint64_t* offeredBits_;
  std::vector<uint32_t>* offered_;
  uint32_t touchedCount_ = 0;
  uint64_t* marks_;
  uint32_t* listed_;
  uint64_t* listedBits_;
  uint32_t listedCount_ = 0;
  // EstimateTheta()'s bar: +∞ (nothing listed) until an estimate has found k sums.
  double bar_ = INFINITY;
  uint32_t* touched_;
  uint32_t* survivors_;
  double* survivorAcc_;
  std::vector<uint32_t> order_;
  std::vector<double> restFrom_;
  double slack_ = 1e-30;
  std::vector<uint32_t> heapLabels_;
  std::vector<double> heapValues_;
  size_t k_ = 0;
  TopRanks top_;
};

napi_value toArray(napi_env env, const std::vector<uint32_t>& labels) {
  napi_value buffer, array;
  void* data;
  if (napi_create_arraybuffer(env, labels.size() * sizeof(uint32_t), &data, &buffer) != napi_ok) return nullptr;
  if (!labels.empty()) std::memcpy(data, labels.data(), labels.size() * sizeof(uint32_t));
  if (napi_create_typedarray(env, napi_uint32_array, labels.size(), buffer, 0, &array) != napi_ok) return nullptr;
  return array;
}

// sparseSearch()'s answer for one query: `strategy` 0 plain, 1 MaxScore; `allow` a
// Bitmap's words (`allowWords` of them) or null for every label. Runs on the calling
// thread, with its Scratch; throws Corrupt.
std::vector<uint32_t> TopLabels(const Query& q, const Index& ix, uint32_t k, uint32_t strategy, const uint32_t* allow, size_t allowWords,
                                double pairsPerRecord) {
  const auto all = [](uint32_t) { return true; };
  const auto some = [allow, allowWords](uint32_t label) { return (label >> 5) < allowWords && ((allow[label >> 5] >> (label & 31)) & 1) != 0; };
  if (strategy == 0) {
    Search<double> s(q, ix);
    s.StartTop(k);
    if (allow) s.Plain(some);
    else s.Plain(all);
    return s.Kept();
  }
  Search<float> s(q, ix);
  s.StartTop(k);
  if (allow) s.Pruned(some, pairsPerRecord);
  else s.Pruned(all, pairsPerRecord);
  return s.Kept();
}


// ---------------------------------------------------------------------------------------
// Head-column search (sparseSearchHead): exact top k with no filter, for queries where some
// terms with weights ≥ 0 have head columns (src/engine/sparse/head-columns.ts: the
// dimensions held by ≥ 1/8 of the records, one byte per label).
//
// Why: on learned-sparse data most of a query's postings are in a few frequent dimensions
// (at 100k of the bench's records, 30-term queries: 763k postings, 12 terms with columns).
// MaxScore reads their lists at random and still must gather ~27k postings however good
// its θ (bench/sparse-bounds.ts). Here the labels are walked in blocks of kHeadBlock:
// 1. head terms: every label's codes added with 16-bit integer SIMD (32 labels per
//    instruction), about 6 µs per column of 100k labels;
// 2. the other terms (tail): their lists walked by a cursor over the block's labels (the
//    lists' sorted prefix, postings.ts), adds into an L1-resident block of sums; entries
//    past the sorted prefix are added before the walk into per-label sums (pre);
// 3. the labels whose approximate score A may reach the k-th best are kept, and scored
//    exactly at the end (QueryDims::Dot(), the same float64 sum as SparseStore.dot()).
// At 100k of the bench's records, in process (a prototype, 200 queries, same answers as
// brute force on all): head 70 µs, tail 75, selection 29, ~11 labels scored exactly;
// p50 236-271 µs against 596-627 µs for MaxScore in the same minutes.
//
// Exactness. For a present label (sharing a dimension with the query) with exact score S:
// |A − S| ≤ c = E + slack, where
//   E     = Σ over head terms of (w·step + 1.5·unit): a code is within one step of its
//           weight (head-columns.ts), and a product's 16-bit share within 1.5 units of
//           w·code·step (the query weight's rounding to qc, at most half a unit times
//           code/256 < 1, plus the floor);
//   slack = float32 rounding of A's adds and products, (tail terms + 2) · 2^-23 of the
//           magnitudes involved (bsum).
// k labels have S ≥ A_k − c (A_k: the k-th best A), so the k-th best exact score θ is at
// least that; a label with A < A_k − 2c − kRelMargin·(|A_k| + 2c) has S below θ by more
// than half a float32 ulp of θ, so its float32 rank is below θ's: it cannot be in the top
// k, nor tie with its last. Every other present label is scored exactly.
// The 16-bit sums never wrap: unit is chosen so that Σ qc ≤ kHeadUnits + n/2 ≤ 65,024
// (n ≤ 2048 terms), and a label adds at most 255·qc/256 per term.
// Presence: a code is non-zero exactly when the label has a value there; a tail entry
// counts only when live (its generation is the label's).
//
// Thread rule: as the rest of this file; the block buffers are thread_local (HeadScratch).
constexpr uint32_t kHeadBlock = 4096;
constexpr double kHeadUnits = 64000;
// Below float's largest value (3.4e38) with room for the rounding of the sums.
constexpr double kFloatSafe = 1e38;
// How far ahead of the label it reads the head pass requests a column's memory (bytes).
// A prefetch past a column's end is harmless (no fault).
constexpr uint32_t kColumnAhead = 1024;
// How far ahead of the entry it reads the walk requests a list's memory (words: 768 bytes).
constexpr size_t kWalkAhead = 192;

struct HeadTerm {
  const uint8_t* codes;
  uint32_t qc;
};

struct TailTerm {
  const uint32_t* at;   // cursor in the sorted prefix
  const uint32_t* end;  // end of the sorted prefix
  bool stale;
  float weight;
};

// Invariant between searches: every pre and prePres entry is 0 (a search clears what it
// set, HeadSearch's destructor included).
struct HeadScratch {
  alignas(32) float acc[kHeadBlock];
  alignas(32) uint8_t pres[kHeadBlock];
  uint32_t hits[kHeadBlock];
  std::vector<float> pre;
  std::vector<uint8_t> prePres;
};
thread_local HeadScratch headScratch;

// acc[i] = unit · Σ_h floor(codes_h[base + i] · qc_h / 256) and pres[i] = OR of the codes,
// for i in [0, m) (m a multiple of 32; the columns are padded to 32 labels). The same
// integers on both paths: the AVX2 one multiplies code·256 by qc keeping the high 16 bits.
#ifdef CONIFER_HEAD_AVX2
__attribute__((target("avx2"))) void HeadBlockAvx2(const HeadTerm* terms, size_t n, uint32_t base, uint32_t m, float unit, float* acc, uint8_t* pres) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256 u = _mm256_set1_ps(unit);
  for (uint32_t i = 0; i < m; i += 32) {
    __m256i lo = zero, hi = zero, any = zero;
    for (size_t h = 0; h < n; h++) {
      if ((i & 63) == 0) _mm_prefetch(reinterpret_cast<const char*>(terms[h].codes + base + i + kColumnAhead), _MM_HINT_T0);
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(terms[h].codes + base + i));
      const __m256i q = _mm256_set1_epi16(static_cast<short>(terms[h].qc));
      any = _mm256_or_si256(any, c);
      lo = _mm256_add_epi16(lo, _mm256_mulhi_epu16(_mm256_unpacklo_epi8(zero, c), q));
      hi = _mm256_add_epi16(hi, _mm256_mulhi_epu16(_mm256_unpackhi_epi8(zero, c), q));
    }
    // unpacklo/hi work within 128-bit halves: lo holds labels 0-7 and 16-23, hi 8-15 and 24-31.
    _mm256_store_ps(acc + i, _mm256_mul_ps(u, _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(lo)))));
    _mm256_store_ps(acc + i + 8, _mm256_mul_ps(u, _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(hi)))));
    _mm256_store_ps(acc + i + 16, _mm256_mul_ps(u, _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(lo, 1)))));
    _mm256_store_ps(acc + i + 24, _mm256_mul_ps(u, _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(hi, 1)))));
    _mm256_store_si256(reinterpret_cast<__m256i*>(pres + i), any);
  }
}

#endif

void HeadBlockPlain(const HeadTerm* terms, size_t n, uint32_t base, uint32_t m, float unit, float* acc, uint8_t* pres) {
  for (uint32_t i = 0; i < m; i++) {
    uint32_t sum = 0;
    uint8_t any = 0;
    for (size_t h = 0; h < n; h++) {
      const uint8_t c = terms[h].codes[base + i];
      sum += (uint32_t(c) * terms[h].qc) >> 8;
      any |= c;
    }
    acc[i] = unit * float(sum);
    pres[i] = any;
  }
}

using HeadBlockFn = void (*)(const HeadTerm*, size_t, uint32_t, uint32_t, float, float*, uint8_t*);

// Writes to out the i in [0, m) with pres[i] != 0 and acc[i] ≥ bar (m a multiple of 8);
// returns how many. NaN never passes.
#ifdef CONIFER_HEAD_AVX2
__attribute__((target("avx2"))) uint32_t SelectAvx2(const float* acc, const uint8_t* pres, uint32_t m, float bar, uint32_t* out) {
  uint32_t n = 0;
  const __m256 b = _mm256_set1_ps(bar);
  const __m256i zero = _mm256_setzero_si256();
  for (uint32_t i = 0; i < m; i += 8) {
    const __m256 ge = _mm256_cmp_ps(_mm256_load_ps(acc + i), b, _CMP_GE_OQ);
    const __m256i p = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(pres + i)));
    unsigned mask = unsigned(_mm256_movemask_ps(_mm256_and_ps(ge, _mm256_castsi256_ps(_mm256_cmpgt_epi32(p, zero)))));
    while (mask) {
      out[n++] = i + unsigned(__builtin_ctz(mask));
      mask &= mask - 1;
    }
  }
  return n;
}

#endif

uint32_t SelectPlain(const float* acc, const uint8_t* pres, uint32_t m, float bar, uint32_t* out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < m; i++) {
    out[n] = i;
    n += (pres[i] != 0) & (acc[i] >= bar);
  }
  return n;
}

using SelectFn = uint32_t (*)(const float*, const uint8_t*, uint32_t, float, uint32_t*);

// The AVX2 kernels when the CPU has AVX2 (__builtin_cpu_supports also checks that the OS
// saves its registers) and CONIFER_SPARSE_AVX2 is not "0" (tests run the plain ones so);
// chosen once.
bool UseAvx2() {
#ifdef CONIFER_HEAD_AVX2
  const char* setting = std::getenv("CONIFER_SPARSE_AVX2");
  if (setting && std::strcmp(setting, "0") == 0) return false;
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}
const bool useAvx2 = UseAvx2();
#ifdef CONIFER_HEAD_AVX2
const HeadBlockFn headBlock = useAvx2 ? HeadBlockAvx2 : HeadBlockPlain;
const SelectFn selectHits = useAvx2 ? SelectAvx2 : SelectPlain;
#else
const HeadBlockFn headBlock = HeadBlockPlain;
const SelectFn selectHits = SelectPlain;
#endif

// The largest float not above x (the selection's bar as a float: never above the double).
inline float FloatAtMost(double x) {
  float f = float(x);
  if (double(f) > x) f = std::nextafter(f, -INFINITY);
  return f;
}

class HeadSearch {
 public:
  HeadSearch(const Query& q, const Index& ix, uint32_t labelEnd) : q_(q), ix_(ix), labelEnd_(labelEnd), s_(headScratch) {}
  ~HeadSearch() {
    // Only after an exception: a finished search cleared every pre entry block by block.
    if (preDirty_) {
      std::fill(s_.pre.begin(), s_.pre.begin() + labelEnd_, 0.0f);
      std::fill(s_.prePres.begin(), s_.prePres.begin() + labelEnd_, 0);
    }
  }
  HeadSearch(const HeadSearch&) = delete;
  HeadSearch& operator=(const HeadSearch&) = delete;

  // False when scores may leave float's range (the sums here are float32; MaxScore's exact
  // float64 ones rank such scores as Rank32() does): the caller then runs MaxScore instead.
  bool Prepare(const uint8_t* const* columns, const double* steps, const uint32_t* sorted) {
    double qsSum = 0;
    std::vector<double> qs;
    for (uint32_t t = 0; t < q_.n; t++) {
      if (!columns[t] || !(q_.weights[t] >= 0)) continue;
      const double v = double(q_.weights[t]) * steps[t];
      head_.push_back({columns[t], 0});
      qs.push_back(v);
      qsSum += v;
    }
    // With every head weight 0 the head terms only mark presence: unit 0, no error.
    unit_ = qsSum > 0 ? float(qsSum * 256 / kHeadUnits) : 0.0f;
    if (qsSum > 0 && !(unit_ > 0)) return false;  // below float's range
    double e = 0;
    for (size_t h = 0; h < head_.size(); h++) {
      head_[h].qc = uint32_t(std::lround(qs[h] * 256 / double(unit_)));
      e += qs[h] + 1.5 * double(unit_);
    }
    double bsum = double(unit_) * 65535;
    for (const Term& t : q_.terms) {
      if (columns[t.pos] && t.weight >= 0) continue;
      const uint32_t* entries = t.entries;
      const uint32_t prefix = std::min(sorted[t.pos], t.length);
      tail_.push_back({entries, entries + 3 * size_t(prefix), t.stale, t.weight});
      if (prefix < t.length) unsorted_.push_back({entries + 3 * size_t(prefix), entries + 3 * size_t(t.length), t.stale, t.weight});
      bsum += std::fabs(double(t.weight)) * std::max(std::fabs(t.max), std::fabs(t.min));
    }
    // Every sum and product here is at most bsum in magnitude, so none overflows a float.
    if (!(bsum < kFloatSafe)) return false;
    const double slack = double(tail_.size() + 2) * kFloatRounding * bsum;
    c_ = e + slack;
    return true;
  }

  std::vector<uint32_t> Run(uint32_t k) {
    if (!unsorted_.empty()) AddUnsorted();
    std::vector<float> best;  // min-heap of the k best A among present labels
    best.reserve(k);
    std::vector<std::pair<uint32_t, float>> kept;
    float bar = -INFINITY;
    for (uint32_t base = 0; base < labelEnd_; base += kHeadBlock) {
      const uint32_t m = std::min(kHeadBlock, labelEnd_ - base);
      const uint32_t padded = (m + 31) & ~31u;
      headBlock(head_.data(), head_.size(), base, padded, unit_, s_.acc, s_.pres);
      if (preDirty_) {
        for (uint32_t i = 0; i < m; i++) {
          s_.acc[i] += s_.pre[base + i];
          s_.pres[i] |= s_.prePres[base + i];
          s_.pre[base + i] = 0;
          s_.prePres[base + i] = 0;
        }
      }
      for (TailTerm& t : tail_) Walk(t, base, m);
      const uint32_t hits = selectHits(s_.acc, s_.pres, padded, bar, s_.hits);
      for (uint32_t j = 0; j < hits; j++) {
        const uint32_t i = s_.hits[j];
        const float a = s_.acc[i];
        if (!(a >= bar)) continue;  // the bar rose within this block
        kept.push_back({base + i, a});
        if (best.size() < k) {
          best.push_back(a);
          std::push_heap(best.begin(), best.end(), std::greater<float>());
        } else if (a > best.front()) {
          std::pop_heap(best.begin(), best.end(), std::greater<float>());
          best.back() = a;
          std::push_heap(best.begin(), best.end(), std::greater<float>());
        }
        if (best.size() == k) bar = Bar(best.front());
      }
    }
    preDirty_ = false;
    for (const TailTerm& t : tail_) {
      if (t.at != t.end) throw Corrupt();  // a sorted prefix out of order, or labels past labelEnd
    }
    const QueryDims dims(q_.dims, q_.weights, q_.n);
    TopRanks top(k);
    for (const auto& [label, a] : kept) {
      if (a >= bar) top.Offer(label, dims.Dot(ix_, label));
    }
    return top.Kept();
  }

 private:
  // The bar below which a label cannot be in the top k, given the k-th best A (above).
  float Bar(float ak) const {
    const double a = ak;
    return FloatAtMost(a - 2 * c_ - kRelMargin * (std::fabs(a) + 2 * c_));
  }

  // Adds the tail entries of labels in [base, base + m) (sorted: they come next).
  void Walk(TailTerm& t, uint32_t base, uint32_t m) {
    const uint32_t* e = t.at;
    const float w = t.weight;
    if (!t.stale) {
      for (; e < t.end; e += 3) {
        const uint32_t i = e[0] - base;  // a label below base wraps above m: Run() reports it
        if (i >= m) break;
        __builtin_prefetch(e + kWalkAhead);
        s_.acc[i] += w * entryWeight(e + 2);
        s_.pres[i] = 1;
      }
    } else {
      for (; e < t.end; e += 3) {
        const uint32_t i = e[0] - base;
        if (i >= m) break;
        __builtin_prefetch(e + kWalkAhead);
        if (ix_.gen[e[0]] != e[1]) continue;
        s_.acc[i] += w * entryWeight(e + 2);
        s_.pres[i] = 1;
      }
    }
    t.at = e;
  }

  // Adds the entries past the lists' sorted prefixes into per-label sums (pre).
  void AddUnsorted() {
    if (s_.pre.size() < labelEnd_) {
      s_.pre.resize(labelEnd_, 0.0f);
      s_.prePres.resize(labelEnd_, 0);
    }
    preDirty_ = true;
    for (const TailTerm& t : unsorted_) {
      for (const uint32_t* e = t.at; e < t.end; e += 3) {
        const uint32_t label = e[0];
        if (label >= labelEnd_) throw Corrupt();
        if (t.stale && ix_.gen[label] != e[1]) continue;
        s_.pre[label] += t.weight * entryWeight(e + 2);
        s_.prePres[label] = 1;
      }
    }
  }

  const Query& q_;
  const Index& ix_;
  const uint32_t labelEnd_;
  HeadScratch& s_;
  std::vector<HeadTerm> head_;
  std::vector<TailTerm> tail_;
  std::vector<TailTerm> unsorted_;
  float unit_ = 1;
  double c_ = 0;
  bool preDirty_ = false;
};

// A query's head-column arguments (sparseSearchHead()'s columns, steps, sorted, labelEnd).
struct HeadArgs {
  std::vector<const uint8_t*> columns;
  const double* steps = nullptr;
  const uint32_t* sorted = nullptr;
  uint32_t labelEnd = 0;
};

// Parses argv[0..4) as columns, steps, sorted, labelEnd for the query; false after throwing.
bool parseHead(napi_env env, napi_value* argv, const Query& q, const Index& ix, HeadArgs* out) {
  void* data;
  size_t length;
  if (napi_get_value_uint32(env, argv[3], &out->labelEnd) != napi_ok || out->labelEnd > ix.extent) return fail(env, "sparseSearchHead: labelEnd must be an integer no larger than the generation table"), false;
  if (!typedArray(env, argv[1], napi_float64_array, &data, &length) || length != q.n) return fail(env, "sparseSearchHead: steps must be a Float64Array as long as dims"), false;
  out->steps = static_cast<const double*>(data);
  if (!typedArray(env, argv[2], napi_uint32_array, &data, &length) || length != q.n) return fail(env, "sparseSearchHead: sorted must be a Uint32Array as long as dims"), false;
  out->sorted = static_cast<const uint32_t*>(data);
  bool isArray = false;
  uint32_t count;
  if (napi_is_array(env, argv[0], &isArray) != napi_ok || !isArray || napi_get_array_length(env, argv[0], &count) != napi_ok || count != q.n) {
    return fail(env, "sparseSearchHead: columns must be an array with one entry per dimension"), false;
  }
  const size_t need = (size_t(out->labelEnd) + 31) & ~size_t(31);
  out->columns.assign(q.n, nullptr);
  for (uint32_t t = 0; t < count; t++) {
    napi_value column;
    if (napi_get_element(env, argv[0], t, &column) != napi_ok) return fail(env, "sparseSearchHead: columns must be an array with one entry per dimension"), false;
    if (isNullish(env, column)) continue;
    if (!typedArray(env, column, napi_uint8_array, &data, &length) || length < need) return fail(env, "sparseSearchHead: every column must be a Uint8Array of at least labelEnd rounded up to 32"), false;
    if (!(out->steps[t] > 0) || !std::isfinite(out->steps[t])) return fail(env, "sparseSearchHead: a column's step must be a positive finite number"), false;
    out->columns[t] = static_cast<const uint8_t*>(data);
  }
  return true;
}

// sparseSearchHead()'s answer for one query (MaxScore when HeadSearch::Prepare() declines);
// throws Corrupt.
std::vector<uint32_t> HeadTopLabels(const Query& q, const Index& ix, uint32_t k, const HeadArgs& head) {
  HeadSearch search(q, ix, head.labelEnd);
  if (search.Prepare(head.columns.data(), head.steps, head.sorted)) return search.Run(k);
  return TopLabels(q, ix, k, 1, nullptr, 0, 0);
}

napi_value corrupt(napi_env env) {
  napi_throw_error(env, nullptr, "sparse: a postings entry or label lies outside the index's arrays");
  return nullptr;
}

}  // namespace

napi_value SparseSearch(napi_env env, napi_callback_info info) {
  size_t argc = 9;
  napi_value argv[9];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != 9) return fail(env, "sparseSearch: 9 arguments expected");
  Query q;
  Index ix;
  if (!parse(env, argv, &q, &ix)) return nullptr;
  const uint32_t* allow = nullptr;
  size_t allowWords = 0;
  if (!isNullish(env, argv[5])) {
    void* data;
    if (!typedArray(env, argv[5], napi_uint32_array, &data, &allowWords)) return fail(env, "sparseSearch: allow must be a Uint32Array of bitmap words or null");
    allow = static_cast<const uint32_t*>(data);
  }
  uint32_t k, strategy;
  double pairsPerRecord;
  if (napi_get_value_uint32(env, argv[6], &k) != napi_ok || k == 0) return fail(env, "sparseSearch: k must be a positive integer");
  if (napi_get_value_uint32(env, argv[7], &strategy) != napi_ok || strategy > 1) return fail(env, "sparseSearch: strategy must be 0 (plain) or 1 (MaxScore)");
  if (!number(env, argv[8], &pairsPerRecord) || pairsPerRecord < 0) return fail(env, "sparseSearch: pairsPerRecord must be a number >= 0");
  try {
    return toArray(env, TopLabels(q, ix, k, strategy, allow, allowWords, pairsPerRecord));
  } catch (const Corrupt&) {
    return corrupt(env);
  }
}

// sparseSearchMany(queries: Array of [lists, meta, dims, weights], state, allow: Array of
// Uint32Array | null, k: Uint32Array, strategy, pairsPerRecord, threads): sparseSearch()
// for each query over one index (MaxScore or plain as `strategy`), the queries shared over
// up to `threads` threads (this one and helpers of the shared HelperPool, all done before
// it returns), as an Array of Uint32Arrays in query order. Every argument is read here,
// on the calling thread; each search runs on one thread with that thread's own Scratch
// (thread_local), and only reads the arrays, which the owner thread cannot change while
// it is inside this call.
napi_value SparseSearchMany(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  const char* usage = "sparseSearchMany(queries: ([lists, meta, dims, weights] | [lists, meta, dims, weights, columns, steps, sorted, labelEnd])[], state, allow: (Uint32Array | null)[], k: Uint32Array, strategy, pairsPerRecord, threads)";
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != 7) return fail(env, usage);
  bool isArray = false, allowIsArray = false;
  uint32_t count = 0, allowCount = 0, strategy, threads;
  void* kdata;
  size_t kcount;
  double pairsPerRecord;
  if (napi_is_array(env, argv[0], &isArray) != napi_ok || !isArray || napi_get_array_length(env, argv[0], &count) != napi_ok ||
      napi_is_array(env, argv[2], &allowIsArray) != napi_ok || !allowIsArray || napi_get_array_length(env, argv[2], &allowCount) != napi_ok ||
      allowCount != count || !typedArray(env, argv[3], napi_uint32_array, &kdata, &kcount) || kcount != count ||
      napi_get_value_uint32(env, argv[4], &strategy) != napi_ok || strategy > 1 || !number(env, argv[5], &pairsPerRecord) ||
      pairsPerRecord < 0 || napi_get_value_uint32(env, argv[6], &threads) != napi_ok || threads == 0 || threads > 1024)
    return fail(env, usage);
  const uint32_t* ks = static_cast<const uint32_t*>(kdata);
  std::vector<Query> queries(count);
  std::vector<const uint32_t*> allow(count, nullptr);
  std::vector<size_t> allowWords(count, 0);
  // Queries given with head-column arguments run HeadSearch (sparseSearchHead()).
  std::vector<bool> byHead(count, false);
  std::vector<HeadArgs> heads(count);
  Index ix;
  for (uint32_t i = 0; i < count; i++) {
    napi_value query, args[5], headArgs[4], entry;
    bool parts = false;
    uint32_t partCount = 0;
    if (napi_get_element(env, argv[0], i, &query) != napi_ok || napi_is_array(env, query, &parts) != napi_ok || !parts ||
        napi_get_array_length(env, query, &partCount) != napi_ok || (partCount != 4 && partCount != 8) || ks[i] == 0)
      return fail(env, "sparseSearchMany: each query is [lists, meta, dims, weights] or those and [columns, steps, sorted, labelEnd], with a positive k");
    for (uint32_t a = 0; a < 4; a++) {
      if (napi_get_element(env, query, a, &args[a]) != napi_ok) return fail(env, usage);
    }
    args[4] = argv[1];
    if (!parse(env, args, &queries[i], &ix)) return nullptr;
    if (partCount == 8) {
      for (uint32_t a = 0; a < 4; a++) {
        if (napi_get_element(env, query, 4 + a, &headArgs[a]) != napi_ok) return fail(env, usage);
      }
      if (!parseHead(env, headArgs, queries[i], ix, &heads[i])) return nullptr;
      byHead[i] = true;
    }
    if (napi_get_element(env, argv[2], i, &entry) != napi_ok) return fail(env, usage);
    if (isNullish(env, entry)) continue;
    void* data;
    if (!typedArray(env, entry, napi_uint32_array, &data, &allowWords[i])) return fail(env, "sparseSearchMany: each allow is a Uint32Array of bitmap words or null");
    allow[i] = static_cast<const uint32_t*>(data);
    if (byHead[i]) return fail(env, "sparseSearchMany: a query with head-column arguments takes no allow");
  }
  std::vector<std::vector<uint32_t>> kept(count);
  std::atomic<size_t> next{0};
  std::atomic<bool> corrupted{false};
  std::mutex failed;
  std::string error;
  // Takes the next query not yet taken until none is left (run by every thread).
  auto work = [&] {
    for (size_t i = next++; i < count; i = next++) {
      try {
        kept[i] = byHead[i] ? HeadTopLabels(queries[i], ix, ks[i], heads[i]) : TopLabels(queries[i], ix, ks[i], strategy, allow[i], allowWords[i], pairsPerRecord);
      } catch (const Corrupt&) {
        corrupted = true;
        next = count;
      } catch (const std::exception& err) {
        std::lock_guard<std::mutex> lock(failed);
        if (error.empty()) error = err.what();
        next = count;
      }
    }
  };
  conifer_native::HelperPool::Shared().Run(count > 1 ? std::min<size_t>(threads, count) - 1 : 0, work);
  if (corrupted) return corrupt(env);
  if (!error.empty()) return fail(env, ("sparseSearchMany: " + error).c_str());
  napi_value out;
  if (napi_create_array_with_length(env, count, &out) != napi_ok) return fail(env, "sparseSearchMany: could not allocate the answer");
  for (uint32_t i = 0; i < count; i++) {
    napi_value labels = toArray(env, kept[i]);
    if (!labels || napi_set_element(env, out, i, labels) != napi_ok) return fail(env, "sparseSearchMany: could not allocate the answer");
  }
  return out;
}

napi_value SparseCandidates(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != 7) return fail(env, "sparseCandidates: 7 arguments expected");
  Query q;
  Index ix;
  if (!parse(env, argv, &q, &ix)) return nullptr;
  uint32_t n;
  double coverage;
  if (napi_get_value_uint32(env, argv[5], &n) != napi_ok || n == 0) return fail(env, "sparseCandidates: n must be a positive integer");
  if (!number(env, argv[6], &coverage) || coverage < 0 || coverage > 1) return fail(env, "sparseCandidates: coverage must be a number in [0, 1]");
  try {
    Search<double> s(q, ix);
    return toArray(env, s.Candidates(n, coverage));
  } catch (const Corrupt&) {
    return corrupt(env);
  }
}

napi_value SparseReaching(napi_env env, napi_callback_info info) {
  size_t argc = 9;
  napi_value argv[9];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != 9) return fail(env, "sparseReaching: 9 arguments expected");
  Query q;
  Index ix;
  if (!parse(env, argv, &q, &ix)) return nullptr;
  double tau, maxPostings, maxRecords, pairsPerRecord;
  if (!number(env, argv[5], &tau) || !(tau > 0)) return fail(env, "sparseReaching: tau must be a number > 0");
  if (!number(env, argv[6], &maxPostings) || maxPostings < 0) return fail(env, "sparseReaching: maxPostings must be a number >= 0");
  if (!number(env, argv[7], &maxRecords) || maxRecords < 0) return fail(env, "sparseReaching: maxRecords must be a number >= 0");
  if (!number(env, argv[8], &pairsPerRecord) || pairsPerRecord < 0) return fail(env, "sparseReaching: pairsPerRecord must be a number >= 0");
  try {
    Search<double> s(q, ix);
    std::vector<uint32_t> out;
    if (!s.Reaching(tau, maxPostings, maxRecords, pairsPerRecord, &out)) {
      napi_value undefined;
      napi_get_undefined(env, &undefined);
      return undefined;
    }
    return toArray(env, out);
  } catch (const Corrupt&) {
    return corrupt(env);
  }
}

// sparseSearchHead(lists, meta, dims, weights, state, k, columns, steps, sorted, labelEnd):
// sparseSearch()'s answer with no filter, by HeadSearch above (MaxScore when its sums
// could leave float32's range). columns: per query term a head column's codes (Uint8Array, at least
// labelEnd rounded up to 32 long) or null; steps: Float64Array, per term its column's step;
// sorted: Uint32Array, per term its list's sorted prefix (entries); labelEnd ≤ the
// generation table's length.
napi_value SparseSearchHead(napi_env env, napi_callback_info info) {
  size_t argc = 10;
  napi_value argv[10];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != 10) return fail(env, "sparseSearchHead: 10 arguments expected");
  Query q;
  Index ix;
  if (!parse(env, argv, &q, &ix)) return nullptr;
  uint32_t k;
  if (napi_get_value_uint32(env, argv[5], &k) != napi_ok || k == 0) return fail(env, "sparseSearchHead: k must be a positive integer");
  HeadArgs head;
  if (!parseHead(env, argv + 6, q, ix, &head)) return nullptr;
  try {
    return toArray(env, HeadTopLabels(q, ix, k, head));
  } catch (const Corrupt&) {
    return corrupt(env);
  }
}

napi_value SparseDots(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != 6) return fail(env, "sparseDots: 6 arguments expected");
  void* data;
  size_t n, length;
  if (!typedArray(env, argv[0], napi_uint32_array, &data, &n)) return fail(env, "sparseDots: dims must be a Uint32Array");
  const uint32_t* dims = static_cast<const uint32_t*>(data);
  if (!typedArray(env, argv[1], napi_float32_array, &data, &length) || length != n) return fail(env, "sparseDots: weights must be a Float32Array as long as dims");
  const float* weights = static_cast<const float*>(data);
  Index ix;
  if (!parseState(env, argv[2], &ix)) return nullptr;
  size_t labelsLength, outLength;
  if (!typedArray(env, argv[3], napi_uint32_array, &data, &labelsLength)) return fail(env, "sparseDots: labels must be a Uint32Array");
  const uint32_t* labels = static_cast<const uint32_t*>(data);
  uint32_t count;
  if (napi_get_value_uint32(env, argv[4], &count) != napi_ok || count > labelsLength) return fail(env, "sparseDots: bad count");
  if (!typedArray(env, argv[5], napi_float64_array, &data, &outLength) || outLength < count) return fail(env, "sparseDots: out must be a Float64Array of at least count");
  double* out = static_cast<double*>(data);
  try {
    const QueryDims query(dims, weights, n);
    for (uint32_t i = 0; i < count; i++) out[i] = query.Dot(ix, labels[i]);
  } catch (const Corrupt&) {
    return corrupt(env);
  }
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  return undefined;
}
