# The float64 mean is the correctly rounded exact mean at every magnitude:
# 10^6 random means of 3 and of 5 values, their exponents spread over the
# whole range (subnormals, the bottom of the normal range where the
# remainder of the division underflowed, the top where the sum overflows),
# and sums that cancel (2^200 + 1 + 2^-53 - 2^200 - 1: the pair of doubles
# lost 2^-53), checked against exact integer arithmetic: zero misses.
need_h5py
not_under_valgrind
"$PY" - <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np
rng = np.random.default_rng(29)
m = 500000
for n in (3, 5):
    base = rng.integers(-1080, 1024, m)
    # a fifth of the means at the bottom of the normal range
    low = rng.random(m) < 0.2
    base[low] = rng.integers(-1030, -1015, low.sum())
    for k in range(n):
        mant = rng.random(m) + 1.0
        e = np.minimum(base + rng.integers(-3, 1, m), 1023)
        x = np.ldexp(mant, e) * rng.choice([-1.0, 1.0], m)
        # some raw subnormal bit patterns
        sub = rng.random(m) < 0.05
        bits = rng.integers(1, 2**52, sub.sum(), dtype="u8") | (rng.integers(0, 2, sub.sum(), dtype="u8") << 63)
        x[sub] = bits.view("f8")
        if n == 5: # cancellation: bits the low half of a pair lost
            x[0] = (2.0**200, 1.0, 2.0**-53, -2.0**200, -1.0)[k]
            x[1] = (2.0**200, 1.0, 2.0**-53, 2.0**-110, -2.0**200)[k]
        with h5py.File("n%d_%d.h5" % (n, k), "w") as f:
            f["w"] = x
PY
for n in 3 5; do
	ins=
	k=0
	while [ $k -lt $n ]; do ins="$ins n${n}_$k.h5"; k=$((k + 1)); done
	run ckpt-average -q -o m$n.h5 $ins
	expect_status 0
done
"$PY" - <<'PY' || fail "not the correctly rounded mean"
import h5py, numpy as np
S = 2**1074 # every double is an integer multiple of 2^-1074
for n in (3, 5):
    ins = [h5py.File("n%d_%d.h5" % (n, k))["w"][:].tolist() for k in range(n)]
    got = h5py.File("m%d.h5" % n)["w"][:]
    miss = []
    for i, g in enumerate(got.tolist()):
        tot = 0
        for v in ins:
            p, q = v[i].as_integer_ratio()
            tot += p * (S // q)
        want = tot / (n * S) # int / int: correctly rounded, subnormals too
        if want == 0 and (tot < 0 or all(str(v[i]) == "-0.0" for v in ins)):
            want = -0.0 # a negative mean too small for a double; -0 + -0
        if g != want or (g == 0 and str(g) != str(want)):
            miss.append((i, g, want))
    assert not miss, "%d of %d means of %d missed, e.g. %s" % (len(miss), len(got), n,
        [(i, g.hex(), w.hex()) for i, g, w in miss[:3]])
PY
