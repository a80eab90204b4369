// Internal: lane types for the pair loops, chosen at build time.
//
// Every pair loop is written once, as a template over a lane type V, and
// evaluates V::kWidth candidate neighbours at a time:
//   F1  one float: the scalar path, built everywhere;
//   F4  four floats: SSE2 natively (every x86-64 CPU has it), wasm SIMD
//       (-msimd128) in the browser. Built when TIDEPOOL_SIMD is on and the
//       target has one of the two; otherwise F4 is F1 under another name.
//   F8  eight floats: AVX2, natively when the build enables it
//       (TIDEPOOL_AVX2, on by default where the CPU has it).
// Lanes is the widest of them, what the pair loops run on (neighbours.h).
// All give the same pair terms bit for bit (IEEE add, mul, div and sqrt are
// exact in every lane, and no FMA contracts them); only the order of the
// final sums differs, so the paths agree to round-off (tests/test_simd.cpp).
#pragma once

#include <cmath>
#include <cstdint>

#if TIDEPOOL_SIMD && defined(__AVX2__)
#include <immintrin.h>
#define TIDEPOOL_LANES_AVX2 1
#define TIDEPOOL_LANES_SSE2 1
#elif TIDEPOOL_SIMD && defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define TIDEPOOL_LANES_WASM 1
#elif TIDEPOOL_SIMD && (defined(__SSE2__) || defined(_M_X64))
#include <emmintrin.h>
#define TIDEPOOL_LANES_SSE2 1
#endif

// Before a loop whose arrays the compiler cannot prove distinct: they are,
// so it may vectorise without run-time overlap checks (GCC gives up on a
// loop with many arrays; wasm has Clang).
#if defined(__clang__)
#define TIDEPOOL_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define TIDEPOOL_IVDEP _Pragma("GCC ivdep")
#else
#define TIDEPOOL_IVDEP
#endif

namespace tidepool {

// One lane. Masks are bools; select(m, a) is m ? a : 0.
struct F1 {
  static constexpr int kWidth = 1;
  using Mask = bool;
  float v;
  F1() = default;
  F1(float s) : v(s) {}  // NOLINT: broadcast, as for F4
  static F1 load(const float* p) { return F1(*p); }
  static F1 gather(const float* base, const int* index) { return F1(base[*index]); }
  // From interleaved pairs (a0, b0, a1, b1, ...): a = a[index], b = b[index]
  // for each lane, one load of both values per lane (DFSPH's velocities).
  static void gather_pairs(const float* pairs, const int* index, F1* a, F1* b) {
    *a = pairs[2 * index[0]];
    *b = pairs[2 * index[0] + 1];
  }
  // Lane k is on when begin <= first + k < end.
  static Mask lanes(int first, int begin, int end) { return first >= begin && first < end; }
  // Lanes 0 .. count - 1 on (a group that starts inside its range).
  static Mask first_lanes(int count) { return count > 0; }
  // Lanes k with first + k > index (the candidates after a particle).
  static Mask after(int first, int index) { return first > index; }
  friend F1 operator+(F1 a, F1 b) { return a.v + b.v; }
  friend F1 operator-(F1 a, F1 b) { return a.v - b.v; }
  friend F1 operator*(F1 a, F1 b) { return a.v * b.v; }
  friend F1 operator/(F1 a, F1 b) { return a.v / b.v; }
  friend Mask operator<(F1 a, F1 b) { return a.v < b.v; }
  friend Mask operator<=(F1 a, F1 b) { return a.v <= b.v; }
  friend Mask operator>(F1 a, F1 b) { return a.v > b.v; }
  F1& operator+=(F1 b) { v += b.v; return *this; }
  friend F1 sqrt(F1 a) { return std::sqrt(a.v); }
  friend F1 select(Mask m, F1 a) { return m ? a : F1(0.0f); }
  friend F1 select(Mask m, F1 a, F1 b) { return m ? a : b; }
  friend float sum(F1 a) { return a.v; }
  friend void store(F1 a, float* p) { *p = a.v; }
  // Writes index first + l, a and b of the lanes l set in `bits`, in lane
  // order, to j[0..], pa[0..], pb[0..]; returns how many. May write up to
  // kWidth entries (those past the count are junk with valid indices).
  static int pack(int bits, int first, F1 a, F1 b, int* j, float* pa, float* pb) {
    *j = first;
    *pa = a.v;
    *pb = b.v;
    return bits & 1;
  }
};
// F1's mask is a bool, which has no namespace for lookup to find these in.
inline int lane_count(bool m) { return m ? 1 : 0; }
inline int lane_bits(bool m) { return m ? 1 : 0; }

// Set bits of a 4-bit lane mask (no popcount instruction in baseline SSE2).
constexpr unsigned char kBitCount[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
inline bool any(bool m) { return m; }


#if TIDEPOOL_LANES_SSE2

struct F4 {
  static constexpr int kWidth = 4;
  struct Mask {
    __m128 m;
    friend Mask operator&(Mask a, Mask b) { return {_mm_and_ps(a.m, b.m)}; }
  };
  __m128 v;
  F4() = default;
  F4(__m128 x) : v(x) {}            // NOLINT
  F4(float s) : v(_mm_set1_ps(s)) {}  // NOLINT
  static F4 load(const float* p) { return _mm_loadu_ps(p); }
  // No gather instruction before AVX2: four loads.
  static F4 gather(const float* base, const int* index) {
    return _mm_setr_ps(base[index[0]], base[index[1]], base[index[2]], base[index[3]]);
  }
  // Two pairs a register (movlps/movhps), then the a's and b's apart.
  static void gather_pairs(const float* pairs, const int* index, F4* a, F4* b) {
    const __m128 lo = pair_lanes(pairs, index[0], index[1]), hi = pair_lanes(pairs, index[2], index[3]);
    a->v = _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    b->v = _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
  }
  // (a_i, b_i, a_k, b_k).
  static __m128 pair_lanes(const float* pairs, int i, int k) {
    const __m128 first = _mm_loadl_pi(_mm_setzero_ps(), reinterpret_cast<const __m64*>(pairs + 2 * i));
    return _mm_loadh_pi(first, reinterpret_cast<const __m64*>(pairs + 2 * k));
  }
  static Mask lanes(int first, int begin, int end) {
    const __m128i k = _mm_add_epi32(_mm_set1_epi32(first), _mm_set_epi32(3, 2, 1, 0));
    const __m128i ge = _mm_cmpgt_epi32(k, _mm_set1_epi32(begin - 1));
    const __m128i lt = _mm_cmplt_epi32(k, _mm_set1_epi32(end));
    return {_mm_castsi128_ps(_mm_and_si128(ge, lt))};
  }
  static Mask first_lanes(int count) {
    return {_mm_castsi128_ps(_mm_cmpgt_epi32(_mm_set1_epi32(count), _mm_set_epi32(3, 2, 1, 0)))};
  }
  static Mask after(int first, int index) {
    return {_mm_castsi128_ps(_mm_cmpgt_epi32(_mm_set_epi32(3, 2, 1, 0), _mm_set1_epi32(index - first)))};
  }
  friend F4 operator+(F4 a, F4 b) { return _mm_add_ps(a.v, b.v); }
  friend F4 operator-(F4 a, F4 b) { return _mm_sub_ps(a.v, b.v); }
  friend F4 operator*(F4 a, F4 b) { return _mm_mul_ps(a.v, b.v); }
  friend F4 operator/(F4 a, F4 b) { return _mm_div_ps(a.v, b.v); }
  friend Mask operator<(F4 a, F4 b) { return {_mm_cmplt_ps(a.v, b.v)}; }
  friend Mask operator<=(F4 a, F4 b) { return {_mm_cmple_ps(a.v, b.v)}; }
  friend Mask operator>(F4 a, F4 b) { return {_mm_cmpgt_ps(a.v, b.v)}; }
  F4& operator+=(F4 b) { v = _mm_add_ps(v, b.v); return *this; }
  friend F4 sqrt(F4 a) { return _mm_sqrt_ps(a.v); }
  friend F4 select(Mask m, F4 a) { return _mm_and_ps(m.m, a.v); }
  friend F4 select(Mask m, F4 a, F4 b) {
    return _mm_or_ps(_mm_and_ps(m.m, a.v), _mm_andnot_ps(m.m, b.v));
  }
  friend float sum(F4 a) {
    // (a0 + a2) + (a1 + a3): a fixed order, so results do not depend on the run.
    const __m128 hi = _mm_movehl_ps(a.v, a.v);
    const __m128 s = _mm_add_ps(a.v, hi);
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)));
  }
  friend void store(F4 a, float* p) { _mm_storeu_ps(p, a.v); }
  friend int lane_bits(Mask m) { return _mm_movemask_ps(m.m); }
  friend int lane_count(Mask m) { return kBitCount[_mm_movemask_ps(m.m)]; }
  friend bool any(Mask m) { return _mm_movemask_ps(m.m) != 0; }
  // As F1::pack. SSE2 has no variable shuffle: lane by lane, every lane
  // written, the cursor moved only over the set ones (no branch).
  static int pack(int bits, int first, F4 a, F4 b, int* j, float* pa, float* pb) {
    float as[4], bs[4];
    store(a, as);
    store(b, bs);
    int k = 0;
    for (int l = 0; l < 4; ++l) {
      j[k] = first + l;
      pa[k] = as[l];
      pb[k] = bs[l];
      k += bits >> l & 1;
    }
    return k;
  }
};

#elif TIDEPOOL_LANES_WASM

// For F4::pack: per 4-bit lane mask, the byte shuffle that moves the set
// 32-bit lanes to the front in order, then lane 0 to fill.
struct PackBytes4 {
  alignas(16) unsigned char bytes[16][16];
  constexpr PackBytes4() : bytes() {
    for (int bits = 0; bits < 16; ++bits) {
      int k = 0;
      for (int l = 0; l < 4; ++l)
        if (bits >> l & 1) {
          for (int b = 0; b < 4; ++b) bytes[bits][4 * k + b] = static_cast<unsigned char>(4 * l + b);
          ++k;
        }
      for (; k < 4; ++k)
        for (int b = 0; b < 4; ++b) bytes[bits][4 * k + b] = static_cast<unsigned char>(b);
    }
  }
};
inline constexpr PackBytes4 kPackBytes4{};

struct F4 {
  static constexpr int kWidth = 4;
  struct Mask {
    v128_t m;
    friend Mask operator&(Mask a, Mask b) { return {wasm_v128_and(a.m, b.m)}; }
  };
  v128_t v;
  F4() = default;
  F4(v128_t x) : v(x) {}                  // NOLINT
  F4(float s) : v(wasm_f32x4_splat(s)) {}  // NOLINT
  static F4 load(const float* p) { return wasm_v128_load(p); }
  // Lane loads, which V8 turns into one load-and-insert each, where
  // wasm_f32x4_make's scalar loads and lane replacements take an extra move
  // a lane (DFSPH's solves gather a value per list entry).
  static F4 gather(const float* base, const int* index) {
    v128_t v = wasm_v128_load32_zero(base + index[0]);
    v = wasm_v128_load32_lane(base + index[1], v, 1);
    v = wasm_v128_load32_lane(base + index[2], v, 2);
    return wasm_v128_load32_lane(base + index[3], v, 3);
  }
  // Two pairs a register (64-bit lane loads), then the a's and b's apart.
  static void gather_pairs(const float* pairs, const int* index, F4* a, F4* b) {
    const v128_t lo = wasm_v128_load64_lane(pairs + 2 * index[1], wasm_v128_load64_zero(pairs + 2 * index[0]), 1);
    const v128_t hi = wasm_v128_load64_lane(pairs + 2 * index[3], wasm_v128_load64_zero(pairs + 2 * index[2]), 1);
    a->v = wasm_i32x4_shuffle(lo, hi, 0, 2, 4, 6);
    b->v = wasm_i32x4_shuffle(lo, hi, 1, 3, 5, 7);
  }
  static Mask lanes(int first, int begin, int end) {
    const v128_t k = wasm_i32x4_add(wasm_i32x4_splat(first), wasm_i32x4_make(0, 1, 2, 3));
    return {wasm_v128_and(wasm_i32x4_ge(k, wasm_i32x4_splat(begin)),
                          wasm_i32x4_lt(k, wasm_i32x4_splat(end)))};
  }
  static Mask first_lanes(int count) {
    return {wasm_i32x4_gt(wasm_i32x4_splat(count), wasm_i32x4_make(0, 1, 2, 3))};
  }
  static Mask after(int first, int index) {
    return {wasm_i32x4_gt(wasm_i32x4_make(0, 1, 2, 3), wasm_i32x4_splat(index - first))};
  }
  friend F4 operator+(F4 a, F4 b) { return wasm_f32x4_add(a.v, b.v); }
  friend F4 operator-(F4 a, F4 b) { return wasm_f32x4_sub(a.v, b.v); }
  friend F4 operator*(F4 a, F4 b) { return wasm_f32x4_mul(a.v, b.v); }
  friend F4 operator/(F4 a, F4 b) { return wasm_f32x4_div(a.v, b.v); }
  friend Mask operator<(F4 a, F4 b) { return {wasm_f32x4_lt(a.v, b.v)}; }
  friend Mask operator<=(F4 a, F4 b) { return {wasm_f32x4_le(a.v, b.v)}; }
  friend Mask operator>(F4 a, F4 b) { return {wasm_f32x4_gt(a.v, b.v)}; }
  F4& operator+=(F4 b) { v = wasm_f32x4_add(v, b.v); return *this; }
  friend F4 sqrt(F4 a) { return wasm_f32x4_sqrt(a.v); }
  friend F4 select(Mask m, F4 a) { return wasm_v128_and(m.m, a.v); }
  friend F4 select(Mask m, F4 a, F4 b) { return wasm_v128_bitselect(a.v, b.v, m.m); }
  friend float sum(F4 a) {
    // Same order as the SSE2 version: (a0 + a2) + (a1 + a3).
    return (wasm_f32x4_extract_lane(a.v, 0) + wasm_f32x4_extract_lane(a.v, 2)) +
           (wasm_f32x4_extract_lane(a.v, 1) + wasm_f32x4_extract_lane(a.v, 3));
  }
  friend void store(F4 a, float* p) { wasm_v128_store(p, a.v); }
  friend int lane_bits(Mask m) { return static_cast<int>(wasm_i32x4_bitmask(m.m)); }
  friend int lane_count(Mask m) { return kBitCount[lane_bits(m)]; }
  friend bool any(Mask m) { return wasm_v128_any_true(m.m); }
  // As F1::pack: one byte shuffle per array moves the set lanes to the front.
  static int pack(int bits, int first, F4 a, F4 b, int* j, float* pa, float* pb) {
    const v128_t shuffle = wasm_v128_load(kPackBytes4.bytes[bits]);
    const v128_t index = wasm_i32x4_add(wasm_i32x4_splat(first), wasm_i32x4_make(0, 1, 2, 3));
    wasm_v128_store(j, wasm_i8x16_swizzle(index, shuffle));
    wasm_v128_store(pa, wasm_i8x16_swizzle(a.v, shuffle));
    wasm_v128_store(pb, wasm_i8x16_swizzle(b.v, shuffle));
    return kBitCount[bits];
  }
};

#else

using F4 = F1;

#endif

#if TIDEPOOL_LANES_AVX2
// For F8::pack: per 8-bit lane mask, the set lanes in order (one byte
// each), then lane 0 to fill.
struct PackLanes8 {
  uint64_t lanes[256];
  constexpr PackLanes8() : lanes() {
    for (int bits = 0; bits < 256; ++bits) {
      int k = 0;
      for (int l = 0; l < 8; ++l)
        if (bits >> l & 1) lanes[bits] |= static_cast<uint64_t>(l) << (8 * k++);
    }
  }
};
inline constexpr PackLanes8 kPackLanes8{};

// Eight floats (AVX2): twice the lanes of F4; the same operations.
struct F8 {
  static constexpr int kWidth = 8;
  struct Mask {
    __m256 m;
    friend Mask operator&(Mask a, Mask b) { return {_mm256_and_ps(a.m, b.m)}; }
  };
  __m256 v;
  F8() = default;
  F8(__m256 x) : v(x) {}               // NOLINT
  F8(float s) : v(_mm256_set1_ps(s)) {}  // NOLINT
  static F8 load(const float* p) { return _mm256_loadu_ps(p); }
  // Eight loads, not vgatherdps: the gather instruction is slower on the
  // x86 cores we have timed than eight scalar loads, and DFSPH's solves
  // gather three values a list entry (docs/performance.md).
  static F8 gather(const float* base, const int* index) {
    return _mm256_setr_ps(base[index[0]], base[index[1]], base[index[2]], base[index[3]],
                          base[index[4]], base[index[5]], base[index[6]], base[index[7]]);
  }
  // As F4's: lanes 0-1 and 4-5 in one register, 2-3 and 6-7 in the other,
  // so that one in-lane shuffle each puts the a's and b's in order.
  static void gather_pairs(const float* pairs, const int* index, F8* a, F8* b) {
    const __m256 lo = _mm256_set_m128(F4::pair_lanes(pairs, index[4], index[5]),
                                      F4::pair_lanes(pairs, index[0], index[1]));
    const __m256 hi = _mm256_set_m128(F4::pair_lanes(pairs, index[6], index[7]),
                                      F4::pair_lanes(pairs, index[2], index[3]));
    a->v = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    b->v = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
  }
  static Mask lanes(int first, int begin, int end) {
    const __m256i k = _mm256_add_epi32(_mm256_set1_epi32(first), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256i ge = _mm256_cmpgt_epi32(k, _mm256_set1_epi32(begin - 1));
    const __m256i lt = _mm256_cmpgt_epi32(_mm256_set1_epi32(end), k);
    return {_mm256_castsi256_ps(_mm256_and_si256(ge, lt))};
  }
  static Mask first_lanes(int count) {
    return {_mm256_castsi256_ps(
        _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)))};
  }
  static Mask after(int first, int index) {
    return {_mm256_castsi256_ps(
        _mm256_cmpgt_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(index - first)))};
  }
  friend F8 operator+(F8 a, F8 b) { return _mm256_add_ps(a.v, b.v); }
  friend F8 operator-(F8 a, F8 b) { return _mm256_sub_ps(a.v, b.v); }
  friend F8 operator*(F8 a, F8 b) { return _mm256_mul_ps(a.v, b.v); }
  friend F8 operator/(F8 a, F8 b) { return _mm256_div_ps(a.v, b.v); }
  friend Mask operator<(F8 a, F8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)}; }
  friend Mask operator<=(F8 a, F8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)}; }
  friend Mask operator>(F8 a, F8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ)}; }
  F8& operator+=(F8 b) { v = _mm256_add_ps(v, b.v); return *this; }
  friend F8 sqrt(F8 a) { return _mm256_sqrt_ps(a.v); }
  friend F8 select(Mask m, F8 a) { return _mm256_and_ps(m.m, a.v); }
  friend F8 select(Mask m, F8 a, F8 b) { return _mm256_blendv_ps(b.v, a.v, m.m); }
  friend float sum(F8 a) {
    // Halves first, then F4's order: a fixed order, like F4's.
    return sum(F4(_mm_add_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1))));
  }
  friend void store(F8 a, float* p) { _mm256_storeu_ps(p, a.v); }
  friend int lane_bits(Mask m) { return _mm256_movemask_ps(m.m); }
  friend int lane_count(Mask m) { return __builtin_popcount(static_cast<unsigned>(_mm256_movemask_ps(m.m))); }
  friend bool any(Mask m) { return _mm256_movemask_ps(m.m) != 0; }
  // As F1::pack: one lane permutation per array moves the set lanes to the front.
  static int pack(int bits, int first, F8 a, F8 b, int* j, float* pa, float* pb) {
    const __m256i perm = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(&kPackLanes8.lanes[bits])));
    const __m256i index = _mm256_add_epi32(_mm256_set1_epi32(first), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(j), _mm256_permutevar8x32_epi32(index, perm));
    _mm256_storeu_ps(pa, _mm256_permutevar8x32_ps(a.v, perm));
    _mm256_storeu_ps(pb, _mm256_permutevar8x32_ps(b.v, perm));
    return __builtin_popcount(static_cast<unsigned>(bits));
  }
};
using Lanes = F8;
#else
using Lanes = F4;
#endif

}  // namespace tidepool
