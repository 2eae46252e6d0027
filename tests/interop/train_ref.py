"""The reference model's training in numpy float32, as the TensorFlow
original computes it: an independent implementation to check ckpt-train.

usage: train_ref.py WORKERS SYNC(params|grads) ITERATIONS
prints: w b   (shortest float32 reprs)
"""
import sys

import numpy as np


def batch(i, n=100):
    np.random.seed(i)
    x = np.random.rand(n).astype(np.float32)
    return x, x * np.float32(0.1) + np.float32(0.3)


def grad(w, b, x, y):
    r = (w * x + b) - y
    return np.float32(2) * np.mean(r * x), np.float32(2) * np.mean(r)


def main():
    workers, sync, iterations = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    lr = np.float32(0.5)
    np.random.seed(0)
    w = np.float32(np.random.uniform(-1, 1))
    b = np.float32(0)
    data = [batch(i) for i in range(workers)]
    for _ in range(iterations):
        if sync == "grads":
            g = [grad(w, b, x, y) for x, y in data]
            gw = np.float32(np.mean(np.array([v[0] for v in g], np.float64)))
            gb = np.float32(np.mean(np.array([v[1] for v in g], np.float64)))
            w, b = w - lr * gw, b - lr * gb
        else:
            ws, bs = [], []
            for x, y in data:
                gw, gb = grad(w, b, x, y)
                ws.append(w - lr * gw)
                bs.append(b - lr * gb)
            w = np.float32(np.mean(np.array(ws, np.float64)))
            b = np.float32(np.mean(np.array(bs, np.float64)))
    print(repr(float(w)), repr(float(b)))


if __name__ == "__main__":
    main()
