# Names that cannot all be variables of one file - the same name twice, or
# "w/x" beside "w", which would have to be a variable and a group - are
# refused before anything is written, naming both; so are such manifests.
# (ckpt-flatten used to write a manifest with 'w' twice; ckpt-merge said
# "message type not found" from deep inside HDF5.)
need_h5py
"$PY" -c '
import h5py, numpy as np
with h5py.File("wx.h5", "w") as f:
    f["w"] = np.ones(2, "f4"); f["x/w"] = np.zeros(2, "f4")
    f["w2"] = np.ones(1, "f4"); f["x/w2/a"] = np.ones(1, "f4")
with h5py.File("a.h5", "w") as f:
    f["w"] = np.arange(4, dtype="f4"); f["g/x"] = np.ones(3, "f4")
with h5py.File("q.h5", "w") as f:
    f["q"] = np.ones(2, "f4")
with h5py.File("qr.h5", "w") as f:
    f["q/r"] = np.ones(2, "f4")' || fail "cannot make the inputs"

run ckpt-flatten --strip-prefix x/ --manifest m.tsv -o f.bin wx.h5
expect_error ckpt-flatten "wx.h5: variables 'w' and 'x/w' would both be called 'w'"
run ckpt-flatten --only 'w2*' --strip-prefix x/ --manifest m.tsv -o f.bin wx.h5
expect_error ckpt-flatten "variable 'x/w2/a' would be called 'w2/a', inside variable 'w2', which cannot also be a group"
expect_no_file m.tsv f.bin

ckpt-flatten --manifest m.tsv -o f.bin a.h5 || fail "cannot flatten"
printf '#ckpt-flat\t1\tdtype=float32\tbyteorder=little\tcount=7\nw\tfloat32\t[4]\t0\t4\nw/x\tfloat32\t[3]\t4\t3\n' >nest.tsv
run ckpt-unflatten --manifest nest.tsv -o u.h5 f.bin
expect_error ckpt-unflatten "nest.tsv: line 3: variable 'w/x' lies inside variable 'w' of line 2"
printf '#ckpt-flat\t1\tdtype=float32\tbyteorder=little\tcount=7\nw/x\tfloat32\t[3]\t0\t3\nw\tfloat32\t[4]\t3\t4\n' >nest2.tsv
run ckpt-unflatten --manifest nest2.tsv -o u.h5 f.bin
expect_error ckpt-unflatten "nest2.tsv: line 2: variable 'w/x' lies inside variable 'w' of line 3"
expect_no_file u.h5

run ckpt-merge --add --rename 'g/x=w/y' -o m.h5 a.h5 a.h5
expect_error ckpt-merge "a.h5: variable 'g/x' would be called 'w/y', inside variable 'w', which cannot also be a group"
run ckpt-merge --add --rename 'x/w2/a=w/a' --only w/a -o m.h5 a.h5 wx.h5
expect_error ckpt-merge "wx.h5: variable 'x/w2/a' cannot be added as 'w/a': inside variable 'w' \(of a.h5\)"
run ckpt-merge --add --rename 'w2=g' --only g -o m.h5 a.h5 wx.h5
expect_error ckpt-merge "variable 'w2' cannot be added as 'g': variable 'g/x' of a.h5 lies inside it"
run ckpt-merge --add -o m.h5 a.h5 q.h5 qr.h5
expect_error ckpt-merge "qr.h5: variable 'q/r' cannot be added as 'q/r': inside variable 'q' \(of q.h5\)"
expect_no_file m.h5

# the later SOURCE still wins for a name two of them add
"$PY" -c '
import h5py, numpy as np
with h5py.File("q2.h5", "w") as f:
    f["q"] = np.full(2, 2, "f4")' || fail "cannot make q2.h5"
run ckpt-merge --add -o m.h5 a.h5 q.h5 q2.h5
expect_status 0
run ckpt-read --values --only q m.h5
expect_out '^2 2$'
