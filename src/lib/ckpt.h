/* ckpt.h - libckpt, the library behind the ckpt programs: neural-network
 * checkpoints (named arrays in HDF5 files) opened, listed, read in bounded
 * slabs, converted exactly, summarised and written atomically. */
#ifndef CKPT_H
#define CKPT_H

#define CKPT_VERSION "0.1.0"

/* The format and container libraries in use, for --version:
 * "HDF5 1.10.8, libarchive 3.6.2". */
const char *ckpt_versions(void);

#include "err.h"
#include "dtype.h"
#include "convert.h"
#include "container.h"
#include "file.h"
#include "slab.h"
#include "stats.h"
#include "select.h"
#include "fmt.h"
#include "out.h"
#include "sink.h"
#include "inputs.h"
#include "compare.h"
#include "rng.h"
#include "combine.h"
#include "linear.h"
#include "flat.h"
#include "bundle.h"
#include "shard.h"
#include "par.h"

#endif
