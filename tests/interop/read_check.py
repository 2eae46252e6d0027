"""Check `ckpt-read --json --values` against h5py, an independent reader.

usage: read_check.py CKPT_READ FILE...

For every file: if ckpt-read succeeds, the variables it lists are exactly the
datasets h5py reaches through hard links, with the same dtypes, shapes and
values (bit for bit, NaN where NaN).  If ckpt-read fails (exit 2, one line),
h5py must fail to open the file or to read one of its datasets.
Prints one line per file; exits 1 on the first disagreement.
"""
import json
import subprocess
import sys

import h5py
import numpy as np

HEAD = 100000  # values compared per variable: a C-order prefix

NAMES = {"f2": "float16", "f4": "float32", "f8": "float64", "i1": "int8",
         "i2": "int16", "i4": "int32", "i8": "int64", "u1": "uint8",
         "u2": "uint16", "u4": "uint32", "u8": "uint64", "b1": "bool"}


def numeric_key(d):
    """The toolkit dtype of dataset d as h5py sees it, or None where the
    toolkit carries it as non-numeric: bitfields and enums other than bool
    (h5py shows them as integers, but averaging them means nothing),
    compounds, strings, and floats numpy cannot represent (float128)."""
    cls = d.id.get_type().get_class()
    if cls in (h5py.h5t.BITFIELD, h5py.h5t.OPAQUE, h5py.h5t.REFERENCE):
        return None
    try:
        dt = d.dtype
    except (ValueError, TypeError):
        return None
    key = dt.str[1:]
    if cls == h5py.h5t.ENUM and key != "b1":
        return None
    return key if key in NAMES and dt.names is None else None


def datasets(f):
    """Datasets reachable by hard links, once each (h5py's visit skips links
    to objects already seen, as ckpt-read does)."""
    out = {}
    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            out[name] = obj
    f.visititems(visit)
    return out


def prefix(d):
    """The first HEAD values of d in C order, read without loading all of d
    (tbigdims.h5 declares 4 GiB of int8 in a 6 KB file)."""
    if d.shape == ():
        return np.asarray(d[()]).ravel()
    idx = []
    for k in range(len(d.shape)):
        inner = int(np.prod(d.shape[k + 1:], dtype=np.uint64))
        if int(np.prod(d.shape[k:], dtype=np.uint64)) <= HEAD:
            break
        if inner <= HEAD:
            idx.append(slice(0, max(1, HEAD // inner)))
            break
        idx.append(0)
    return np.asarray(d[tuple(idx)] if idx else d[()]).ravel()[:HEAD]


def h5py_fails(path):
    try:
        with h5py.File(path, "r") as f:
            for d in datasets(f).values():
                if numeric_key(d) and d.shape is not None:
                    prefix(d)
    except Exception as e:  # noqa: BLE001 - any failure counts
        return repr(e)
    return None


def same_values(var, want):
    got = var["values"]
    if len(got) != want.size:
        return f"{len(got)} values, h5py has {want.size}"
    for i, (g, w) in enumerate(zip(got, want.tolist())):
        if isinstance(g, str):  # "nan", "inf", "-inf"
            g = float(g)
        if isinstance(w, float) and np.isnan(w):
            ok = isinstance(g, float) and np.isnan(g)
        elif var["dtype"].startswith("float"):
            # the text must read back to the very same stored value
            t = want.dtype
            ok = np.array(g, dtype=t) == np.array(w, dtype=t) \
                and np.signbit(np.array(g, dtype=t)) == np.signbit(w)
        else:
            ok = g == w
        if not ok:
            return f"value [{i}]: ckpt-read {g!r}, h5py {w!r}"
    return None


def check(prog, path):
    r = subprocess.run([prog, "--json", "--head", str(HEAD), path],
                       capture_output=True)
    if r.returncode != 0:
        err = r.stderr.decode(errors="replace")
        if r.returncode != 2 or err.count("\n") != 1:
            return f"bad failure (exit {r.returncode}): {err!r}"
        why = h5py_fails(path)
        if why is None and "which HDF5 could not load" in err:
            # h5py has LZF built in; libhdf5 needs the plugin package (and
            # 1.10.8 fails to load it for some datasets even when installed)
            return "ok (filter plugin missing here: " + err.split("filter ")[1][:20] + ")"
        if why is None:
            return f"ckpt-read failed but h5py reads it: {err.strip()}"
        return "ok (both fail: " + err.strip().split(": ", 1)[1][:70] + ")"
    # json reads "-0" as the integer 0; the sign of zero matters here
    doc = json.loads(r.stdout, parse_int=lambda t: -0.0 if t == "-0" else int(t))
    got = {v["name"]: v for v in doc["files"][0]["variables"]}
    with h5py.File(path, "r") as f:
        want = datasets(f)
        if set(got) != set(want):
            return f"names differ: only ckpt-read {sorted(set(got) - set(want))[:5]}, " \
                   f"only h5py {sorted(set(want) - set(got))[:5]}"
        for name, d in want.items():
            v = got[name]
            shape = None if d.shape is None else list(d.shape)
            if v["shape"] != shape:
                return f"{name}: shape {v['shape']}, h5py {shape}"
            key = numeric_key(d)
            numeric = key is not None
            if numeric != v["numeric"]:
                return f"{name}: numeric {v['numeric']}, h5py class " \
                       f"{d.id.get_type().get_class()}"
            if not numeric:
                continue
            if v["dtype"] != NAMES[key]:
                return f"{name}: dtype {v['dtype']}, h5py {d.dtype}"
            if shape is not None:
                why = same_values(v, prefix(d))
                if why:
                    return f"{name}: {why}"
    return f"ok ({len(got)} variables)"


def main():
    prog, files = sys.argv[1], sys.argv[2:]
    bad = 0
    for path in files:
        verdict = check(prog, path)
        print(f"{path}: {verdict}")
        bad += not verdict.startswith("ok")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
