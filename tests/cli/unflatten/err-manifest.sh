# A malformed manifest, or one that does not fit the template: one line
# with the line number, exit 2, nothing written.
cd "$T"
ckpt-flatten --manifest m.tsv -o m.bin "$FIX/order.h5"
bad() { # bad NAME SED-SCRIPT PATTERN
	sed "$2" m.tsv >"$1.tsv"
	run ckpt-unflatten --manifest "$1.tsv" -o out.h5 m.bin
	expect_error ckpt-unflatten "$1.tsv: $3"
	expect_no_file out.h5
}
bad header '1s/#ckpt-flat/#ckpt-flag/' 'not a ckpt-flat manifest'
bad version '1s/\t1\t/\t9\t/' 'manifest format 9 is not one this program reads'
bad dtype '2s/float32/float31/' "line 2: unknown dtype 'float31'"
bad fields '3s/\t[^\t]*$//' 'line 3: 4 fields, not 5'
bad shape '4s/\[1\]/[1;2]/' "line 4: bad shape '\[1;2\]'"
bad offset '5s/\t3\t1$/\t4\t1/' 'line 5: offset 4 and count 1 do not follow'
bad count '1s/count=5/count=6/' 'the lines add up to 5 values, the header says 6'
bad dup '3s/^alpha/zeta/' "line 3: variable 'zeta' listed twice"
bad escape '2s/^zeta/ze\\qta/' 'line 2: bad escape sequence'
bad name '2s/^zeta/..\/zeta/' "line 2: '\.\./zeta' is not a variable name"
: >empty.tsv
run ckpt-unflatten --manifest empty.tsv -o out.h5 m.bin
expect_error ckpt-unflatten 'empty.tsv: empty manifest'
run ckpt-unflatten --manifest nothere.tsv -o out.h5 m.bin
expect_error ckpt-unflatten 'nothere.tsv: No such file or directory'
# a variable that is a group's name too cannot be made: refused as the manifest is read
printf '#ckpt-flat\t1\tdtype=float32\tbyteorder=little\tcount=2\na\tfloat32\t[1]\t0\t1\na/b\tfloat32\t[1]\t1\t1\n' >clash.tsv
head -c 8 m.bin >two.bin
run ckpt-unflatten --manifest clash.tsv -o out.h5 two.bin
expect_error ckpt-unflatten "clash.tsv: line 3: variable 'a/b' lies inside variable 'a' of line 2"
# manifest and template must agree
sed '2s/^zeta/omega/' m.tsv >other.tsv
run ckpt-unflatten --manifest other.tsv --template "$FIX/order.h5" -o out.h5 m.bin
expect_error ckpt-unflatten "other.tsv lists variable 'omega' where .*order.h5 has 'zeta'"
sed '2s/\[1\]/[1,1]/' m.tsv >shape.tsv
run ckpt-unflatten --manifest shape.tsv --template "$FIX/order.h5" -o out.h5 m.bin
expect_error ckpt-unflatten "shape.tsv: variable 'zeta' has shape \[1,1\], .*order.h5 has \[1\]"
expect_no_file out.h5
