run ckpt-train
expect_usage_error ckpt-train "no output given"
run ckpt-train --steps 1 --workers 2 -o "$T/m.h5"
expect_usage_error ckpt-train "--steps trains one worker"
run ckpt-train --gradients --apply x.h5 -o "$T/m.h5"
expect_usage_error ckpt-train "exclude each other"
run ckpt-train --bogus -o "$T/m.h5"
expect_usage_error ckpt-train "unknown option '--bogus'"
expect_no_file "$T/m.h5"
