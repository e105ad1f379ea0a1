#!/usr/bin/python3
"""One SGLD step of the UCI benchmark's network in PyTorch on one CPU thread.

The step that `go test ./model -bench MLPUCI -benchmem` times in Go
(BenchmarkMLPUCIStep): a 13-50-1 ReLU network with a Gaussian likelihood and
a learned log-noise (d = 752) on 455 rows, a minibatch of B = 32 drawn with
replacement, forward and backward pass of the minibatch log likelihood scaled
by N/B plus the N(0, 1) prior, then θ ← θ + η g + sqrt(2η) ξ.

Reports the process CPU time per step (time.process_time: user + system, all
threads), the figure to compare with the Go benchmark's cpu-ns/op, because
the machine is shared and the wall clock counts other processes' time.

Not run by CI (it needs python3-torch: apt-get install -y python3-torch).
Usage: /usr/bin/python3 bench/torch/mlp_step.py [steps]  (Debian's python, which has the torch module)
"""
import math
import sys
import time

import torch

torch.set_num_threads(1)
torch.set_num_interop_threads(1)
torch.manual_seed(1)
dtype = torch.float64  # as the Go code

N, P, H, B = 455, 13, 50, 32
X = torch.randn(N, P, dtype=dtype)
y = torch.randn(N, dtype=dtype)

W1 = (torch.randn(H, P, dtype=dtype) / math.sqrt(P)).requires_grad_()
b1 = torch.zeros(H, dtype=dtype, requires_grad=True)
W2 = (torch.randn(1, H, dtype=dtype) / math.sqrt(H)).requires_grad_()
b2 = torch.zeros(1, dtype=dtype, requires_grad=True)
gamma = torch.zeros(1, dtype=dtype, requires_grad=True)  # log sigma^2
params = [W1, b1, W2, b2, gamma]
eta = 1e-6


def step():
    idx = torch.randint(0, N, (B,))
    xb, yb = X[idx], y[idx]
    f = torch.relu(xb @ W1.T + b1) @ W2.T + b2
    r = yb - f.squeeze(1)
    loglik = -0.5 * B * (math.log(2 * math.pi) + gamma) - 0.5 * (r * r).sum() * torch.exp(-gamma)
    logprior = -0.5 * sum((p * p).sum() for p in params)
    lp = (N / B) * loglik.sum() + logprior
    for p in params:
        p.grad = None
    lp.backward()
    with torch.no_grad():
        for p in params:
            p.add_(eta * p.grad + math.sqrt(2 * eta) * torch.randn_like(p))


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    for _ in range(1000):  # warm-up
        step()
    best_cpu, best_wall = float("inf"), float("inf")
    for _ in range(5):
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(steps // 5):
            step()
        best_cpu = min(best_cpu, (time.process_time() - c0) / (steps // 5))
        best_wall = min(best_wall, (time.perf_counter() - w0) / (steps // 5))
    d = sum(p.numel() for p in params)
    print(f"torch {torch.__version__}, 1 thread, float64, {P}-{H}-1 ReLU + log sigma^2 (d = {d}), B = {B}:")
    print(f"  {best_cpu * 1e9:.0f} cpu-ns/step (best of 5), {best_wall * 1e9:.0f} wall-ns/step")


if __name__ == "__main__":
    main()
