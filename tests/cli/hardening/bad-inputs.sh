# The bad-input corpus: every program, fed broken files, broken archives,
# manifests and bundles, wrong dtypes and option values out of range.  For
# every case: exit 2, exactly one line on stderr ("prog: ...", no HDF5 error
# stack; misuse adds the usage line), no output file left behind, and the
# existing target unchanged.
# (A sanitizer build turns any memory error into a failure here too.)
cd "$T"
"$BIN/../tests/mkfixtures" --hostile .
cp "$FIX/model.h5" "$FIX/order.h5" .
ckpt-train -q --steps 2 -o good.h5
echo 'not an HDF5 file' >text.h5
: >empty.h5
head -c 4096 /dev/urandom >random.h5
mkdir dir.h5
for n in 8 100 512 800 1500 3000; do head -c $n model.h5 >cut$n.h5; done
for n in 2000 1000000 2000000; do head -c $n big.h5 >bigcut$n.h5; done
printf 'HDF\r\n\032\n' >sig.h5                        # the signature alone
{ head -c 512 model.h5; head -c 2000 /dev/zero; } >zeros.h5
tar cf archive.tar good.h5 && head -c 700 archive.tar >archivecut.tar
echo junk | gzip >junk.tar.gz
tar cf textonly.tar text.h5
# manifests and bundles
ckpt-flatten --manifest m.tsv -o m.bin order.h5
printf '#ckpt-flat\t1\n' >nokeys.tsv
printf '#ckpt-flat\t1\tdtype=float32\tbyteorder=little\tcount=1\nw\tfloat32\t[1]\t0\n' >short.tsv
printf '#ckpt-flat\t1\tdtype=float32\tbyteorder=little\tcount=4611686018427387904\nw\tfloat32\t[4611686018427387904]\t0\t4611686018427387904\n' >absurd.tsv
printf '#ckpt-flat\t1\tdtype=float32\tbyteorder=little\tcount=1\n../w\tfloat32\t[1]\t0\t1\n' >dotdot.tsv
ckpt-flatten --bundle -o b.tar order.h5
head -c 1200 b.tar >bcut.tar
head -c 18 m.bin >m18.bin
echo keep >target
n=0
while IFS='|' read -r args regex; do
	case $args in ''|'#'*) continue ;; esac
	prog=${args%% *}
	eval "set -- ${args#* }"
	cp target out.h5 2>/dev/null
	"$prog" "$@" >out 2>err </dev/null
	rc=$?
	[ $rc -eq 2 ] || fail "$args: exit status $rc, expected 2: $(cat err)"
	# one line; misuse adds the usage line
	[ "$(wc -l <err)" -eq 1 ] || { [ "$(wc -l <err)" -eq 2 ] &&
		tail -n 1 err | grep -q "^usage: $prog "; } ||
		fail "$args: stderr is not one line: $(cat err)"
	grep -q "^$prog: " err || fail "$args: message does not start with '$prog: ': $(cat err)"
	grep -Eq -- "$regex" err || fail "$args: stderr does not match '$regex': $(cat err)"
	cmp -s target out.h5 || fail "$args: the existing target changed"
	leftovers=$(ls -A | grep '^\.' || true)
	[ -z "$leftovers" ] || fail "$args: temporary files left: $leftovers"
	for f in new.h5 new.bin s0.h5 s1.h5; do
		[ ! -e $f ] || fail "$args: $f was left behind"
	done
	n=$((n + 1))
done <<'CASES'
# not HDF5, empty, random, a directory, missing, truncated at many points
ckpt-read text.h5|text.h5: not an HDF5 or safetensors file
ckpt-read empty.h5|empty.h5: 
ckpt-read random.h5|random.h5: 
ckpt-read dir.h5|dir.h5: 
ckpt-read missing.h5|missing.h5: No such file
ckpt-read cut8.h5|cut8.h5: 
ckpt-read cut100.h5|cut100.h5: 
ckpt-read cut512.h5|cut512.h5: 
ckpt-read cut800.h5|cut800.h5: 
ckpt-read cut1500.h5|cut1500.h5: 
ckpt-read --values cut3000.h5|cut3000.h5: 
ckpt-read --stats bigcut2000.h5|bigcut2000.h5: 
ckpt-read --stats bigcut1000000.h5|bigcut1000000.h5: 
ckpt-read --values bigcut2000000.h5|bigcut2000000.h5: 
ckpt-read sig.h5|sig.h5: 
ckpt-read zeros.h5|zeros.h5: 
ckpt-read - |\(stdin\): 
ckpt-diff good.h5 text.h5|text.h5: 
ckpt-diff cut1500.h5 good.h5|cut1500.h5: 
ckpt-diff bigcut1000000.h5 big.h5|bigcut1000000.h5: 
ckpt-average -f -o out.h5 good.h5 text.h5|text.h5: 
ckpt-average -f -o out.h5 good.h5 empty.h5|empty.h5: 
ckpt-average -f -o out.h5 bigcut1000000.h5 bigcut1000000.h5|bigcut1000000.h5: 
ckpt-average -f -o out.h5 big.h5 bigcut2000000.h5|bigcut2000000.h5: 
ckpt-average -f -o out.h5 good.h5 dir.h5|dir.h5: 
ckpt-flatten -o new.bin cut1500.h5|cut1500.h5: 
ckpt-flatten -o new.bin bigcut1000000.h5|bigcut1000000.h5: 
ckpt-flatten -o new.bin random.h5|random.h5: 
ckpt-merge -f -o out.h5 good.h5 cut800.h5|cut800.h5: 
ckpt-merge -f -o out.h5 big.h5 bigcut1000000.h5|bigcut1000000.h5: 
ckpt-merge --split 2 -o s%d.h5 bigcut1000000.h5|bigcut1000000.h5: 
ckpt-train -f --init text.h5 --steps 1 -o out.h5|text.h5: 
ckpt-unflatten -f --template cut1500.h5 -o out.h5 m.bin|cut1500.h5: 
# absurd shapes: 2^62 values, rank 32 with nothing stored
ckpt-read huge.h5|huge.h5: variable 'huge': byte size overflows 64 bits
ckpt-flatten --size huge.h5|huge.h5: 
ckpt-read --stats rank32.h5|rank32.h5: variable 'deep': claims 17179869184 bytes of values; the file holds none of them
ckpt-flatten -o new.bin rank32.h5|rank32.h5: variable 'deep': claims
ckpt-average -f -o out.h5 rank32.h5 rank32.h5|rank32.h5: variable 'deep': claims
ckpt-diff rank32.h5 rank32.h5|rank32.h5: variable 'deep': claims
# archives
ckpt-read archivecut.tar|archivecut.tar
ckpt-read junk.tar.gz|junk.tar.gz: 
ckpt-average -f -o out.h5 textonly.tar|textonly.tar: 
# manifests and bundles
ckpt-unflatten --manifest nokeys.tsv -o new.h5 m.bin|nokeys.tsv: line 1: needs dtype=
ckpt-unflatten --manifest short.tsv -o new.h5 m.bin|short.tsv: line 2: 4 fields
ckpt-unflatten --manifest absurd.tsv -o new.h5 m.bin|absurd.tsv: line 2: 
ckpt-unflatten --manifest dotdot.tsv -o new.h5 m.bin|dotdot.tsv: line 2: '\.\./w' is not a variable name
ckpt-unflatten --manifest text.h5 -o new.h5 m.bin|text.h5: not a ckpt-flat manifest
ckpt-unflatten --manifest m.tsv -o new.h5 m18.bin|m18.bin: flat input has 18 bytes, not a whole number of float32 values; the manifest needs 5 values
ckpt-unflatten -o new.h5 bcut.tar|bcut.tar: 
ckpt-unflatten -o new.h5 junk.tar.gz|junk.tar.gz: 
ckpt-unflatten -o new.h5 text.h5|text.h5: not a bundle
ckpt-unflatten -o new.h5 empty.h5|empty.h5: not a bundle
ckpt-unflatten --template order.h5 -o new.h5 m18.bin|m18.bin: 
ckpt-merge --join -o new.h5 good.h5|good.h5: not a shard
# wrong dtypes
ckpt-flatten --dtype float8 -o new.bin good.h5|--dtype: 
ckpt-unflatten --dtype int7 --template good.h5 -o new.h5 m.bin|--dtype: 
ckpt-average --dtype complex64 -o new.h5 good.h5|--dtype: 
# option values out of range or not numbers
ckpt-read --head -1 good.h5|--head: 
ckpt-read --head x good.h5|--head: 'x' is not a whole number
ckpt-diff --atol abc good.h5 good.h5|--atol: 'abc' is not a finite number
ckpt-diff --rtol nan good.h5 good.h5|--rtol: 
ckpt-diff --ulps -3 good.h5 good.h5|--ulps: 
ckpt-diff -n 1e3 good.h5 good.h5|-n: 
ckpt-average -w 1,x -o new.h5 good.h5 good.h5|-w: 'x' is not a finite number
ckpt-average -w 1,-1 -o new.h5 good.h5 good.h5|-w: the weights sum to 0
ckpt-average -w 1 -o new.h5 good.h5 good.h5|-w: 1 weight for 2 inputs
ckpt-train --iterations x -o new.h5|--iterations: 
ckpt-train --workers 0 -o new.h5|--workers: 
ckpt-train --lr inf -o new.h5|--lr: 
ckpt-train --batch 99999999999999999999 -o new.h5|--batch: 
ckpt-merge --split 0 -o s%d.h5 good.h5|--split: 0 is out of range
ckpt-merge --split 257 -o s%d.h5 good.h5|--split: 257 is out of range
ckpt-merge --split 2 -o s%n.h5 good.h5|needs exactly one %d
CASES
[ "$n" -ge 60 ] || fail "only $n cases"
