// The vectors of a request body, parsed without a JavaScript number each.
//
// JSON.parse spends most of a query's or an upsert's parse on its numbers (a 384-d query
// body of 8 KB: ~55 µs; an upsert of 2 MB: ~150 ms), and the numbers are then converted
// to float32 (sparse indices to uint32) anyway. This finds the vector arrays of a body,
// parses them straight to typed arrays here, and hands back the body's text with each
// such array replaced by `0`, for JSON.parse to do the rest; the caller then puts the
// arrays in place of the zeros.
//
// jsonFloatArrays(bytes, shape) where shape is
//   0 (query)   the value of the top-level object's key "vector";
//   1 (upsert)  in each record (an object directly inside the array that is the value
//               of the top-level object's key "vectors"): the value of its key "values"
//               (kind 0), and in the object that is the value of its key "sparseValues",
//               the values of "values" (kind 1) and "indices" (kind 2).
// returns [rest, values, indices, layout]:
//   rest     the body's text with every array taken replaced by `0` (one latin1 string);
//   values   Float32Array, the numbers of the kind 0 and 1 arrays back to back, in body
//            order;
//   indices  Uint32Array, the numbers of the kind 2 arrays back to back, in body order;
//   layout   Uint32Array, three per array taken, in body order: the index of its record
//            in "vectors" (0 for a query), its kind and its length;
// or undefined when the body is not one this handles (then the caller parses it as
// before, which gives every answer and error message as before). Undefined when:
//   - a byte is outside ASCII or is a backslash (so a string is the bytes between two
//     quotes, with no escapes to decode: json-body.ts only passes such bodies, and this
//     checks again), or the top level is not an object;
//   - one of the keys named above occurs twice in the same object (JSON.parse keeps the
//     last, this would keep the first);
//   - an array to take is empty, or holds anything but JSON numbers, or a number that is
//     not finite as float32 (kinds 0 and 1) or not an integer from 0 to 4294967295
//     (kind 2): JavaScript refuses those with a message naming the value;
//   - nothing was taken (for an upsert, also as soon as the first record is read with
//     nothing taken, so the bodies of an index this does not help are not scanned to the
//     end for nothing).
// The caller must also rule out "__proto__" and "constructor" keys, since JSON.parse alone
// does not refuse them (json-body.ts looks for the words in the rest: the arrays taken
// hold only numbers).
//
// Why the answer is JSON.parse's: each number is checked against JSON's grammar, then
// read by std::from_chars, which rounds correctly to the nearest double as JSON.parse
// does, then rounded to float32, as a Float32Array store of that double does (an index
// is stored as it is, being an integer within uint32; one in plain integer form is read
// digit by digit, which is exact: PlainIndex()). An array is taken only where it is
// a whole value (after `key :`, followed by `,` or `}`), so putting `0` in its place keeps
// every other token as it was: the rest is valid JSON exactly when the body is, and
// JSON.parse of it builds the same objects but for those values.
//
// Thread rule: any thread; keeps nothing between calls but this thread's scratch arrays.
#include "json-floats.h"

#include "arg-checks.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using arg_checks::fail;
using arg_checks::typedArray;

enum class Key : uint8_t { kOther, kVector, kVectors, kValues, kSparseValues, kIndices };

// What an array taken holds (the layout's kind).
enum Kind : uint32_t { kDense = 0, kSparseWeights = 1, kSparseIndices = 2 };

// The containers a body may nest; deeper ones are followed only by their depth.
constexpr int kTracked = 5;

struct Taken {
  size_t begin;  // the array's `[`
  size_t end;    // one past its `]`
  uint32_t record;
  Kind kind;
  uint32_t length;
};

// Per thread, reused: the values and arrays of the body being scanned.
thread_local std::vector<float> threadValues;
thread_local std::vector<uint32_t> threadIndices;
thread_local std::vector<Taken> threadTaken;

inline bool isSpace(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
inline bool isDigit(uint8_t c) { return c >= '0' && c <= '9'; }

class Scanner {
 public:
  // The scratch arrays are held by reference: in a shared object each access to a
  // thread_local is a call (__tls_get_addr), which per number cost more than parsing it.
  Scanner(const uint8_t* p, size_t n, int shape, std::vector<float>& values, std::vector<uint32_t>& indices,
          std::vector<Taken>& taken)
      : p_(p), n_(n), shape_(shape), values_(values), indices_(indices), taken_(taken) {
    values_.clear();
    indices_.clear();
    taken_.clear();
  }

  // False: not a body this handles (see the top of the file).
  bool Run() {
    size_t i = SkipSpace(0);
    if (i >= n_ || p_[i] != '{') return false;
    int depth = 0;
    while (i < n_) {
      const uint8_t c = p_[i];
      if (c >= 0x80 || c == '\\') return false;
      switch (c) {
        case '"': {
          size_t end = i + 1;
          while (end < n_ && p_[end] != '"') {
            if (p_[end] >= 0x80 || p_[end] == '\\') return false;  // an escape or UTF-8: not read here
            end++;
          }
          if (end >= n_) return false;
          if (depth >= 1 && depth <= kTracked && frames_[depth].object && frames_[depth].expectKey) {
            frames_[depth].expectKey = false;
            if (!NoteKey(depth, KeyOf(i + 1, end))) return false;
          }
          i = end + 1;
          break;
        }
        case ':': {
          i = SkipSpace(i + 1);
          Kind kind;
          if (i < n_ && p_[i] == '[' && Wanted(depth, &kind)) {
            size_t after;
            if (!TakeArray(i, kind, &after)) return false;
            const size_t next = SkipSpace(after);
            if (next >= n_ || (p_[next] != ',' && p_[next] != '}')) return false;
            i = after;
          }
          break;
        }
        case '{':
        case '[': {
          depth++;
          if (depth <= kTracked) {
            Frame& f = frames_[depth];
            f.object = c == '{';
            f.expectKey = f.object;
            f.key = Key::kOther;
            f.seen = 0;
            f.records = depth == 2 && !f.object && frames_[1].key == Key::kVectors;
            f.sparse = depth == 4 && f.object && IsRecord(3) && frames_[3].key == Key::kSparseValues;
            f.element = 0;
          }
          i++;
          break;
        }
        case '}':
        case ']': {
          if (shape_ == 1 && IsRecord(depth) && frames_[2].element == 0 && taken_.empty()) {
            return false;  // the first record had nothing to take: nothing to gain here
          }
          depth--;
          i++;
          if (depth == 0) return SkipSpace(i) == n_ && !taken_.empty();
          break;
        }
        case ',': {
          if (depth >= 1 && depth <= kTracked) {
            Frame& f = frames_[depth];
            if (f.object) f.expectKey = true;
            else f.element++;
          }
          i++;
          break;
        }
        default:
          i++;
      }
    }
    return false;  // unbalanced: JSON.parse says so
  }

 private:
  struct Frame {
    bool object;
    bool expectKey;
    bool records;  // the array of the top-level "vectors"
    bool sparse;   // the object of a record's "sparseValues"
    Key key;       // the object's last key, while its value is read
    uint8_t seen;  // the names of Key met in this object, one bit each
    uint32_t element;
  };

  Key KeyOf(size_t begin, size_t end) const {
    const size_t len = end - begin;
    const char* s = reinterpret_cast<const char*>(p_ + begin);
    if (len == 6 && std::memcmp(s, "vector", 6) == 0) return Key::kVector;
    if (len == 7 && std::memcmp(s, "vectors", 7) == 0) return Key::kVectors;
    if (len == 6 && std::memcmp(s, "values", 6) == 0) return Key::kValues;
    if (len == 12 && std::memcmp(s, "sparseValues", 12) == 0) return Key::kSparseValues;
    if (len == 7 && std::memcmp(s, "indices", 7) == 0) return Key::kIndices;
    return Key::kOther;
  }

  // Records a key of the object at `depth`; false when one of the names this looks for
  // repeats in the same object (see the top of the file).
  bool NoteKey(int depth, Key key) {
    Frame& f = frames_[depth];
    f.key = key;
    if (key == Key::kOther) return true;
    const uint8_t bit = uint8_t(1) << static_cast<int>(key);
    if (f.seen & bit) return false;
    f.seen |= bit;
    return true;
  }

  // Whether the container at `depth` is a record (an object directly inside "vectors").
  bool IsRecord(int depth) const { return depth == 3 && frames_[3].object && frames_[2].records; }

  // Whether the value after the `:` just read, at `depth`, is one to take, and its kind.
  bool Wanted(int depth, Kind* kind) const {
    if (shape_ == 0) {
      *kind = kDense;
      return depth == 1 && frames_[1].key == Key::kVector;
    }
    if (IsRecord(depth)) {
      *kind = kDense;
      return frames_[3].key == Key::kValues;
    }
    if (depth == 4 && frames_[4].sparse) {
      *kind = frames_[4].key == Key::kIndices ? kSparseIndices : kSparseWeights;
      return frames_[4].key == Key::kIndices || frames_[4].key == Key::kValues;
    }
    return false;
  }

  size_t SkipSpace(size_t i) const {
    while (i < n_ && isSpace(p_[i])) i++;
    return i;
  }

  // The array of numbers at p_[at] == '[' into values_ (or indices_, for kind
  // kSparseIndices); *after is one past its `]`.
  bool TakeArray(size_t at, Kind kind, size_t* after) {
    const size_t first = kind == kSparseIndices ? indices_.size() : values_.size();
    size_t i = SkipSpace(at + 1);
    if (i < n_ && p_[i] == ']') return false;
    for (;;) {
      if (kind == kSparseIndices) {
        uint32_t index;
        if (!PlainIndex(&i, &index)) {
          double number;
          if (!Number(&i, &number)) return false;
          // Number.isInteger(x) && 0 <= x <= 0xffffffff, as vector-input.ts checks (-0 is 0).
          if (!(number >= 0 && number <= 4294967295.0 && std::floor(number) == number)) return false;
          index = static_cast<uint32_t>(number);
        }
        indices_.push_back(index);
      } else {
        double number;
        if (!Number(&i, &number)) return false;
        const float value = static_cast<float>(number);
        if (!std::isfinite(value)) return false;
        values_.push_back(value);
      }
      i = SkipSpace(i);
      if (i >= n_) return false;
      if (p_[i] == ']') break;
      if (p_[i] != ',') return false;
      i = SkipSpace(i + 1);
    }
    *after = i + 1;
    const uint32_t record = shape_ == 0 ? 0 : frames_[2].element;
    const size_t count = (kind == kSparseIndices ? indices_.size() : values_.size()) - first;
    taken_.push_back({at, *after, record, kind, static_cast<uint32_t>(count)});
    return true;
  }

  // A sparse index written as JSON integers usually are: 1 to 10 digits, no sign, no
  // leading zero, no fraction or exponent, at most 4294967295. Its value is exact in
  // integer arithmetic, so this skips the double conversion (with the bench's hybrid
  // records, 120 indices of ~5 characters each, the whole scan took 0.91-0.93× the time).
  // False, with *at unmoved, for any other token: Number() then reads it (or refuses it)
  // as before.
  bool PlainIndex(size_t* at, uint32_t* out) const {
    const size_t begin = *at;
    size_t i = begin;
    uint64_t value = 0;
    while (i < n_ && isDigit(p_[i]) && i - begin < 11) value = value * 10 + static_cast<uint64_t>(p_[i++] - '0');
    const size_t digits = i - begin;
    if (digits == 0 || digits > 10 || (digits > 1 && p_[begin] == '0') || value > 0xffffffffu) return false;
    if (i < n_ && (p_[i] == '.' || p_[i] == 'e' || p_[i] == 'E')) return false;
    *out = static_cast<uint32_t>(value);
    *at = i;
    return true;
  }

  // One JSON number at *at (RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?),
  // as JSON.parse reads it; false when not one, or outside a double's range.
  bool Number(size_t* at, double* out) const {
    const size_t begin = *at;
    size_t i = begin;
    if (i < n_ && p_[i] == '-') i++;
    if (i >= n_) return false;
    if (p_[i] == '0') {
      i++;
    } else if (p_[i] >= '1' && p_[i] <= '9') {
      while (i < n_ && isDigit(p_[i])) i++;
    } else {
      return false;
    }
    if (i < n_ && p_[i] == '.') {
      i++;
      if (i >= n_ || !isDigit(p_[i])) return false;
      while (i < n_ && isDigit(p_[i])) i++;
    }
    if (i < n_ && (p_[i] == 'e' || p_[i] == 'E')) {
      i++;
      if (i < n_ && (p_[i] == '+' || p_[i] == '-')) i++;
      if (i >= n_ || !isDigit(p_[i])) return false;
      while (i < n_ && isDigit(p_[i])) i++;
    }
    double d;
    const char* from = reinterpret_cast<const char*>(p_ + begin);
    const char* to = reinterpret_cast<const char*>(p_ + i);
    const std::from_chars_result r = std::from_chars(from, to, d);
    if (r.ec != std::errc() || r.ptr != to) return false;  // out of double's range: JavaScript decides
    *out = d;
    *at = i;
    return true;
  }

  const uint8_t* p_;
  const size_t n_;
  const int shape_;
  std::vector<float>& values_;
  std::vector<uint32_t>& indices_;
  std::vector<Taken>& taken_;
  Frame frames_[kTracked + 1] = {};
};

// A new typed array of `length` elements of `type`; *data its elements.
template <typename T>
bool NewTypedArray(napi_env env, napi_typedarray_type type, size_t length, napi_value* out, T** data) {
  napi_value buffer;
  void* bytes;
  if (napi_create_arraybuffer(env, length * sizeof(T), &bytes, &buffer) != napi_ok) return false;
  *data = static_cast<T*>(bytes);
  return napi_create_typedarray(env, type, length, buffer, 0, out) == napi_ok;
}

}  // namespace

napi_value JsonFloatArrays(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc < 2) {
    return fail(env, "jsonFloatArrays: expected (bytes, shape)");
  }
  void* data;
  size_t length;
  if (!typedArray(env, argv[0], napi_uint8_array, &data, &length)) return fail(env, "jsonFloatArrays: bytes must be a Uint8Array");
  uint32_t shape;
  if (napi_get_value_uint32(env, argv[1], &shape) != napi_ok || shape > 1) return fail(env, "jsonFloatArrays: shape must be 0 or 1");
  const uint8_t* p = static_cast<const uint8_t*>(data);

  std::vector<float>& scratchValues = threadValues;
  std::vector<uint32_t>& scratchIndices = threadIndices;
  std::vector<Taken>& scratchTaken = threadTaken;
  Scanner scanner(p, length, static_cast<int>(shape), scratchValues, scratchIndices, scratchTaken);
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  if (!scanner.Run()) return undefined;

  // The rest: the bytes between the arrays taken, a `0` for each.
  size_t restLength = length;
  for (const Taken& t : scratchTaken) restLength -= t.end - t.begin - 1;
  std::string rest;
  rest.reserve(restLength);
  size_t from = 0;
  for (const Taken& t : scratchTaken) {
    rest.append(reinterpret_cast<const char*>(p + from), t.begin - from);
    rest.push_back('0');
    from = t.end;
  }
  rest.append(reinterpret_cast<const char*>(p + from), length - from);

  napi_value out, text, values, indices, layout;
  float* valuesData;
  uint32_t* indicesData;
  uint32_t* lay;
  const size_t arrays = scratchTaken.size();
  if (napi_create_array_with_length(env, 4, &out) != napi_ok ||
      napi_create_string_latin1(env, rest.data(), rest.size(), &text) != napi_ok ||
      !NewTypedArray(env, napi_float32_array, scratchValues.size(), &values, &valuesData) ||
      !NewTypedArray(env, napi_uint32_array, scratchIndices.size(), &indices, &indicesData) ||
      !NewTypedArray(env, napi_uint32_array, arrays * 3, &layout, &lay)) {
    return fail(env, "jsonFloatArrays: out of memory");
  }
  if (!scratchValues.empty()) std::memcpy(valuesData, scratchValues.data(), scratchValues.size() * sizeof(float));
  if (!scratchIndices.empty()) std::memcpy(indicesData, scratchIndices.data(), scratchIndices.size() * sizeof(uint32_t));
  for (size_t a = 0; a < arrays; a++) {
    lay[3 * a] = scratchTaken[a].record;
    lay[3 * a + 1] = scratchTaken[a].kind;
    lay[3 * a + 2] = scratchTaken[a].length;
  }
  napi_set_element(env, out, 0, text);
  napi_set_element(env, out, 1, values);
  napi_set_element(env, out, 2, indices);
  napi_set_element(env, out, 3, layout);
  // A 2 MB upsert's scratch would otherwise stay with the thread.
  if (scratchValues.capacity() > (1u << 20)) std::vector<float>().swap(scratchValues);
  if (scratchIndices.capacity() > (1u << 20)) std::vector<uint32_t>().swap(scratchIndices);
  return out;
}
