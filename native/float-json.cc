// float32Json: a Float32Array as the JSON array text Conifer sends (decision 8: each value
// in the shortest decimal form that reads back as the same float32).
//
// Why native: printing is most of a fetch. In JavaScript each value becomes a double
// holding its shortest decimal (float32ToShortest) that JSON.stringify then prints again,
// about 0.5 µs a value: 100 records of 384 dimensions took ~20 ms of the HTTP thread.
//
// The digits must be exactly the JavaScript path's, so this is a port of
// src/engine/float32.ts step for step, not a call to std::to_chars: that one is shortest
// with ties to even, while the JavaScript search takes the nearest p-digit decimal with
// ties away from zero (toPrecision's rule) and can settle on one digit more next to a
// power of two. Same IEEE double operations in the same order (-ffp-contract=off keeps
// them unfused), std::round for Math.round (equal for the non-negative values it gets),
// and for toPrecision the exact digits from to_chars rounded half up by hand. The digits
// are laid out as ECMAScript's Number::toString lays them out; tests compare the text with
// JSON.stringify of the JavaScript path's numbers on random and edge values.
// Where this departs from the port's letter (the decimal exponent's first guess, 9 digits
// tried only when 8 fail, the text written into one buffer), the text is the port's for
// every float32: checked exhaustively against the previous version, value by value.
#include "float-json.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "arg-checks.h"

namespace {

// A decimal: its significant digits (no leading or trailing zeros) and where its point
// goes (after `point` digits; may be <= 0 or > the digit count).
struct Decimal {
  char digits[24];
  int count = 0;
  int point = 0;
};

// 10^k for k <= 22: exact doubles.
double Pow10(int k) {
  static const double table[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  return table[k];
}

// atDigits(): the double nearest the p-digit decimal nearest a (10^e <= a < 10^(e+1)),
// with that decimal's significand in *m and its scale in *k; NaN near a half.
double AtDigits(double a, int e, int p, double* m, int* k) {
  *k = p - 1 - e;
  const double scaled = *k >= 0 ? a * Pow10(*k) : a / Pow10(-*k);
  if (std::fabs(scaled - std::floor(scaled) - 0.5) < 1e-6) return NAN;
  *m = std::round(scaled);
  return *k >= 0 ? *m / Pow10(*k) : *m * Pow10(-*k);
}

// The decimal m * 10^-k (m a positive integer below 10^9).
Decimal FromSignificand(double m, int k) {
  Decimal d;
  char buf[24];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, static_cast<unsigned long long>(m));
  int n = static_cast<int>(r.ptr - buf);
  d.point = n - k;
  while (n > 1 && buf[n - 1] == '0') n--;
  for (int i = 0; i < n; i++) d.digits[i] = buf[i];
  d.count = n;
  return d;
}

// shortestByArithmetic(): false where the JavaScript returns NaN (the caller then takes
// the exact path).
bool ShortestByArithmetic(float f, Decimal* out) {
  const double a = std::fabs(static_cast<double>(f));
  // The JavaScript starts from floor(log10(a)) and corrects it by one step either way;
  // floor(b·log10 2) for a's binary exponent b (every float, subnormals included, is a
  // normal double) is that or one less, which the step corrects the same way, without
  // log10's ~20 ns. 78913 / 2^18 is log10 2 to within 3e-7, exact enough for |b| < 1100.
  uint64_t bits;
  std::memcpy(&bits, &a, sizeof bits);
  const int binaryExponent = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  int e = (binaryExponent * 78913) >> 18;  // an arithmetic shift: floor for negatives too
  if (e < -15 || e > 22) return false;
  const double lead = e >= 0 ? a / Pow10(e) : a * Pow10(-e);
  if (lead < 1) e--;
  else if (lead >= 10) e++;
  if (e < -14 || e > 22) return false;
  double m;
  int k;
  double bestM;
  int bestK;
  int lo = 1;
  int hi = 8;
  for (int p = 8; p >= 7; p--) {
    const double d = AtDigits(a, e, p, &m, &k);
    if (std::isnan(d)) return false;
    if (static_cast<float>(d) != static_cast<float>(a)) {
      // The JavaScript computes 9 digits first, as its answer for when 8 fail, and gives
      // up (NaN) when they are near a half; computed here only when 8 do fail (it is pure),
      // which spares one step for every value of 8 digits or fewer.
      if (p == 8 && std::isnan(AtDigits(a, e, 9, &bestM, &bestK))) return false;
      *out = FromSignificand(bestM, bestK);
      return true;
    }
    bestM = m;
    bestK = k;
    hi = p - 1;
  }
  while (lo <= hi) {
    const int p = (lo + hi) >> 1;
    const double d = AtDigits(a, e, p, &m, &k);
    if (std::isnan(d)) return false;
    if (static_cast<float>(d) == static_cast<float>(a)) {
      bestM = m;
      bestK = k;
      hi = p - 1;
    } else {
      lo = p + 1;
    }
  }
  *out = FromSignificand(bestM, bestK);
  return true;
}

// The exact decimal value of |f| (every float is a finite decimal; 160 digits hold any).
Decimal Exact(float f) {
  char buf[200];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf - 1, std::fabs(f), std::chars_format::scientific, 160);
  *r.ptr = '\0';
  Decimal d;
  const char* p = buf;
  for (; *p != 'e'; p++)
    if (*p != '.' && d.count < static_cast<int>(sizeof d.digits)) d.digits[d.count++] = *p;
  // Digits past the 24 kept are only ever looked at for "all zero" (RoundHalfUp).
  d.point = std::atoi(p + 1) + 1;
  return d;
}

// toPrecision(p) of a value whose exact decimal is x: p digits, rounded half up.
Decimal RoundHalfUp(const Decimal& x, int p) {
  Decimal d;
  d.point = x.point;
  int n = p < x.count ? p : x.count;
  for (int i = 0; i < n; i++) d.digits[i] = x.digits[i];
  if (p < x.count && x.digits[p] >= '5') {
    int i = n - 1;
    while (i >= 0 && d.digits[i] == '9') d.digits[i--] = '0';
    if (i >= 0) {
      d.digits[i]++;
    } else {  // 99.. rounded up: 100..
      d.digits[0] = '1';
      for (int j = 1; j < n; j++) d.digits[j] = '0';
      d.point++;
    }
  }
  while (n > 1 && d.digits[n - 1] == '0') n--;
  d.count = n;
  return d;
}

// Number(text) of a decimal, rounded to float as Math.fround does (double first).
float ReadBack(const Decimal& d) {
  char buf[48];
  int n = 0;
  buf[n++] = '.';
  for (int i = 0; i < d.count; i++) buf[n++] = d.digits[i];
  buf[n++] = 'e';
  const std::to_chars_result r = std::to_chars(buf + n, buf + sizeof buf - 1, d.point);
  *r.ptr = '\0';
  return static_cast<float>(std::strtod(buf, nullptr));
}

// shortestByText(): the fewest digits (1..9, binary search) whose toPrecision reads back as f.
Decimal ShortestByText(float f) {
  const Decimal exact = Exact(f);
  const float a = std::fabs(f);
  int lo = 1;
  int hi = 9;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (ReadBack(RoundHalfUp(exact, mid)) == a) hi = mid;
    else lo = mid + 1;
  }
  return RoundHalfUp(exact, hi);
}

// The most characters WriteValue() writes: a sign and 21 digits (1e20 <= |f| < 1e21
// prints as an integer), longer than any other layout ("-1.2345678e-38": 14).
constexpr size_t kMaxValueChars = 22;

char* Copy(char* p, const char* from, int n) {
  std::memcpy(p, from, n);
  return p + n;
}

// Writes the decimal as ECMAScript's Number::toString lays out a number with these digits;
// returns the end.
char* WriteDecimal(char* p, const Decimal& d) {
  const int k = d.count;
  const int n = d.point;
  if (k <= n && n <= 21) {
    p = Copy(p, d.digits, k);
    std::memset(p, '0', n - k);
    return p + (n - k);
  }
  if (0 < n && n <= 21) {
    p = Copy(p, d.digits, n);
    *p++ = '.';
    return Copy(p, d.digits + n, k - n);
  }
  if (-6 < n && n <= 0) {
    *p++ = '0';
    *p++ = '.';
    std::memset(p, '0', -n);
    return Copy(p + -n, d.digits, k);
  }
  *p++ = d.digits[0];
  if (k > 1) {
    *p++ = '.';
    p = Copy(p, d.digits + 1, k - 1);
  }
  *p++ = 'e';
  *p++ = n - 1 >= 0 ? '+' : '-';
  return std::to_chars(p, p + 4, std::abs(n - 1)).ptr;
}

// float32ToShortest(f) printed by JSON.stringify, at most kMaxValueChars; returns the end.
// f is finite (values are validated).
char* WriteValue(char* p, float f) {
  if (f == 0) {  // -0 too: JSON.stringify(-0) is "0"
    *p = '0';
    return p + 1;
  }
  if (f < 0) *p++ = '-';
  Decimal d;
  if (!ShortestByArithmetic(f, &d)) d = ShortestByText(f);
  return WriteDecimal(p, d);
}

}  // namespace

napi_value Float32Json(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc < 1)
    return arg_checks::fail(env, "float32Json(values) takes one Float32Array");
  void* data;
  size_t length;
  if (!arg_checks::typedArray(env, argv[0], napi_float32_array, &data, &length))
    return arg_checks::fail(env, "float32Json: values must be a Float32Array");
  const float* values = static_cast<const float*>(data);
  // Written straight into a buffer sized for the longest values (std::string's appends,
  // each checking capacity, took a third of the time per value).
  const std::unique_ptr<char[]> out(new char[2 + length * (kMaxValueChars + 1)]);
  char* const begin = out.get();
  char* p = begin;
  *p++ = '[';
  for (size_t i = 0; i < length; i++) {
    if (i) *p++ = ',';
    p = WriteValue(p, values[i]);
  }
  *p++ = ']';
  napi_value text;
  if (napi_create_string_latin1(env, begin, p - begin, &text) != napi_ok)
    return arg_checks::fail(env, "float32Json: could not create the string");
  return text;
}
