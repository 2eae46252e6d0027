# --json: one document with the documented fields.
cd "$T"
ckpt-train -q --steps 1 -o a.h5
ckpt-train -q --steps 2 -o b.h5
run ckpt-diff --json --stats -n 1 a.h5 b.h5
expect_status 1
for PY in python3 /usr/bin/python3; do "$PY" -c 'import json' 2>/dev/null && break; done
"$PY" - "$T/out" <<'PY' || fail "bad JSON: $(cat "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["a"] == "a.h5" and d["b"] == "b.h5" and d["same"] is False
assert d["compared"] == 2 and d["differ"] == 2 and d["only_a"] == 0
v = {x["name"]: x for x in d["variables"]}
w = v["w"]
assert w["status"] == "values" and w["elements"] == 1 and w["differ"] == 1
assert w["max_abs_diff"] > 0 and w["max_abs_diff_at"] == "[0]"
assert len(w["elements_listed"]) == 1 and "cosine" in w and "rel_l2" in w
PY
run ckpt-diff --json a.h5 a.h5
expect_status 0
expect_out '"same": true'
