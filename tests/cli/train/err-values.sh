# Bad option values: the message, then the usage line; exit 2, nothing written.
for args in "--workers 0" "--workers -1" "--batch 0" "--iterations 0" \
	"--iterations x" "--lr nan" "--lr inf" "--lr 1e999" "--lr abc" \
	"--local-steps 0" "--sync average" "--features 0" "--seed 4294967296"; do
	run ckpt-train $args -o "$T/m.h5"
	expect_usage_error ckpt-train "^ckpt-train: --"
	expect_no_file "$T/m.h5"
done
