/* h5type.c - the toolkit's element types as HDF5 datatypes, both ways. */
#include "h5.h"

#include <stdlib.h>
#include <string.h>

/* h5py stores numpy bool as an enum of int8 with FALSE=0 and TRUE=1. */
static int is_bool_enum(hid_t h5type)
{
	hid_t base;
	int ok = 0;

	if (H5Tget_nmembers(h5type) != 2)
		return 0;
	base = H5Tget_super(h5type);
	if (base >= 0 && H5Tget_class(base) == H5T_INTEGER &&
	    H5Tget_size(base) == 1) {
		signed char v0 = -1, v1 = -1;
		char *n0 = H5Tget_member_name(h5type, 0);
		char *n1 = H5Tget_member_name(h5type, 1);

		/* The base is 1 byte, so a char receives the value exactly. */
		H5Tget_member_value(h5type, 0, &v0);
		H5Tget_member_value(h5type, 1, &v1);
		ok = n0 && n1 && strcmp(n0, "FALSE") == 0 && v0 == 0 &&
		     strcmp(n1, "TRUE") == 0 && v1 == 1;
		H5free_memory(n0);
		H5free_memory(n1);
	}
	if (base >= 0)
		H5Tclose(base);
	return ok;
}

static ckpt_dtype float_of(hid_t h5type)
{
	size_t spos, epos, esize, mpos, msize;
	size_t size = H5Tget_size(h5type);

	if (H5Tget_fields(h5type, &spos, &epos, &esize, &mpos, &msize) < 0)
		return CKPT_OTHER;
	if (H5Tget_norm(h5type) != H5T_NORM_IMPLIED || mpos != 0)
		return CKPT_OTHER;
	if (size == 2 && esize == 5 && msize == 10 &&
	    H5Tget_ebias(h5type) == 15)
		return CKPT_F16;
	if (size == 2 && esize == 8 && msize == 7 &&
	    H5Tget_ebias(h5type) == 127)
		return CKPT_BF16;
	if (size == 4 && esize == 8 && msize == 23 &&
	    H5Tget_ebias(h5type) == 127)
		return CKPT_F32;
	if (size == 8 && esize == 11 && msize == 52 &&
	    H5Tget_ebias(h5type) == 1023)
		return CKPT_F64;
	return CKPT_OTHER;
}

static ckpt_dtype integer_of(hid_t h5type)
{
	size_t size = H5Tget_size(h5type);
	int sgn = H5Tget_sign(h5type) == H5T_SGN_2;

	if (H5Tget_precision(h5type) != 8 * size || H5Tget_offset(h5type))
		return CKPT_OTHER; /* packed bit fields are not plain integers */
	switch (size) {
	case 1: return sgn ? CKPT_I8 : CKPT_U8;
	case 2: return sgn ? CKPT_I16 : CKPT_U16;
	case 4: return sgn ? CKPT_I32 : CKPT_U32;
	case 8: return sgn ? CKPT_I64 : CKPT_U64;
	default: return CKPT_OTHER;
	}
}

ckpt_dtype ckpt_dtype_of(hid_t h5type)
{
	switch (H5Tget_class(h5type)) {
	case H5T_FLOAT: return float_of(h5type);
	case H5T_INTEGER: return integer_of(h5type);
	case H5T_ENUM: return is_bool_enum(h5type) ? CKPT_BOOL : CKPT_OTHER;
	default: return CKPT_OTHER;
	}
}

/* A 16-bit float type derived from base (a 32-bit float type): the recipe
 * h5py uses for float16, with the field layout of the format asked for. */
static hid_t minifloat_type(hid_t base, size_t esize, size_t msize)
{
	hid_t t = H5Tcopy(base);

	if (t < 0)
		return t;
	if (H5Tset_fields(t, 15, msize, esize, 0, msize) < 0 ||
	    H5Tset_size(t, 2) < 0 ||
	    H5Tset_ebias(t, (1u << (esize - 1)) - 1) < 0) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

static hid_t bool_type(hid_t base)
{
	hid_t t = H5Tenum_create(base);
	signed char f = 0, tr = 1;

	if (t < 0)
		return t;
	if (H5Tenum_insert(t, "FALSE", &f) < 0 ||
	    H5Tenum_insert(t, "TRUE", &tr) < 0) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

static hid_t type_for(ckpt_dtype t, int native)
{
	switch (t) {
	case CKPT_BOOL: return bool_type(native ? H5T_NATIVE_SCHAR : H5T_STD_I8LE);
	case CKPT_I8: return H5Tcopy(native ? H5T_NATIVE_INT8 : H5T_STD_I8LE);
	case CKPT_I16: return H5Tcopy(native ? H5T_NATIVE_INT16 : H5T_STD_I16LE);
	case CKPT_I32: return H5Tcopy(native ? H5T_NATIVE_INT32 : H5T_STD_I32LE);
	case CKPT_I64: return H5Tcopy(native ? H5T_NATIVE_INT64 : H5T_STD_I64LE);
	case CKPT_U8: return H5Tcopy(native ? H5T_NATIVE_UINT8 : H5T_STD_U8LE);
	case CKPT_U16: return H5Tcopy(native ? H5T_NATIVE_UINT16 : H5T_STD_U16LE);
	case CKPT_U32: return H5Tcopy(native ? H5T_NATIVE_UINT32 : H5T_STD_U32LE);
	case CKPT_U64: return H5Tcopy(native ? H5T_NATIVE_UINT64 : H5T_STD_U64LE);
	case CKPT_F16:
		return minifloat_type(native ? H5T_NATIVE_FLOAT : H5T_IEEE_F32LE, 5, 10);
	case CKPT_BF16:
		return minifloat_type(native ? H5T_NATIVE_FLOAT : H5T_IEEE_F32LE, 8, 7);
	case CKPT_F32: return H5Tcopy(native ? H5T_NATIVE_FLOAT : H5T_IEEE_F32LE);
	case CKPT_F64: return H5Tcopy(native ? H5T_NATIVE_DOUBLE : H5T_IEEE_F64LE);
	default: return -1;
	}
}

int ckpt_h5_has_type(ckpt_dtype t)
{
	return t != CKPT_F8E4M3 && t != CKPT_F8E5M2; /* (no HDF5 or numpy type) */
}

hid_t ckpt_dtype_memtype(ckpt_dtype t)
{
	return type_for(t, 1);
}

hid_t ckpt_dtype_filetype(ckpt_dtype t)
{
	return type_for(t, 0);
}


/* The text of attribute a when it is one string (fixed or variable length,
 * any character set): 1 with *text malloc'd, 0 when it is not one string,
 * -1 on failure. */
int ckpt_h5_read_string_attr(hid_t a, char **text, size_t *len)
{
	hid_t t = H5Aget_type(a), sp = H5Aget_space(a), mt = -1;
	int rc = 0;
	size_t got = 0;

	*text = NULL;
	if (t < 0 || sp < 0 || H5Tget_class(t) != H5T_STRING ||
	    H5Sget_simple_extent_npoints(sp) != 1 || (mt = H5Tcopy(t)) < 0)
		goto out;
	rc = -1;
	if (H5Tis_variable_str(t) > 0) {
		char *v = NULL;

		if (H5Aread(a, mt, &v) >= 0 && v) {
			*text = strdup(v);
			got = strlen(v);
			H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, &v);
		}
	} else {
		size_t n = H5Tget_size(t);

		if (n && (*text = calloc(1, n + 1)) && H5Aread(a, mt, *text) < 0) {
			free(*text);
			*text = NULL;
		}
		/* every byte of a fixed-length string, NUL included, but the
		 * padding: after the first NUL for a NUL-terminated one */
		if (*text && H5Tget_strpad(t) == H5T_STR_NULLTERM)
			got = strlen(*text);
		else
			for (got = n; *text && got > 0 && (*text)[got - 1] == '\0'; got--)
				;
	}
	if (*text)
		rc = 1;
	if (len)
		*len = got;
out:
	if (mt >= 0)
		H5Tclose(mt);
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	H5Eclear2(H5E_DEFAULT);
	return rc;
}
