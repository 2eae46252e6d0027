# --json is one valid JSON document with the documented fields.
run ckpt-read --json --stats --head 2 "$FIX/model.h5" "$FIX/dtypes.h5"
expect_status 0
for PY in python3 /usr/bin/python3; do "$PY" -c 'import json' 2>/dev/null && break; done
"$PY" - "$T/out" <<'PY' || fail "bad JSON: $(head -c 800 "$T/out")"
import json, sys
doc = json.load(open(sys.argv[1]))
a, b = doc["files"]
assert a["file"].endswith("model.h5")
v = {x["name"]: x for x in a["variables"]}
k = v["dense/dense/kernel:0"]
assert k["dtype"] == "float32" and k["shape"] == [4, 3] and k["elements"] == 12
assert k["bytes"] == 48 and k["numeric"] is True
assert k["values"] == [-3, -2.5], k["values"]
assert k["stats"]["min"] == -3 and k["stats"]["zeros"] == 1
assert v["labels"]["numeric"] is False and "stats" not in v["labels"]
assert v["optimizer/iterations:0"]["shape"] == []
assert a["totals"] == {"variables": 6, "parameters": 16, "bytes": a["totals"]["bytes"]}
s = {x["name"]: x for x in b["variables"]}
assert s["special/f32"]["values"] == ["inf", "-inf"]
assert s["special/f32"]["stats"]["nan"] == 1
assert s["bool"]["values"] == [False, True]
PY
