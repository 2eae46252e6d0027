# A damaged or unreadable TensorFlow bundle is one line naming the file and
# what is wrong, exit 2, nothing written: a tensor's bytes changed (its CRC),
# a table block changed (its CRC), the index or a data shard cut short, a
# data shard missing, a big-endian bundle, a partitioned variable, a table
# without the bundle header, an index from standard input.
need_h5py
cd "$T"
M="$TOP/tests/cli/tf/mkbundle.py"
"$PY" - "$M" <<'PY' || fail "cannot make the bundles"
import os, subprocess, sys
m = sys.argv[1]
def make(prefix, *args):
    subprocess.run([sys.executable, m, prefix, "a=float32:64:1", "b=float64:8:2"] + list(args),
                   check=True)
make("ok")
make("crc")
with open("crc.data-00000-of-00001", "r+b") as f:   # a value of a changed
    f.seek(9); b = f.read(1); f.seek(9); f.write(bytes([b[0] ^ 1]))
make("block")
with open("block.index", "r+b") as f:                # a byte of the first block
    f.seek(3); b = f.read(1); f.seek(3); f.write(bytes([b[0] ^ 0x40]))
make("short")
os.truncate("short.data-00000-of-00001", 100)
make("cut")
os.truncate("cut.index", os.path.getsize("cut.index") - 1)
make("gone", "--shards", "2")
os.remove("gone.data-00001-of-00002")
make("big", "--big-endian")
make("sliced", "--slices", "b")
make("headless", "--no-header")
PY
fail_with() { # PREFIX PATTERN
	run ckpt-average -o out.h5 ok "$1"
	expect_error ckpt-average "$2"
	expect_no_file out.h5
}
fail_with crc "^ckpt-average: crc: variable 'a' fails its CRC \(the data file is damaged\)$"
fail_with block '^ckpt-average: block: the block at byte 0 fails its CRC \(the file is damaged\)$'
fail_with short "^ckpt-average: short: variable 'a' lies beyond the end of data shard 0 \(truncated\?\)$"
fail_with cut '^ckpt-average: cut.index: named like a TensorFlow checkpoint index, but without the table footer'
fail_with gone '^ckpt-average: gone: its data file gone.data-00001-of-00002: No such file or directory$'
fail_with big '^ckpt-average: big: a big-endian TensorFlow bundle: ckpt reads little-endian ones$'
fail_with sliced "^ckpt-average: sliced: variable 'b' is partitioned \(saved in slices\): ckpt does not assemble partitioned variables yet$"
fail_with headless '^ckpt-average: headless: no bundle header before the first tensor'
run sh -c 'ckpt-read - < ok.index'
expect_error ckpt-read '^ckpt-read: \(stdin\): a TensorFlow bundle is read from its files'
run ckpt-read --stats ok
expect_status 0

# Writing a bundle: one line, exit 2, neither of its files left behind (or
# the old ones unchanged) for standard output, an existing target without
# -f (its index or its data file), inputs that do not match; a string
# tensor of another format (an HDF5 one) is left out in one warning.
run ckpt-average -o - ok
expect_error ckpt-average '^ckpt-average: \(stdout\): a TensorFlow bundle is two files \(PREFIX.index and its data\)'
ckpt-average -q -o old.index ok || fail "cannot write old.index"
cp old.index old.index.was && cp old.data-00000-of-00001 old.data.was
run ckpt-average -o old.index ok ok
expect_error ckpt-average '^ckpt-average: old.index: already exists \(use -f to replace it\)$'
cmp -s old.index old.index.was && cmp -s old.data-00000-of-00001 old.data.was ||
	fail "old bundle changed"
: >half.data-00000-of-00001
run ckpt-average -o half ok
expect_error ckpt-average '^ckpt-average: half.data-00000-of-00001: already exists \(use -f'
expect_no_file half.index
"$PY" "$M" other "a=float32:65:1" "b=float64:8:2" || fail "cannot make other"
run ckpt-average -o mix.index ok other
expect_error ckpt-average "^ckpt-average: other: variable 'a' has shape \[65\], ok has \[64\]$"
expect_no_file mix.index mix.data-00000-of-00001
run ckpt-average -f -o old.index ok ok
expect_status 0
"$PY" - <<'PY' || fail "cannot make strings.h5"
import h5py, numpy as np
with h5py.File("strings.h5", "w") as f:
    f["w"] = np.arange(3, dtype="f4")
    f["name"] = b"dense"
PY
run ckpt-average -o s.index strings.h5
expect_status 0
[ "$(cat "$T/err")" = "ckpt-average: s.index: left out what a TensorFlow bundle cannot hold: 1 non-numeric variable ('name')" ] ||
	fail "string: $(cat "$T/err")"
