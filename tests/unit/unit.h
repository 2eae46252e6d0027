/* unit.h - what every cmocka unit test of libckpt includes. */
#ifndef CKPT_UNIT_H
#define CKPT_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/ckpt.h"
#include "lib/h5.h"   /* the library's internals are tested too */
#include "lib/i128.h"

static inline uint64_t bits_of(double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof b);
	return b;
}

/* A temporary directory for a test group: unit_tmpdir() in setup, then
 * unit_rmdir() in teardown removes it with the files the tests left. */
static char unit_dir[64];

static inline int unit_tmpdir(void **state)
{
	(void)state;
	snprintf(unit_dir, sizeof unit_dir, "/tmp/ckpt-unit.XXXXXX");
	return mkdtemp(unit_dir) ? 0 : -1;
}

static inline int unit_rmdir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", unit_dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* name inside the test group's directory; four calls' results stay
 * valid at once. */
static inline const char *unit_path(const char *name)
{
	static char p[4][128];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", unit_dir, name);
	return p[k];
}

/* A float64 scalar variable in o, through the writer's public API:
 * create, open, write its one region, close. */
static inline void unit_write_scalar(ckpt_out *o, const char *name, double v)
{
	ckpt_region whole = {.rank = 0, .n = 1};
	ckpt_outvar *w;

	assert_int_equal(ckpt_out_create_var(o, name, CKPT_F64, 0, NULL), 0);
	assert_non_null(w = ckpt_outvar_open(o, name, CKPT_F64));
	assert_int_equal(ckpt_outvar_write(w, &whole, &v), 0);
	ckpt_outvar_close(w);
}

/* cmocka's assert_float_equal works in float; checkpoints need double. */
#define assert_close(a, b, rel)                                              \
	do {                                                                 \
		double a_ = (a), b_ = (b);                                   \
		if (!(fabs(a_ - b_) <= (rel) * fabs(b_)))                    \
			fail_msg("%.17g is not within %g of %.17g", a_,      \
			         (double)(rel), b_);                         \
	} while (0)

#endif
