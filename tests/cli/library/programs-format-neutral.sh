# No program calls a format library: the programs (and their shared
# prog.c) use libckpt's format-neutral API only.
hits=$(grep -nE '\bH5[A-Z][a-z]*[A-Z_(]|\bhid_t\b|\bhsize_t\b|<hdf5\.h>|"lib/h5\.h"|"lib/refs\.h"' \
    "$TOP"/src/ckpt-*.c "$TOP"/src/prog.c "$TOP"/src/prog.h)
[ -z "$hits" ] || fail "HDF5 in a program: $hits"
