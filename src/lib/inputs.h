/* inputs.h - opening what a user names as input: an HDF5 file, "-" (stdin,
 * read into memory), or an archive (tar, compressed or not, and zip, such
 * as a Keras 3 .keras file) whose HDF5 members are each an input, in
 * archive order.  Members are read into memory, never extracted to disk,
 * and named "archive:member" in messages. */
#ifndef CKPT_INPUTS_H
#define CKPT_INPUTS_H

#include <stddef.h>

#include "file.h"

/* Append the checkpoints path holds to *files (grown with realloc), adding
 * to *n.  On failure nothing is appended, and the message names the file
 * (and member). */
int ckpt_open_inputs(const char *path, ckpt_file ***files, size_t *n);

/* Close all of them and free the array. */
void ckpt_close_inputs(ckpt_file **files, size_t n);

#endif
