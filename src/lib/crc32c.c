/* crc32c.c - CRC-32C: eight table look-ups per 8 bytes (slicing by 8), or
 * the SSE4.2 crc32 instruction, chosen at run time.  The instruction takes
 * three cycles and can start one each cycle: long buffers run as three
 * interleaved streams over adjacent blocks, joined by shifting the first
 * two over the zeros of the blocks after them (a linear map, four table
 * look-ups). */
#include "crc32c.h"

#include <pthread.h>
#include <string.h>

#define POLY 0x82f63b78u /* Castagnoli, bits reversed */

static uint32_t table[8][256];

static void make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
}

static uint32_t by_table(uint32_t c, const unsigned char *p, size_t n)
{
	for (; n >= 8; p += 8, n -= 8) {
		uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		                   (uint32_t)p[3] << 24);

		c = table[7][lo & 0xff] ^ table[6][lo >> 8 & 0xff] ^ table[5][lo >> 16 & 0xff] ^
		    table[4][lo >> 24] ^ table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^
		    table[0][p[7]];
	}
	while (n--)
		c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
	return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(CKPT_PORTABLE)
#include <nmmintrin.h>
#define HAVE_SSE42_PATH 1

#define STREAM 4096 /* bytes of each of the three streams per round */

/* The register after STREAM (shift[0]) or 2 STREAM (shift[1]) zero bytes,
 * by the register's bytes. */
static uint32_t shift[2][4][256];

static uint32_t over_zeros(uint32_t c, size_t n)
{
	while (n--)
		c = (c >> 8) ^ table[0][c & 0xff];
	return c;
}

static void make_shifts(void)
{
	for (int s = 0; s < 2; s++)
		for (int byte = 0; byte < 4; byte++) {
			uint32_t bit[8];

			for (int k = 0; k < 8; k++)
				bit[k] = over_zeros(1u << (8 * byte + k), (size_t)STREAM * (s + 1));
			for (uint32_t v = 0; v < 256; v++) {
				uint32_t c = 0;

				for (int k = 0; k < 8; k++)
					if (v >> k & 1)
						c ^= bit[k];
				shift[s][byte][v] = c;
			}
		}
}

static uint32_t shifted(int s, uint32_t c)
{
	return shift[s][0][c & 0xff] ^ shift[s][1][c >> 8 & 0xff] ^ shift[s][2][c >> 16 & 0xff] ^
	       shift[s][3][c >> 24];
}

__attribute__((target("sse4.2")))
static uint32_t by_instruction(uint32_t c, const unsigned char *p, size_t n)
{
	uint64_t c64 = c;

	for (; n >= 3 * STREAM; p += 3 * STREAM, n -= 3 * STREAM) {
		uint64_t a = c64, b = 0, d = 0;

		for (size_t i = 0; i < STREAM; i += 8) {
			uint64_t wa, wb, wd;

			memcpy(&wa, p + i, 8);
			memcpy(&wb, p + STREAM + i, 8);
			memcpy(&wd, p + 2 * STREAM + i, 8);
			a = _mm_crc32_u64(a, wa);
			b = _mm_crc32_u64(b, wb);
			d = _mm_crc32_u64(d, wd);
		}
		c64 = shifted(1, (uint32_t)a) ^ shifted(0, (uint32_t)b) ^ (uint32_t)d;
	}
	for (; n >= 8; p += 8, n -= 8) {
		uint64_t w;

		memcpy(&w, p, sizeof w);
		c64 = _mm_crc32_u64(c64, w);
	}
	c = (uint32_t)c64;
	while (n--)
		c = _mm_crc32_u8(c, *p++);
	return c;
}

static int instruction; /* whether the CPU has it */
#else
#define HAVE_SSE42_PATH 0
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void setup(void)
{
	make_table();
#if HAVE_SSE42_PATH
	__builtin_cpu_init();
	instruction = __builtin_cpu_supports("sse4.2");
	if (instruction)
		make_shifts();
#endif
}

uint32_t ckpt_crc32c_extend(uint32_t crc, const void *buf, size_t n)
{
	pthread_once(&once, setup);
#if HAVE_SSE42_PATH
	if (instruction)
		return ~by_instruction(~crc, buf, n);
#endif
	return ~by_table(~crc, buf, n);
}

uint32_t ckpt_crc32c_by_table(uint32_t crc, const void *buf, size_t n)
{
	pthread_once(&once, setup);
	return ~by_table(~crc, buf, n);
}
