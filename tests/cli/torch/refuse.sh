# ckpt never runs code from a file: a pickle that names any global other
# than what torch.save writes (os.system by GLOBAL, builtins.eval by
# STACK_GLOBAL, posix.system inside a tensor's rebuild, an unknown class) is
# refused naming the global, exit 2, one line, nothing written - and the
# command the pickle carries was not run.  Complex and quantized tensors are
# refused by name.
need_torch
"$PY" - <<'PY' || fail "cannot make the files"
import io, os, pickle, zipfile, torch

class System:                   # pickles as os.system("touch ran-N")
    def __init__(self, n): self.n = n
    def __reduce__(self): return (os.system, ("touch ran-%d" % self.n,))

class Eval:
    def __reduce__(self): return (eval, ("open('ran-eval', 'w')",))

class Unknown:
    pass

def torch_zip(path, obj, protocol=2):
    torch.save({"w": torch.zeros(2)}, path)
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    pkl = [n for n in members if n.endswith("data.pkl")][0]
    members[pkl] = pickle.dumps(obj, protocol=protocol)
    with zipfile.ZipFile(path, "w") as z:
        for n, b in members.items():
            z.writestr(n, b)

torch_zip("system.pt", {"w": System(1)})
torch_zip("eval.pt", {"w": Eval()}, protocol=4)
torch_zip("unknown.pt", {"w": Unknown()})
torch.save({"w": torch.zeros(2), "z": torch.zeros(2, dtype=torch.complex64)}, "complex.pt")
torch.save({"q": torch.quantize_per_tensor(torch.zeros(4), 0.1, 0, torch.qint8)}, "quant.pt")
PY
refused() { # FILE PATTERN
	run ckpt-average -o out.safetensors "$1"
	expect_error ckpt-average "$2"
	expect_no_file out.safetensors
}
refused system.pt "^ckpt-average: system.pt: the pickle names '(posix|os)\.system', which is no part of what torch.save writes: refused \(ckpt never runs code from a file\)$"
refused eval.pt "^ckpt-average: eval.pt: the pickle names 'builtins\.eval', which is no part"
refused unknown.pt "^ckpt-average: unknown.pt: the pickle names '__main__\.Unknown', which is no part"
refused complex.pt "^ckpt-average: complex.pt: 'z' is a complex64 tensor, which ckpt does not read$"
refused quant.pt "^ckpt-average: quant.pt: 'q' is a quantized tensor, which ckpt does not read$"
ls ran-* 2>/dev/null && fail "a pickle's command ran"
run ckpt-read system.pt
expect_error ckpt-read "system.pt: the pickle names"
