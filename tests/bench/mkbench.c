/* mkbench - write a transformer-like float32 checkpoint for make bench.
 *
 *   mkbench SEED FILE [SCALE]
 *   mkbench SEED FILE --one GIB     one float32 variable of GIB GiB
 *   mkbench SEED FILE --gzip SCALE  each variable in chunks of 1 MiB or
 *                                   less, gzip level 1 (written by every
 *                                   rank of an MPI run together)
 *
 * A token and a position embedding, then per layer the norms, qkv, out, up
 * and down matrices with biases: 12 layers of width 1152 (SCALE 1) make
 * 152 variables and about 1 GiB.  Values are pseudo-random in [-1, 1),
 * different for each SEED. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ckpt.h"
#include "lib/h5.h" /* fixtures are made with HDF5 itself */

static uint64_t rng;
static int gzip;

static float next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (float)((double)(rng >> 11) * 0x1p-52 - 1.0);
}

/* Written in row blocks, so that the generator too runs in bounded memory. */
static void put(hid_t f, const char *name, hsize_t rows, hsize_t cols)
{
	hsize_t dims[2] = {rows, cols}, block = (1 << 22) / (cols ? cols : 1);
	int rank = cols ? 2 : 1;
	hid_t lcpl = H5Pcreate(H5P_LINK_CREATE), dcpl = H5Pcreate(H5P_DATASET_CREATE), sp, d;
	hsize_t chunk[2] = {(1 << 18) / (cols ? cols : 1), cols};
	float *buf;

	if (!cols)
		dims[0] = rows, block = rows;
	if (block == 0)
		block = 1;
	chunk[0] = chunk[0] < 1 ? 1 : chunk[0] > dims[0] ? dims[0] : chunk[0];
	if (gzip) {
		H5Pset_chunk(dcpl, rank, chunk);
		H5Pset_deflate(dcpl, 1);
	}
	H5Pset_create_intermediate_group(lcpl, 1);
	sp = H5Screate_simple(rank, dims, NULL);
	d = H5Dcreate2(f, name, H5T_IEEE_F32LE, sp, lcpl, dcpl, H5P_DEFAULT);
	buf = malloc(block * (cols ? cols : 1) * sizeof *buf);
	for (hsize_t r = 0; r < rows; r += block) {
		hsize_t n = rows - r < block ? rows - r : block;
		hsize_t start[2] = {r, 0}, count[2] = {n, cols}, total = n * (cols ? cols : 1);
		hid_t ms = H5Screate_simple(1, &total, NULL);

		for (hsize_t i = 0; i < total; i++)
			buf[i] = next();
		H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, count, NULL);
		if (H5Dwrite(d, H5T_NATIVE_FLOAT, ms, sp, H5P_DEFAULT, buf) < 0) {
			fprintf(stderr, "mkbench: cannot write %s\n", name);
			exit(1);
		}
		H5Sclose(ms);
	}
	free(buf);
	H5Dclose(d);
	H5Sclose(sp);
	H5Pclose(dcpl);
	H5Pclose(lcpl);
}

int main(int argc, char **argv)
{
	double scale;
	hsize_t d, vocab = 50257;
	hid_t f;
	char name[128];

	if (argc < 3) {
		fprintf(stderr, "usage: mkbench SEED FILE [SCALE | --gzip SCALE | --one GIB]\n");
		return 2;
	}
	gzip = argc == 5 && strcmp(argv[3], "--gzip") == 0;
	scale = argc == 4 ? atof(argv[3]) : gzip ? atof(argv[4]) : 1;
	d = (hsize_t)(1152 * scale);
	ckpt_init();
	rng = 0x9E3779B97F4A7C15ULL * (strtoull(argv[1], NULL, 10) + 1);
	if ((f = H5Fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) < 0)
		return 1;
	if (argc > 4 && strcmp(argv[3], "--one") == 0) {
		put(f, "huge", (hsize_t)(atof(argv[4]) * (1 << 28)), 0);
		H5Fclose(f);
		return 0;
	}
	put(f, "embed/tokens", vocab, d);
	put(f, "embed/positions", 2048, d);
	for (int l = 0; l < 12; l++) {
		static const struct { const char *n; int rows, cols; } p[] = {
			{"ln1/gamma", 1, 0}, {"ln1/beta", 1, 0},
			{"attn/qkv/kernel", 1, 3}, {"attn/qkv/bias", 3, 0},
			{"attn/out/kernel", 1, 1}, {"attn/out/bias", 1, 0},
			{"ln2/gamma", 1, 0}, {"ln2/beta", 1, 0},
			{"mlp/up/kernel", 1, 4}, {"mlp/up/bias", 4, 0},
			{"mlp/down/kernel", 4, 1}, {"mlp/down/bias", 1, 0},
		};
		for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
			snprintf(name, sizeof name, "layer%02d/%s", l, p[i].n);
			put(f, name, p[i].rows * d, p[i].cols * d);
		}
	}
	put(f, "final_norm/gamma", d, 0);
	put(f, "final_norm/beta", d, 0);
	H5Fclose(f);
	return 0;
}
