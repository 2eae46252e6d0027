"""same.py A.pt B.pt [--weights-only] - B loads with torch.load (with
weights_only=True where asked) to what A loads to: the same structure, the
same types (dict, OrderedDict, Parameter ...), every value equal and every
tensor's dtype, shape, requires_grad and bytes the same.  Exit 1 naming the
first difference."""
import sys

import torch

wo = "--weights-only" in sys.argv
a = torch.load(sys.argv[1])
b = torch.load(sys.argv[2], weights_only=True) if wo else torch.load(sys.argv[2])


def eq(x, y, p=''):
    assert type(x) == type(y), (p, type(x), type(y))
    if isinstance(x, torch.Tensor):
        assert x.dtype == y.dtype and x.shape == y.shape and x.requires_grad == y.requires_grad, p
        xb = x.detach().contiguous().reshape(-1).view(torch.uint8) if x.numel() else x
        yb = y.detach().contiguous().reshape(-1).view(torch.uint8) if y.numel() else y
        assert x.numel() == 0 or torch.equal(xb, yb), p
    elif isinstance(x, dict):
        assert list(x.keys()) == list(y.keys()), p
        for k in x: eq(x[k], y[k], p + '/' + str(k))
    elif isinstance(x, (list, tuple)):
        assert len(x) == len(y), p
        for i, (u, v) in enumerate(zip(x, y)): eq(u, v, p + '/' + str(i))
    else:
        assert x == y or (x != x and y != y), (p, x, y)
try:
    eq(a, b)
except AssertionError as e:
    sys.exit("differs at %s" % (e,))
