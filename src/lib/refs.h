/* refs.h - (internal to libckpt) values whose bytes are not their meaning: references (to an
 * object, or to a region of a dataset) and variable-length data, at any
 * depth of a compound or array type.
 *
 * A reference names an object by its address in one file: copied as bytes
 * into another file it points nowhere (HDF5's object copy sets it to
 * null).  The copy re-points it to the object at the same path in the new
 * file; two references are the same when they point to the same path (and
 * the same selection). */
#ifndef CKPT_REFS_H
#define CKPT_REFS_H

#include <stddef.h>

#include "h5.h"

/* After src's structure was copied into dst: every reference held by a
 * dataset or an attribute of src, written again in dst's counterpart,
 * pointing to the object of the same path in dst.  A reference whose
 * object dst lacks becomes null, with a warning (ckpt_warnf). */
int ckpt_h5_copy_refs(const ckpt_file *src, hid_t dst);

/* ckpt_copy_ref_values() is in out.h. */

/* Whether n values of memory type type hold the same: a's references
 * resolved in file fa, b's in fb; variable-length data by value.  1 yes,
 * 0 no, -1 on error (with a message). */
int ckpt_values_same(hid_t type, const void *a, hid_t fa, const void *b, hid_t fb,
                     size_t n);

/* Whether type holds references or variable-length data (not strings). */
int ckpt_type_has_refs(hid_t type);

#endif
