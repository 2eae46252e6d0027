# A Lightning-shaped checkpoint: tensors named by their path in the
# pickled structure, levels joined by '/' (an optimizer's state keyed by
# numbers), so that --strip-prefix state_dict/ gives the plain state dict;
# values that are no tensor (epoch, hyper-parameters, a string, None, bytes)
# left out of other formats with one warning naming the first;
# nn.Parameter values read as tensors.  ckpt-read -v shows the values that
# are no tensors, as Python shows them.
need_torch
M="$TOP/tests/cli/torch/mktorch.py"
"$PY" "$M" nested n.pt || fail "cannot make n.pt"
"$PY" "$M" params p.pt --legacy || fail "cannot make p.pt"
run ckpt-read n.pt
expect_status 0
expect_out '^state_dict/encoder.weight +float32 +\[4,3\] +12 +48$'
expect_out '^optimizer_states/0/state/1/exp_avg_sq +float32 +\[4\] +4 +16$'
expect_out '^optimizer_states/0/state/0/step +float32 +\[\] +1 +4$'
expect_out '^9 variables, 62 parameters, 248 bytes$'
run ckpt-average -o n.safetensors n.pt
expect_status 0
[ "$(cat "$T/err")" = "ckpt-average: n.safetensors: left out what safetensors cannot \
hold: 17 non-tensor values ('epoch', ...)" ] || fail "not one warning: $(cat "$T/err")"
"$PY" "$TOP/tests/cli/torch/check.py" n.pt n.safetensors || fail "values differ"
run sh -c "ckpt-flatten --bundle --exclude 'optimizer_states/*' --strip-prefix state_dict/ \
	-o - n.pt | ckpt-unflatten -o sd.safetensors -"
expect_status 0
"$PY" "$TOP/tests/cli/torch/check.py" n.pt sd.safetensors state_dict/ ||
	fail "the state dict differs"
run ckpt-read sd.safetensors
expect_out '^encoder.weight +float32'
run ckpt-average -o p.safetensors p.pt
expect_status 0
expect_quiet_stderr
"$PY" "$TOP/tests/cli/torch/check.py" p.pt p.safetensors || fail "parameters differ"
# the values that are no tensors, with -v, selected as variables are
run ckpt-read -v n.pt
expect_status 0
expect_out '^epoch = 3$'
expect_out "^hyper_parameters/name = 'model'$"
expect_out '^optimizer_states/0/param_groups/0/lr = 0.001$'
expect_out '^optimizer_states/0/param_groups/0/foreach = None$'
expect_out '^blob = \(3 bytes\)$'
run ckpt-read -v --only 'hyper_parameters/*' n.pt
expect_out '^hyper_parameters/lr = 0.001$'
expect_no_out '^epoch'
run ckpt-read -v --strip-prefix hyper_parameters/ --only lr n.pt
expect_out '^lr = 0.001$'
expect_no_out 'name ='
