// The dense vectors of a request body, parsed without a JavaScript number each.
//
// JSON.parse spends most of a query's or an upsert's parse on its numbers (a 384-d query
// body of 8 KB: ~55 µs; an upsert of 2 MB: ~150 ms), and the numbers are then converted
// to float32 anyway. This finds the dense vector arrays of a body, parses them straight to
// float32 here, and hands back the body's text with each such array replaced by `0`, for
// JSON.parse to do the rest; the caller then puts the arrays in place of the zeros.
//
// jsonFloatArrays(bytes, shape) where shape is
//   0 (query)   the value of the top-level object's key "vector";
//   1 (upsert)  the value of the key "values" of each object directly inside the array
//               that is the value of the top-level object's key "vectors".
// returns [rest, values, layout]:
//   rest    the body's text with every array taken replaced by `0` (one latin1 string);
//   values  Float32Array, the arrays' numbers back to back, in body order;
//   layout  Uint32Array, two per array taken: the index of its record in "vectors"
//           (0 for a query) and its length;
// or undefined when the body is not one this handles (then the caller parses it as
// before, which gives every answer and error message as before). Undefined when:
//   - a byte is outside ASCII or is a backslash (so a string is the bytes between two
//     quotes, with no escapes to decode), or the top level is not an object;
//   - a taken key occurs twice in the same object ("vector" or "vectors" at the top,
//     "values" in a record: JSON.parse keeps the last, this would keep the first);
//   - an array to take is empty, holds anything but JSON numbers, or a number that is
//     not finite as float32 (JavaScript refuses those with a message naming the value);
//   - nothing was taken (for an upsert, also as soon as the first record has no
//     "values" array: a sparse index's upserts are not scanned to the end for nothing).
// The caller must also have ruled out "__proto__" and "constructor" (json-body.ts),
// since JSON.parse alone does not refuse them.
//
// Why the answer is JSON.parse's: each number is checked against JSON's grammar, then
// read by std::from_chars, which rounds correctly to the nearest double as JSON.parse
// does, then rounded to float32, as a Float32Array store of that double does. An array is
// taken only where it is a whole value (after `key :`, followed by `,` or `}`), so putting
// `0` in its place keeps every other token as it was: the rest is valid JSON exactly when
// the body is, and JSON.parse of it builds the same objects but for those values.
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

enum class Key : uint8_t { kOther, kVector, kVectors, kValues };

// The containers a body may nest; deeper ones are followed only by their depth.
constexpr int kTracked = 4;

struct Taken {
  size_t begin;  // the array's `[`
  size_t end;    // one past its `]`
  uint32_t record;
  uint32_t length;
};

// Per thread, reused: the values and arrays of the body being scanned.
thread_local std::vector<float> threadValues;
thread_local std::vector<Taken> threadTaken;

inline bool isSpace(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
inline bool isDigit(uint8_t c) { return c >= '0' && c <= '9'; }

class Scanner {
 public:
  // The scratch arrays are held by reference: in a shared object each access to a
  // thread_local is a call (__tls_get_addr), which per number cost more than parsing it.
  Scanner(const uint8_t* p, size_t n, int shape, std::vector<float>& values, std::vector<Taken>& taken)
      : p_(p), n_(n), shape_(shape), values_(values), taken_(taken) {
    values_.clear();
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
          const void* close = std::memchr(p_ + i + 1, '"', n_ - i - 1);
          if (close == nullptr) return false;
          const size_t end = static_cast<const uint8_t*>(close) - p_;
          if (depth >= 1 && depth <= kTracked && frames_[depth].object && frames_[depth].expectKey) {
            frames_[depth].expectKey = false;
            if (!NoteKey(depth, KeyOf(i + 1, end))) return false;
          }
          i = end + 1;
          break;
        }
        case ':': {
          i = SkipSpace(i + 1);
          if (i < n_ && p_[i] == '[' && Wanted(depth)) {
            size_t after;
            if (!TakeArray(i, &after)) return false;
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
            f.element = 0;
          }
          i++;
          break;
        }
        case '}':
        case ']': {
          if (depth == 3 && frames_[2].records && frames_[3].object && frames_[2].element == 0 && shape_ == 1 && taken_.empty()) {
            return false;  // the first record has no dense values: nothing to gain here
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

  // Whether the value after the `:` just read, at `depth`, is one to take.
  bool Wanted(int depth) const {
    if (shape_ == 0) return depth == 1 && frames_[1].key == Key::kVector;
    return depth == 3 && frames_[3].object && frames_[3].key == Key::kValues && frames_[2].records;
  }

  size_t SkipSpace(size_t i) const {
    while (i < n_ && isSpace(p_[i])) i++;
    return i;
  }

  // The array of numbers at p_[at] == '[' into values_; *after is one past its `]`.
  bool TakeArray(size_t at, size_t* after) {
    const size_t first = values_.size();
    size_t i = SkipSpace(at + 1);
    if (i < n_ && p_[i] == ']') return false;
    for (;;) {
      float value;
      if (!Number(&i, &value)) return false;
      values_.push_back(value);
      i = SkipSpace(i);
      if (i >= n_) return false;
      if (p_[i] == ']') break;
      if (p_[i] != ',') return false;
      i = SkipSpace(i + 1);
    }
    *after = i + 1;
    const uint32_t record = shape_ == 0 ? 0 : frames_[2].element;
    taken_.push_back({at, *after, record, static_cast<uint32_t>(values_.size() - first)});
    return true;
  }

  // One JSON number at *at (RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?),
  // as float32; false when not one, or not finite as float32.
  bool Number(size_t* at, float* out) const {
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
    const float f = static_cast<float>(d);
    if (!std::isfinite(f)) return false;
    *out = f;
    *at = i;
    return true;
  }

  const uint8_t* p_;
  const size_t n_;
  const int shape_;
  std::vector<float>& values_;
  std::vector<Taken>& taken_;
  Frame frames_[kTracked + 1] = {};
};

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
  std::vector<Taken>& scratchTaken = threadTaken;
  Scanner scanner(p, length, static_cast<int>(shape), scratchValues, scratchTaken);
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

  napi_value out, text, valuesBuffer, values, layoutBuffer, layout;
  void* valuesData;
  void* layoutData;
  const size_t count = scratchValues.size();
  const size_t arrays = scratchTaken.size();
  if (napi_create_array_with_length(env, 3, &out) != napi_ok ||
      napi_create_string_latin1(env, rest.data(), rest.size(), &text) != napi_ok ||
      napi_create_arraybuffer(env, count * sizeof(float), &valuesData, &valuesBuffer) != napi_ok ||
      napi_create_typedarray(env, napi_float32_array, count, valuesBuffer, 0, &values) != napi_ok ||
      napi_create_arraybuffer(env, arrays * 2 * sizeof(uint32_t), &layoutData, &layoutBuffer) != napi_ok ||
      napi_create_typedarray(env, napi_uint32_array, arrays * 2, layoutBuffer, 0, &layout) != napi_ok) {
    return fail(env, "jsonFloatArrays: out of memory");
  }
  if (count > 0) std::memcpy(valuesData, scratchValues.data(), count * sizeof(float));
  uint32_t* lay = static_cast<uint32_t*>(layoutData);
  for (size_t a = 0; a < arrays; a++) {
    lay[2 * a] = scratchTaken[a].record;
    lay[2 * a + 1] = scratchTaken[a].length;
  }
  napi_set_element(env, out, 0, text);
  napi_set_element(env, out, 1, values);
  napi_set_element(env, out, 2, layout);
  // A 2 MB upsert's scratch would otherwise stay with the thread.
  if (scratchValues.capacity() > (1u << 20)) std::vector<float>().swap(scratchValues);
  return out;
}
