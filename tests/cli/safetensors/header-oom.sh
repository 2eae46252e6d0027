# Out of memory while parsing a safetensors header says so (it said "not
# valid JSON (byte 0)"): a header holding one 90 MB metadata string (which
# the reader keeps whole, however it parses) read under a 150 MB
# address-space limit.  Not under ASan or valgrind, whose own memory the
# limit would take.
not_under_valgrind
! ldd "$REALBIN/ckpt-read" 2>/dev/null | grep -q libasan || skip "built with ASan"
need_h5py
"$PY" - <<'PY' || fail "cannot make the input"
import json, struct
hdr = {"__metadata__": {"big": "x" * (90 << 20)},
       "t": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}
h = json.dumps(hdr).encode()
h += b" " * ((8 - len(h) % 8) % 8)
open("big.safetensors", "wb").write(struct.pack("<Q", len(h)) + h + b"\0" * 4)
PY
run sh -c 'ulimit -v 150000 && exec "$0" big.safetensors' "$REALBIN/ckpt-read"
expect_error ckpt-read '^ckpt-read: big.safetensors: out of memory reading the safetensors header \([0-9]+ bytes of JSON\)$'
