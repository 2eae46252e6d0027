"""What a user would otherwise write for `ckpt-average --method M`: h5py +
numpy, variable by variable, each tensor whole in float64 (mergekit's way,
without torch): methods.py METHOD DENSITY OUT BASE MODEL... (slerp: OUT A B)."""
import sys

import h5py
import numpy as np


def trim(tau, density, top=0.0):
    n = tau.size
    k = int(density * n)
    if density >= 1:
        return tau
    order = np.argsort(-np.abs(tau), kind="stable")
    first = min(int(top * n), n - k)
    mask = np.zeros(n, bool)
    mask[order[first:first + k]] = True
    return np.where(mask, tau, 0)


def elect_mean(taus):
    sign = np.where(taus.sum(axis=0) >= 0, 1.0, -1.0)
    agree = np.sign(taus) == sign
    count = agree.sum(axis=0)
    return np.where(agree, taus, 0).sum(axis=0) / np.maximum(count, 1)


def merge(method, density, b, xs, rng):
    b = b.astype(np.float64).ravel()
    if method == "slerp":
        x0, x1 = b, xs[0].astype(np.float64).ravel()
        c = x0 @ x1 / (np.linalg.norm(x0) * np.linalg.norm(x1))
        if abs(c) > 0.9995:
            return 0.5 * x0 + 0.5 * x1
        th = np.arccos(c)
        return (np.sin(th / 2) * x0 + np.sin(th / 2) * x1) / np.sin(th)
    taus = np.stack([x.astype(np.float64).ravel() - b for x in xs])
    if method == "task-arithmetic":
        return b + taus.mean(axis=0)
    if method == "model-stock":
        n = len(xs)
        norms = np.linalg.norm(taus, axis=1)
        cos = [taus[i] @ taus[j] / max(norms[i] * norms[j], 1e-6)
               for i in range(n) for j in range(i + 1, n)]
        c = float(np.mean(np.clip(cos, -1, 1)))
        t = n * c / (1 + (n - 1) * c)
        return b + t * taus.mean(axis=0)
    if method.startswith("dare"):
        taus = np.where(rng.random(taus.shape) < density, taus / density, 0)
        return b + (elect_mean(taus) if method == "dare-ties" else taus.mean(axis=0))
    if method == "ties":
        return b + elect_mean(np.stack([trim(t, density) for t in taus]))
    if method == "breadcrumbs":
        return b + np.stack([trim(t, density, 0.01) for t in taus]).mean(axis=0)
    raise SystemExit(f"methods.py: unknown method {method}")


def main():
    method, density, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    ins = [h5py.File(p, "r") for p in sys.argv[4:]]
    names = []
    ins[0].visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    rng = np.random.default_rng(0)
    with h5py.File(out, "w") as f:
        for n in names:
            b = ins[0][n][()]
            r = merge(method, density, b, [g[n][()] for g in ins[1:]], rng)
            f[n] = r.reshape(b.shape).astype(b.dtype)


if __name__ == "__main__":
    main()
