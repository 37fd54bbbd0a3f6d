#!/usr/bin/env python3
"""The representative workload behind tests/data/demo-session: a short PyTorch training loop of a small
transformer with NVTX ranges, recorded once on a GPU machine with

    gpuprof-collect -o DIR -- python3 tests/gpu/train.py

It trains a 2-layer encoder on random tokens: per step a host-to-device batch copy, forward, backward and
an AdamW step, each in its NVTX range, and every 10 steps a no-grad evaluation. One tensor is kept alive on
purpose to the end (a cache that grows every eval) so the leak analysis has something real to find.
Usage: train.py [STEPS] [--kineto cuda|cpu,cuda]: with --kineto, the loop runs under the PyTorch profiler
(torch.profiler) with those activities, its trace written to train-kineto.json after the timed steps (how
tests/gpu/peers.sh measures Kineto's overhead beside gpuprof's)."""
import sys
import time

import torch
from torch import nn

ARGS = [a for a in sys.argv[1:] if not a.startswith("--kineto")]
STEPS = int(ARGS[0]) if ARGS and ARGS[0].isdigit() else 60
KINETO = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--kineto=")), None)
nvtx = torch.cuda.nvtx


class Model(nn.Module):
    def __init__(self, vocab=4096, dim=256, heads=4, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)))


def main():
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = Model().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    loss_fn = nn.CrossEntropyLoss()
    host = torch.randint(0, 4096, (STEPS, 32, 129), dtype=torch.long).pin_memory()
    kept = []
    t0 = time.perf_counter()
    warm = None
    for step in range(STEPS):
        if step == min(20, STEPS // 3):  # the first steps load modules and warm cuBLAS up
            torch.cuda.synchronize()
            warm = (step, time.perf_counter())
        nvtx.range_push("train_step")
        nvtx.range_push("data")
        batch = host[step].to(dev, non_blocking=True)
        x, y = batch[:, :-1], batch[:, 1:]
        nvtx.range_pop()
        nvtx.range_push("forward")
        logits = model(x)
        loss = loss_fn(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        nvtx.range_pop()
        nvtx.range_push("backward")
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nvtx.range_pop()
        nvtx.range_push("optimizer")
        opt.step()
        nvtx.range_pop()
        nvtx.range_pop()
        if step % 10 == 9:
            nvtx.range_push("eval")
            model.eval()
            with torch.no_grad():
                out = model(x)
                kept.append(out.detach().clone())  # the leak
                print(f"step {step + 1}: loss {loss.item():.4f}", flush=True)
            model.train()
            nvtx.range_pop()
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    print(f"{STEPS} steps in {t1 - t0:.3f} s, steps {warm[0] + 1}-{STEPS} in {t1 - warm[1]:.3f} s;"
          f" kept {len(kept)} tensors", flush=True)


def profiled():
    """main() under the PyTorch profiler with KINETO's activities; the trace is exported after the timing."""
    acts = {"cpu": torch.profiler.ProfilerActivity.CPU, "cuda": torch.profiler.ProfilerActivity.CUDA}
    with torch.profiler.profile(activities=[acts[a] for a in KINETO.split(",")]) as prof:
        main()
    prof.export_chrome_trace("train-kineto.json")


if __name__ == "__main__":
    profiled() if KINETO else main()
