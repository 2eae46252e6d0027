/* sniff.h - (internal to libckpt) what a file ckpt does not read is: the
 * other formats checkpoints and models come in (PyTorch, TensorFlow,
 * TensorFlow Lite, NumPy, GGUF, ONNX), recognised by content (and a name
 * where the content has no mark), so that the error names the format
 * instead of saying only what the file is not. */
#ifndef CKPT_SNIFF_H
#define CKPT_SNIFF_H

#include <stddef.h>

/* The format of a file of size bytes whose first n bytes are head (and,
 * when size >= 8, whose last 8 are tail, or NULL when unknown) and whose
 * name is name (or NULL): "a TensorFlow Lite model", ...; NULL when it is
 * none ckpt knows of. */
const char *ckpt_sniff(const unsigned char *head, size_t n, const unsigned char *tail,
                       const char *name);

/* For the file (or directory) at path, or the image buf of size bytes shown
 * as shown: if it is of a format ckpt knows but does not read, set the
 * error naming it and return -1; otherwise return 0. */
int ckpt_sniff_path(const char *path);
int ckpt_sniff_image(const char *shown, const void *buf, size_t size);

/* The error for shown, a file of format what (as ckpt_sniff() names it;
 * "a TensorFlow checkpoint prefix", ...): -1; 0 when what is NULL. */
int ckpt_sniff_named(const char *shown, const char *what);

/* For an archive whose members are names[0..n): its format when the
 * members say (a PyTorch zip, a NumPy .npz), or NULL. */
const char *ckpt_sniff_members(const char *const *names, size_t n);

#endif
