# Every real file under ../shared/testdata/real: ckpt-read agrees with h5py,
# or both fail on it (unknown datatype classes, unavailable filters, files
# left open for writing).
slow_case
not_under_valgrind
need_h5py
need_real
find "$REAL" -name '*.h5' -o -name '*.hdf5' | sort >"$T/files"
[ -s "$T/files" ] || skip "no real files found"
"$PY" "$TOP/tests/interop/read_check.py" "$BIN/ckpt-read" $(cat "$T/files") \
	>"$T/log" 2>&1 || fail "$(grep -v ': ok' "$T/log")"
