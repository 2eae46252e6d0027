"""mktorch.py KIND OUT [--legacy] - torch.save files for the tests, written
by torch itself (python3-torch):

  dtypes   a state dict of every dtype torch 1.13 has ckpt reads (float16,
           bfloat16, float32, float64, int8-64, uint8, bool), NaN, infinities
           and subnormals, a scalar, an empty tensor
  views    tensors that view storages: a transpose, a slice at an offset, a
           column, an expansion (stride 0), every fifth element, a transpose of 4.8 MB; tied weights
           (one Parameter under two names; a detached view of it)
  nested   a Lightning-shaped checkpoint: epoch, global_step, a state dict, an
           optimizer's state keyed by numbers, hyper-parameters, a string, None
  params   nn.Parameter values (torch._utils._rebuild_parameter)
  big      N tensors (N from --count) of a few elements
  complex  a state dict with a complex64 tensor
  quant    a state dict with a quantized tensor
"""
import argparse
import collections

import torch

p = argparse.ArgumentParser()
p.add_argument("kind")
p.add_argument("out")
p.add_argument("--legacy", action="store_true")
p.add_argument("--count", type=int, default=1000)
p.add_argument("--seed", type=int, default=1)
a = p.parse_args()
g = torch.Generator().manual_seed(a.seed)


def rand(*shape, dtype=torch.float32):
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * 3).to(dtype)


def specials(dtype):
    t = rand(4, 5, dtype=dtype)
    info = torch.finfo(dtype)
    t[0, 0], t[0, 1], t[0, 2] = float("nan"), float("inf"), -float("inf")
    t[0, 3], t[0, 4] = info.tiny / 4, -0.0
    return t


def ints(dtype, lo, hi, *shape):
    return torch.randint(lo, hi, shape, generator=g, dtype=torch.int64).to(dtype)


sd = collections.OrderedDict()
if a.kind == "dtypes":
    for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        sd["layer.%s" % str(dt)[6:]] = specials(dt)
    sd["i8"] = ints(torch.int8, -128, 128, 3, 4)
    sd["i16"] = ints(torch.int16, -32768, 32768, 7)
    sd["i32"] = ints(torch.int32, -2**31, 2**31, 2, 2, 2)
    sd["i64"] = torch.tensor([-2**63, 2**63 - 1, 0, 12345678901234567], dtype=torch.int64)
    sd["u8"] = ints(torch.uint8, 0, 256, 9)
    sd["mask"] = torch.tensor([True, False, True])
    sd["scalar"] = torch.tensor(2.5)
    sd["empty"] = torch.zeros(0, 3)
    obj = sd
elif a.kind == "views":
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    p_ = torch.nn.Parameter(rand(3, 2))
    sd["t"] = base.t()
    sd["slice"] = base[1:3, 2:5]
    sd["col"] = base[:, 1]
    sd["expand"] = torch.arange(3, dtype=torch.float64).expand(2, 3)
    sd["step"] = base.view(-1)[1::5]
    sd["embed.weight"] = p_
    sd["head.weight"] = p_
    sd["head2.weight"] = p_.detach()
    sd["flat"] = p_.detach().view(-1)
    sd["base"] = base
    sd["wide_t"] = rand(1200, 1000).t()
    obj = sd
elif a.kind == "nested":
    w = rand(4, 3)
    obj = {
        "epoch": 3,
        "global_step": 120,
        "pytorch-lightning_version": "1.9.0",
        "state_dict": collections.OrderedDict([("encoder.weight", w), ("encoder.bias", rand(4)),
                                               ("decoder.weight", rand(3, 4))]),
        "optimizer_states": [{
            "state": {0: {"step": torch.tensor(3.0), "exp_avg": rand(4, 3),
                          "exp_avg_sq": rand(4, 3).abs()},
                      1: {"step": torch.tensor(3.0), "exp_avg": rand(4), "exp_avg_sq": rand(4).abs()}},
            "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-8, "params": [0, 1, 2],
                              "amsgrad": False, "foreach": None}],
        }],
        "lr_schedulers": [],
        "hyper_parameters": {"lr": 0.001, "name": "model", "sizes": [4, 3]},
        "blob": b"\x00\x01\xff",
    }
elif a.kind == "params":
    obj = collections.OrderedDict([("w", torch.nn.Parameter(rand(2, 3))),
                                   ("b", torch.nn.Parameter(rand(3), requires_grad=False))])
elif a.kind == "big":
    for i in range(a.count):
        sd["layers.%d.weight" % i] = rand(2, 2)
    obj = sd
elif a.kind == "complex":
    sd["w"] = rand(2)
    sd["z"] = torch.zeros(2, dtype=torch.complex64)
    obj = sd
elif a.kind == "quant":
    sd["w"] = rand(2)
    sd["q"] = torch.quantize_per_tensor(rand(4), 0.1, 0, torch.qint8)
    obj = sd
else:
    raise SystemExit("unknown kind " + a.kind)
torch.save(obj, a.out, _use_new_zipfile_serialization=not a.legacy)
