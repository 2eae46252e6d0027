# A variable whose filter HDF5 cannot load names the filter and where
# Debian has a plugin that loads: LZF (h5py's; Debian's hdf5-plugin-lzf
# fails to load) and bitshuffle are in the bitshuffle package's own plugin
# directory, which HDF5_PLUGIN_PATH must name.  HDF5_PLUGIN_PATH points at
# an empty directory here, so no plugin is found whatever is installed.
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np
with h5py.File("lzf.h5", "w") as f:
    f.create_dataset("w", data=np.arange(1000, dtype="f4"), compression="lzf")
with h5py.File("bs.h5", "w") as f:
    d = f.create_dataset("w", shape=(100,), dtype="f4", chunks=(100,),
                         compression=32008, compression_opts=(0, 2),
                         allow_unknown_filter=True)
    d.id.write_direct_chunk((0,), b"\0" * 400, filter_mask=0)
PY
mkdir -p none
for f in lzf bs; do
	HDF5_PLUGIN_PATH="$T/none" run ckpt-read --stats $f.h5
	expect_error ckpt-read "$f.h5: variable 'w': compressed with HDF5 filter 320(00|08).*Debian's bitshuffle, then HDF5_PLUGIN_PATH=/usr/lib/python3/dist-packages/bitshuffle/plugin\)$"
done
