/* dtype.h - the element types of checkpoint variables, and exact conversion
 * of their values to and from double, the toolkit's working type. */
#ifndef CKPT_DTYPE_H
#define CKPT_DTYPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum ckpt_dtype {
	CKPT_OTHER = 0, /* not numeric (strings, compounds, ...): carried along */
	CKPT_BOOL,      /* h5py's enum {FALSE=0, TRUE=1} on int8 */
	CKPT_I8, CKPT_I16, CKPT_I32, CKPT_I64,
	CKPT_U8, CKPT_U16, CKPT_U32, CKPT_U64,
	CKPT_F16, CKPT_BF16, CKPT_F32, CKPT_F64,
	CKPT_F8E4M3,    /* OCP float8 E4M3 ("fn": no infinity, NaN S.1111.111) */
	CKPT_F8E5M2,    /* OCP float8 E5M2 (IEEE-like: the top byte of a float16) */
	CKPT_NDTYPES
} ckpt_dtype;

/* The integer types with their C types in memory, for code that must
 * switch on the type: X(tag, ctype) for each. */
#define CKPT_INTEGER_TYPES(X) \
	X(CKPT_BOOL, signed char) X(CKPT_I8, int8_t) X(CKPT_I16, int16_t) \
	X(CKPT_I32, int32_t) X(CKPT_I64, int64_t) X(CKPT_U8, uint8_t) \
	X(CKPT_U16, uint16_t) X(CKPT_U32, uint32_t) X(CKPT_U64, uint64_t)

/* "float32", "bfloat16", "uint8", "bool", ...; "other" for CKPT_OTHER. */
const char *ckpt_dtype_name(ckpt_dtype t);

/* Accepts the long names and the short ones (f16 bf16 f32 f64 f8e4m3
 * f8e5m2 i8..i64 u8..u64 bool).  Returns -1 with a message for anything
 * else. */
int ckpt_dtype_parse(const char *s, ckpt_dtype *out);

size_t ckpt_dtype_size(ckpt_dtype t);
int ckpt_dtype_is_float(ckpt_dtype t);
int ckpt_dtype_is_signed(ckpt_dtype t); /* signed integers only */

/* Exact widening of n values in memory layout of t to double (int64 and
 * uint64 beyond 2^53 round to nearest, ties to even). */
void ckpt_to_double(ckpt_dtype t, const void *src, double *dst, size_t n);

/* Narrowing with round-to-nearest-even; floats overflow to +-Inf, integers
 * saturate.  Returns how many values could not be represented (a finite
 * value that became Inf, or for integers NaN/Inf/out of range). */
size_t ckpt_from_double(ckpt_dtype t, const double *src, void *dst, size_t n);

/* Whether this machine stores values big-endian. */
int ckpt_host_big_endian(void);

/* Bool bytes other than 0 and 1 (from a raw stream) made 1, as C and numpy
 * read them; returns how many there were. */
size_t ckpt_bool_normalize(void *buf, size_t n);

/* Reverse the byte order of n values of elsize bytes, in place. */
void ckpt_swap_bytes(void *buf, size_t n, size_t elsize);

/* 16-bit float formats: bit patterns <-> double.  Exact in both directions
 * for every value (NaN payloads kept, subnormals included); the narrowing
 * rounds to nearest even directly from double, never through float32. */
double ckpt_f16_to_double(uint16_t bits);
double ckpt_bf16_to_double(uint16_t bits);
uint16_t ckpt_double_to_f16(double v);
uint16_t ckpt_double_to_bf16(double v);

/* The 8-bit float formats, likewise exact, rounding to nearest even.
 * E4M3 has no infinity: a value beyond its largest (448) by more than half
 * a step becomes NaN, as the OCP specification and PyTorch convert. */
double ckpt_e4m3_to_double(uint8_t bits);
double ckpt_e5m2_to_double(uint8_t bits);
uint8_t ckpt_double_to_e4m3(double v);
uint8_t ckpt_double_to_e5m2(double v);

/* The generic binary-float conversions they are tested against (written
 * for clarity, not speed): v rounded to nearest even into a format of ebits
 * exponent and mbits mantissa bits (at most 8 and 23), as a bit pattern,
 * and back.  With (8, 23) it is float32, which is how it is tested against
 * the hardware. */
uint32_t ckpt_float_encode(double v, int ebits, int mbits);
double ckpt_float_decode(uint32_t bits, int ebits, int mbits);

#endif
