/* dtype.c - element types, their values to and from double. */
#include "dtype.h"
#include "dtypeint.h"
#include "vec.h"
#include "i128.h"
#include "err.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const struct {
	const char *name, *shortname;
	size_t size;
} types[CKPT_NDTYPES] = {
	[CKPT_OTHER] = {"other", "other", 0},
	[CKPT_BOOL] = {"bool", "bool", 1},
	[CKPT_I8] = {"int8", "i8", 1},
	[CKPT_I16] = {"int16", "i16", 2},
	[CKPT_I32] = {"int32", "i32", 4},
	[CKPT_I64] = {"int64", "i64", 8},
	[CKPT_U8] = {"uint8", "u8", 1},
	[CKPT_U16] = {"uint16", "u16", 2},
	[CKPT_U32] = {"uint32", "u32", 4},
	[CKPT_U64] = {"uint64", "u64", 8},
	[CKPT_F16] = {"float16", "f16", 2},
	[CKPT_BF16] = {"bfloat16", "bf16", 2},
	[CKPT_F32] = {"float32", "f32", 4},
	[CKPT_F64] = {"float64", "f64", 8},
	[CKPT_F8E4M3] = {"float8_e4m3", "f8e4m3", 1},
	[CKPT_F8E5M2] = {"float8_e5m2", "f8e5m2", 1},
};

const char *ckpt_dtype_name(ckpt_dtype t)
{
	return t < CKPT_NDTYPES ? types[t].name : "other";
}

int ckpt_dtype_parse(const char *s, ckpt_dtype *out)
{
	for (int t = CKPT_BOOL; t < CKPT_NDTYPES; t++) {
		if (strcmp(s, types[t].name) == 0 ||
		    strcmp(s, types[t].shortname) == 0) {
			*out = (ckpt_dtype)t;
			return 0;
		}
	}
	if (strcmp(s, "half") == 0)
		return *out = CKPT_F16, 0;
	if (strcmp(s, "float") == 0)
		return *out = CKPT_F32, 0;
	if (strcmp(s, "double") == 0)
		return *out = CKPT_F64, 0;
	return ckpt_seterr("unknown dtype '%s' (try f16, bf16, f32, f64, f8e4m3, "
	                   "f8e5m2, i8..i64, u8..u64, bool)", s);
}

size_t ckpt_dtype_size(ckpt_dtype t)
{
	return t < CKPT_NDTYPES ? types[t].size : 0;
}

int ckpt_dtype_is_float(ckpt_dtype t)
{
	return t >= CKPT_F16 && t <= CKPT_F8E5M2;
}

int ckpt_dtype_is_signed(ckpt_dtype t)
{
	return t >= CKPT_I8 && t <= CKPT_I64;
}

/* ---- the 16-bit float formats ------------------------------------------ */

double ckpt_float_decode(uint32_t bits, int ebits, int mbits)
{
	uint32_t emax = (1u << ebits) - 1, mmask = (1u << mbits) - 1;
	uint32_t e = (bits >> mbits) & emax, m = bits & mmask;
	int sign = (bits >> (ebits + mbits)) & 1, bias = (int)(emax >> 1);
	double v;

	if (e == emax && m) {
		/* NaN: carry sign and payload into the top of double's mantissa */
		uint64_t d = (uint64_t)sign << 63 | 0x7ffULL << 52 |
		             (uint64_t)m << (52 - mbits);
		memcpy(&v, &d, sizeof v);
		return v;
	}
	if (e == emax)
		v = INFINITY;
	else if (e == 0)
		v = ldexp((double)m, 1 - bias - mbits);
	else
		v = ldexp((double)(m | (1u << mbits)), (int)e - bias - mbits);
	return sign ? -v : v;
}

uint32_t ckpt_float_encode(double v, int ebits, int mbits)
{
	uint32_t emax = (1u << ebits) - 1;
	int bias = (int)(emax >> 1), e;
	uint64_t d, mant, bits;
	uint32_t sign;
	double a = fabs(v), q, fl, r;

	memcpy(&d, &v, sizeof d);
	sign = (uint32_t)(d >> 63) << (ebits + mbits);
	if (isnan(v)) {
		uint32_t m = (uint32_t)(d >> (52 - mbits)) & ((1u << mbits) - 1);
		return sign | emax << mbits | m | 1u << (mbits - 1); /* quiet */
	}
	if (isinf(v))
		return sign | emax << mbits;
	if (a == 0)
		return sign;
	frexp(a, &e);
	e -= 1; /* exponent of the leading bit */
	if (e < 1 - bias)
		e = 1 - bias; /* subnormal: the quantum of the smallest binade */
	q = ldexp(a, mbits - e); /* exact: a scaled by a power of two */
	fl = floor(q);
	r = q - fl;
	if (r > 0.5 || (r == 0.5 && fmod(fl, 2.0) != 0))
		fl += 1;
	mant = (uint64_t)fl;
	/* One formula for normal, subnormal, and rounding up a binade. */
	bits = ((uint64_t)(e + bias) << mbits) + mant - (1ULL << mbits);
	if (bits >= (uint64_t)emax << mbits)
		return sign | emax << mbits;
	return sign | (uint32_t)bits;
}

/* The same conversions for the 16-bit formats by integer operations on the
 * bit patterns, without branches the compiler cannot turn into selects:
 * identical bits (every pattern, 10^7 doubles in the unit tests), at memory
 * speed.  ebits and mbits are constants where these are inlined. */
static inline uint64_t bits_of(double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof b);
	return b;
}

static inline double double_of(uint64_t b)
{
	double v;

	memcpy(&v, &b, sizeof v);
	return v;
}

static inline double half_decode(uint32_t h, int ebits, int mbits)
{
	uint32_t emax = (1u << ebits) - 1, bias = emax >> 1;
	uint32_t e = (h >> mbits) & emax, m = h & ((1u << mbits) - 1);
	uint64_t sign = (uint64_t)(h >> (ebits + mbits) & 1) << 63;
	/* subnormal (and zero): m units of 2^(1 - bias - mbits); m converted
	 * as a signed 32-bit integer, which vectorises */
	double unit = double_of((uint64_t)(1023 + 1 - (int)bias - mbits) << 52);
	uint64_t sub = bits_of((double)(int32_t)m * unit);
	uint64_t exp = e == emax ? 0x7ff : e + 1023 - bias;
	uint64_t normal = exp << 52 | (uint64_t)m << (52 - mbits); /* Inf, NaN too */

	return double_of(sign | (e == 0 ? sub : normal));
}

/* Rounding by the hardware: a + C - C, with C = 2^52 times the quantum of
 * a's binade in the narrow format (its subnormal quantum below), rounds a
 * to a multiple of the quantum, to nearest even, in one double addition;
 * the rest is reading the bits off.  No branch, so that it vectorises. */
static inline uint32_t half_encode(double v, int ebits, int mbits)
{
	int32_t emax = (1 << ebits) - 1, bias = emax >> 1;
	uint64_t d = bits_of(v), mant = d & ((1ULL << 52) - 1);
	uint32_t sign = (uint32_t)(d >> 63) << (ebits + mbits), bits, nan;
	int32_t e = (int32_t)(d >> 52 & 0x7ff) - 1023;
	int32_t qe = (e < 1 - bias ? 1 - bias : e) - mbits; /* the quantum's exponent */
	/* (for e beyond the format, C is nonsense, and not used) */
	double a = fabs(v), c = double_of((uint64_t)(uint32_t)(qe + 52 + 1023) << 52);
	double r = (a + c) - c, big = double_of((uint64_t)(bias + 1 + 1023) << 52);
	double subunit = double_of((uint64_t)(bias - 1 + mbits + 1023) << 52);
	uint32_t normal = (uint32_t)((bits_of(r) >> (52 - mbits)) -
	                             ((uint64_t)(1023 - bias) << mbits));
	int tiny = r < 1 / big * 4;                /* below 2^(1 - bias): subnormal */
	/* (only a subnormal is converted: NaN or a large value would be
	 * undefined behaviour, even when not used) */
	uint32_t sub = (uint32_t)(int32_t)((tiny ? r : 0) * subunit);

	bits = tiny ? sub : normal;
	bits = e > bias || r >= big ? (uint32_t)emax << mbits : bits; /* overflow */
	nan = (uint32_t)emax << mbits | (uint32_t)(mant >> (52 - mbits)) | 1u << (mbits - 1);
	nan = mant ? nan : (uint32_t)emax << mbits;  /* NaN (quiet, payload kept), Inf */
	bits = e == 1024 ? nan : bits;
	return sign | bits;
}

double ckpt_f16_to_double(uint16_t bits)
{
	return half_decode(bits, 5, 10);
}

double ckpt_bf16_to_double(uint16_t bits)
{
	return half_decode(bits, 8, 7);
}

uint16_t ckpt_double_to_f16(double v)
{
	return (uint16_t)half_encode(v, 5, 10);
}

uint16_t ckpt_double_to_bf16(double v)
{
	return (uint16_t)half_encode(v, 8, 7);
}

/* ---- the 8-bit float formats ----------------------------------------------- */

double ckpt_e4m3_to_double(uint8_t bits)
{
	unsigned e = bits >> 3 & 15, m = bits & 7;
	double v;

	if (e == 15 && m == 7)
		return bits & 0x80 ? -NAN : NAN;
	v = e ? ldexp(8 + m, (int)e - 10) : ldexp(m, -9); /* bias 7, 3 mantissa bits */
	return bits & 0x80 ? -v : v;
}

double ckpt_e5m2_to_double(uint8_t bits)
{
	return half_decode((uint32_t)bits << 8, 5, 10);
}

uint8_t ckpt_double_to_e4m3(double v)
{
	uint8_t sign = signbit(v) ? 0x80 : 0;
	double a = fabs(v), q, fl, r;
	int e;

	if (isnan(v) || a > 464) /* 464: halfway from 448 to the 480 there is not */
		return sign | 0x7f;
	if (a == 0)
		return sign;
	frexp(a, &e);
	e = e - 1 < -6 ? -6 : e - 1; /* the leading bit's exponent; subnormals: -6 */
	q = ldexp(a, 3 - e);
	fl = floor(q);
	r = q - fl;
	if (r > 0.5 || (r == 0.5 && fmod(fl, 2.0) != 0))
		fl += 1;
	/* one formula for normal, subnormal, and rounding up a binade */
	return sign | (uint8_t)(((e + 7) << 3) + (int)fl - 8);
}

uint8_t ckpt_double_to_e5m2(double v)
{
	return (uint8_t)half_encode(v, 5, 2);
}

/* ---- slabs of values ---------------------------------------------------- */

#define WIDEN(T)                                                      \
	do {                                                          \
		const T *s = src;                                     \
		for (size_t i = 0; i < n; i++)                        \
			dst[i] = (double)s[i];                        \
	} while (0)

#define WIDEN_CASE(tag, T) case tag: WIDEN(T); break;

/* Conversions through float quiet signalling NaNs, which the portable
 * decoder keeps as they are: where the decoding loop saw NaNs, they are
 * decoded again the portable way. */
static void redo_nans(const uint16_t *h, double *dst, size_t n, int ebits, int mbits)
{
	uint32_t inf = ((1u << ebits) - 1) << mbits;

	for (size_t i = 0; i < n; i++)
		if ((h[i] & 0x7fffu) > inf)
			dst[i] = half_decode(h[i], ebits, mbits);
}

/* bfloat16 is the top half of a float32: shifted into place and widened,
 * which vectorises without AVX2. */
static inline __attribute__((always_inline)) void bf16_to_double(const uint16_t *h, double *dst,
                                                          size_t n)
{
	uint32_t nan = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t u = (uint32_t)h[i] << 16;
		float f;

		memcpy(&f, &u, sizeof f);
		dst[i] = f;
		nan |= (u & 0x7fffffffu) > 0x7f800000u;
	}
	if (nan)
		redo_nans(h, dst, n, 8, 7);
}

#if CKPT_HAVE_F16C
/* float16 to double by the CPU's conversion instruction (F16C), 8 at a
 * time; then NaNs again (redo_nans): the same bits. */
__attribute__((target("avx,f16c")))
static void f16_to_double_f16c(const uint16_t *h, double *dst, size_t n)
{
	const __m128i magnitude = _mm_set1_epi16(0x7fff), inf = _mm_set1_epi16(0x7c00);
	__m128i nan = _mm_setzero_si128();
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m128i x = _mm_loadu_si128((const __m128i *)(h + i));
		__m256 f = _mm256_cvtph_ps(x);

		nan = _mm_or_si128(nan, _mm_cmpgt_epi16(_mm_and_si128(x, magnitude), inf));
		_mm256_storeu_pd(dst + i, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
		_mm256_storeu_pd(dst + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
	}
	if (!_mm_testz_si128(nan, nan))
		redo_nans(h, dst, i, 5, 10);
	for (; i < n; i++) /* (exact, NaNs too) */
		dst[i] = half_decode(h[i], 5, 10);
}

static int have_f16c(void)
{
	static int known = -1; /* (a benign race: every thread finds the same) */

	if (known < 0)
		known = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
	return known;
}
#endif

CKPT_WIDE_VECTORS /* the 16-bit decoders vectorise only with AVX2 */
void ckpt_to_double(ckpt_dtype t, const void *src, double *dst, size_t n)
{
	const uint16_t *h = src;

	switch (t) {
	CKPT_INTEGER_TYPES(WIDEN_CASE)
	case CKPT_F32: WIDEN(float); break;
	case CKPT_F64: memcpy(dst, src, n * sizeof *dst); break;
	case CKPT_F16:
#if CKPT_HAVE_F16C
		if (have_f16c()) {
			f16_to_double_f16c(h, dst, n);
			break;
		}
#endif
		for (size_t i = 0; i < n; i++)
			dst[i] = ckpt_f16_to_double(h[i]);
		break;
	case CKPT_BF16: bf16_to_double(h, dst, n); break;
	case CKPT_F8E4M3:
		for (size_t i = 0; i < n; i++)
			dst[i] = ckpt_e4m3_to_double(((const uint8_t *)src)[i]);
		break;
	case CKPT_F8E5M2:
		for (size_t i = 0; i < n; i++)
			dst[i] = ckpt_e5m2_to_double(((const uint8_t *)src)[i]);
		break;
	default: break;
	}
}

#define TO_I128_CASE(tag, T)                                          \
	case tag: {                                                   \
		const T *s = src;                                     \
		for (size_t i = 0; i < n; i++)                        \
			dst[i] = (add ? dst[i] : 0) + (__int128)s[i]; \
		break;                                                \
	}

void ckpt_to_i128(ckpt_dtype t, const void *src, __int128 *dst, size_t n, int add)
{
	switch (t) {
	CKPT_INTEGER_TYPES(TO_I128_CASE)
	default: break;
	}
}

#define FROM_I128_CASE(tag, T)                                        \
	case tag:                                                     \
		if ((__int128)(T)v != v || (tag == CKPT_BOOL && (v < 0 || v > 1))) \
			return 0;                                     \
		((T *)dst)[i] = (T)v;                                 \
		return 1;

int ckpt_from_i128(ckpt_dtype t, __int128 v, void *dst, size_t i)
{
	switch (t) {
	CKPT_INTEGER_TYPES(FROM_I128_CASE)
	default: return 0;
	}
}

static double round_half_even(double v)
{
	double fl = floor(v), r = v - fl;

	if (r > 0.5 || (r == 0.5 && fmod(fl, 2.0) != 0))
		fl += 1;
	return fl;
}

/* For types narrower than 64 bits, whose bounds are exact doubles: the
 * representable range is [lo, hi). */
#define NARROW_INT(T, lo, hi)                                         \
	do {                                                          \
		T *o = dst;                                           \
		for (size_t i = 0; i < n; i++) {                      \
			double r = round_half_even(src[i]);           \
			if (!(r >= (lo))) {                           \
				o[i] = isnan(r) ? 0 : (T)(lo);        \
				bad++;                                \
			} else if (!(r < (hi))) {                     \
				o[i] = (T)((hi) - 1);                 \
				bad++;                                \
			} else {                                      \
				o[i] = (T)r;                          \
			}                                             \
		}                                                     \
	} while (0)

static size_t narrow_u64(const double *src, uint64_t *o, size_t n)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++) {
		double r = round_half_even(src[i]);

		if (!(r >= 0)) {
			o[i] = 0;
			bad++;
		} else if (!(r < 18446744073709551616.0)) {
			o[i] = UINT64_MAX;
			bad++;
		} else {
			o[i] = (uint64_t)r;
		}
	}
	return bad;
}

static size_t narrow_i64(const double *src, int64_t *o, size_t n)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++) {
		double r = round_half_even(src[i]);

		if (!(r >= -9223372036854775808.0)) {
			o[i] = isnan(r) ? 0 : INT64_MIN;
			bad++;
		} else if (!(r < 9223372036854775808.0)) {
			o[i] = INT64_MAX;
			bad++;
		} else {
			o[i] = (int64_t)r;
		}
	}
	return bad;
}

/* A 16-bit float rounded to nearest even from the double's bits, where the
 * double is 0 or the result normal or an overflow to Inf (integer
 * arithmetic, no branch: it vectorises); returns whether some element is
 * neither (a subnormal result, NaN, Inf, huge), which half_encode() then
 * takes. */
static inline int encode_normal(const double *src, uint16_t *h, size_t n, int ebits, int mbits)
{
	const int shift = 52 - mbits;
	const uint64_t rebias = (uint64_t)(1023 - ((1 << (ebits - 1)) - 1)) << 52;
	const uint64_t least = rebias + (UINT64_C(1) << 52); /* the least normal */
	const uint64_t span = ((uint64_t)(1 << ebits) - 2) << 52; /* to exponent all ones */
	const uint64_t half = (UINT64_C(1) << (shift - 1)) - 1;
	uint64_t other = 0;

	for (size_t i = 0; i < n; i++) {
		double d = src[i];
		uint64_t u, mag, r;

		memcpy(&u, &d, sizeof u);
		mag = u & ~(UINT64_C(1) << 63);
		r = (mag - rebias + half + (mag >> shift & 1)) >> shift;
		r = mag == 0 ? 0 : r;
		h[i] = (uint16_t)((u >> 63) << (ebits + mbits) | (r & 0x7fff));
		other |= (mag - least >= span) & (mag != 0);
	}
	return other != 0;
}

#if CKPT_HAVE_FMA
/* encode_normal() in AVX2, 16 at a time (the compiler's loop, without
 * AVX-512's 64-to-16-bit move, and narrow_half()'s count of overflows
 * took 2.5 times as long): the same integer steps on 64-bit lanes,
 * narrowed by two 32-bit packs and a permutation, the last few by
 * encode_normal(); but a value that rounds to an infinity is left to the
 * scalar encoder too, so that where it returns 0 nothing overflowed. */
__attribute__((target("avx2"))) static inline __m256i normal_lanes(__m256i u, __m256i *ok,
                                                                 int ebits, int mbits)
{
	const int shift = 52 - mbits;
	const uint64_t rebias = (uint64_t)(1023 - ((1 << (ebits - 1)) - 1)) << 52;
	const uint64_t top = UINT64_C(1) << 63;
	const uint64_t least = rebias + (UINT64_C(1) << 52); /* the least normal */
	/* half an ulp past the largest finite, whose last bit is odd: the
	 * least magnitude that rounds to an infinity */
	const uint64_t over = rebias + ((uint64_t)((1 << ebits) - 1) << 52) - (UINT64_C(1) << (shift - 1));
	__m256i mag = _mm256_and_si256(u, _mm256_set1_epi64x(INT64_MAX)), r, in;

	/* (the constants mod 2^64, as the lanes' sums) */
	r = _mm256_add_epi64(mag,
	                     _mm256_set1_epi64x((int64_t)((UINT64_C(1) << (shift - 1)) - 1 - rebias)));
	r = _mm256_add_epi64(r, _mm256_and_si256(_mm256_srli_epi64(mag, shift), _mm256_set1_epi64x(1)));
	r = _mm256_srli_epi64(r, shift);
	/* least <= mag < over as one signed comparison: mag - least - 2^63
	 * below over - least - 2^63 */
	in = _mm256_cmpgt_epi64(_mm256_set1_epi64x((int64_t)(over - least - top)),
	                        _mm256_add_epi64(mag, _mm256_set1_epi64x((int64_t)(0 - least - top))));
	*ok = _mm256_and_si256(*ok, _mm256_or_si256(in, _mm256_cmpeq_epi64(mag, _mm256_setzero_si256())));
	r = _mm256_and_si256(r, in);
	return _mm256_or_si256(r, _mm256_and_si256(_mm256_srli_epi64(u, 48),
	                                           _mm256_set1_epi64x(0x8000)));
}

__attribute__((target("avx2"))) int ckpt_encode_half_avx2(const double *src, uint16_t *h, size_t n,
                                                           int ebits, int mbits)
{
	const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
	const uint16_t inf = (uint16_t)(((1 << ebits) - 1) << mbits);
	__m256i ok = _mm256_set1_epi64x(-1), l[4];
	size_t i = 0, overflowed = 0;

	for (; i + 16 <= n; i += 16) {
		for (int k = 0; k < 4; k++)
			l[k] = normal_lanes(_mm256_loadu_si256((const __m256i *)(src + i + 4 * k)), &ok,
			                    ebits, mbits);
		/* (every lane below 2^16: the packs keep it) */
		l[0] = _mm256_packus_epi32(_mm256_packus_epi32(l[0], l[1]),
		                           _mm256_packus_epi32(l[2], l[3]));
		_mm256_storeu_si256((__m256i *)(h + i), _mm256_permutevar8x32_epi32(l[0], order));
	}
	if (!_mm256_testc_si256(ok, _mm256_set1_epi64x(-1)) ||
	    encode_normal(src + i, h + i, n - i, ebits, mbits))
		return 1;
	for (; i < n; i++)
		overflowed |= (h[i] & 0x7fff) == inf;
	return overflowed != 0;
}

static int avx2_only(void)
{
	static int known = -1; /* (a benign race: every thread finds the same) */

	if (known < 0)
		known = !__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx2");
	return known;
}
#endif

static inline size_t narrow_half(const double *src, uint16_t *h, size_t n, int ebits, int mbits)
{
	const uint16_t inf = (uint16_t)(((1 << ebits) - 1) << mbits);
	size_t bad = 0;
	int other = 1;

#if CKPT_HAVE_FMA
	if (avx2_only()) {
		if (!ckpt_encode_half_avx2(src, h, n, ebits, mbits))
			return 0;
	} else
#endif
		other = encode_normal(src, h, n, ebits, mbits);
	if (other)
		for (size_t i = 0; i < n; i++)
			h[i] = (uint16_t)half_encode(src[i], ebits, mbits);
	/* (& and fabs, not && and isinf: no branch, so that this vectorises) */
	for (size_t i = 0; i < n; i++)
		bad += ((h[i] & 0x7fff) == inf) & (fabs(src[i]) <= DBL_MAX);
	return bad;
}

CKPT_WIDE_VECTORS /* and the 16-bit encoders */
size_t ckpt_from_double(ckpt_dtype t, const double *src, void *dst, size_t n)
{
	size_t bad = 0;
	uint16_t *h = dst;

	switch (t) {
	case CKPT_BOOL: NARROW_INT(signed char, 0.0, 2.0); break;
	case CKPT_I8: NARROW_INT(int8_t, -128.0, 128.0); break;
	case CKPT_I16: NARROW_INT(int16_t, -32768.0, 32768.0); break;
	case CKPT_I32: NARROW_INT(int32_t, -2147483648.0, 2147483648.0); break;
	case CKPT_U8: NARROW_INT(uint8_t, 0.0, 256.0); break;
	case CKPT_U16: NARROW_INT(uint16_t, 0.0, 65536.0); break;
	case CKPT_U32: NARROW_INT(uint32_t, 0.0, 4294967296.0); break;
	case CKPT_I64: bad = narrow_i64(src, dst, n); break;
	case CKPT_U64: bad = narrow_u64(src, dst, n); break;
	case CKPT_F64: memcpy(dst, src, n * sizeof *src); break;
	case CKPT_F32: {
		float *o = dst;
		uint64_t over = 0; /* (64-bit lanes, as the doubles': the loop vectorises) */

		/* a finite value rounds to an infinity from 2^128 - 2^103 up (half an
		 * ulp past FLT_MAX, whose last bit is odd) */
		for (size_t i = 0; i < n; i++) {
			o[i] = (float)src[i];
			over += fabs(src[i]) >= 0x1.ffffffp127 && fabs(src[i]) <= DBL_MAX ? 1u : 0u;
		}
		bad = over;
		break;
	}
	case CKPT_F16: bad = narrow_half(src, h, n, 5, 10); break;
	case CKPT_BF16: bad = narrow_half(src, h, n, 8, 7); break;
	case CKPT_F8E4M3: /* (no infinity: overflow and Inf are NaN) */
		for (size_t i = 0; i < n; i++) {
			((uint8_t *)dst)[i] = ckpt_double_to_e4m3(src[i]);
			bad += (((uint8_t *)dst)[i] & 0x7f) == 0x7f && !isnan(src[i]);
		}
		break;
	case CKPT_F8E5M2:
		for (size_t i = 0; i < n; i++) {
			((uint8_t *)dst)[i] = ckpt_double_to_e5m2(src[i]);
			bad += (((uint8_t *)dst)[i] & 0x7f) == 0x7c && fabs(src[i]) <= DBL_MAX;
		}
		break;
	default: break;
	}
	return bad;
}

size_t ckpt_bool_normalize(void *buf, size_t n)
{
	unsigned char *b = buf;
	size_t odd = 0;

	for (size_t i = 0; i < n; i++)
		if (b[i] > 1) {
			b[i] = 1;
			odd++;
		}
	return odd;
}

int ckpt_host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 0;
}

void ckpt_swap_bytes(void *buf, size_t n, size_t elsize)
{
	unsigned char *p = buf;

	if (elsize < 2)
		return;
	for (size_t i = 0; i < n; i++, p += elsize)
		for (size_t a = 0, b = elsize - 1; a < b; a++, b--) {
			unsigned char t = p[a];

			p[a] = p[b];
			p[b] = t;
		}
}
