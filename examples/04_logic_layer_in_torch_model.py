"""A logic layer inside your own torch model: a convolutional front end feeds logic gates.

wirelab's `LogicLayer` and `GroupSum` are ordinary ``torch.nn`` modules (batch-major, like
difflogic's), so they drop into a model of your own. Here a small real-valued convolutional
front end (``Conv2d -> ReLU -> MaxPool -> Conv2d -> sigmoid``) turns an MNIST digit into 392
numbers in [0, 1]; two logic layers of 2-input gates (learned softmax over the 16 gates each)
and a GroupSum head classify them. One optimiser trains both parts end to end.

A logic layer computes the relaxed gates in ``model.train()`` and the hard, discrete gates in
``model.eval()``: the eval accuracy is the accuracy with every gate fixed to its argmax, the
part of the model that could become a circuit (`wirelab.logic.discretize` does that for a model
made only of `Binarize`, logic layers and `GroupSum`; see examples/03).

    python examples/04_logic_layer_in_torch_model.py           # 5 epochs of MNIST (minutes)
    python examples/04_logic_layer_in_torch_model.py --small   # 1,000 steps, 10,000 images
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from wirelab.data import load_mnist
from wirelab.logic import GroupSum, LogicLayer


def make_model(gates: int) -> nn.Sequential:
    """A user's model: conv features in [0, 1] -> two logic layers -> 10 class scores."""
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1),  # (B, 8, 28, 28)
        nn.ReLU(),
        nn.MaxPool2d(2),  # (B, 8, 14, 14)
        nn.Conv2d(8, 8, 3, padding=1, stride=2),  # (B, 8, 7, 7)
        nn.Sigmoid(),  # values in [0, 1]: what a logic gate reads
        nn.Flatten(),  # (B, 392)
        LogicLayer(392, gates, connections="learned"),  # each gate learns its 2 wires too
        LogicLayer(gates, gates),  # fixed random wiring
        GroupSum(10, tau=gates / 10 / 6),  # popcount of gates/10 bits per class
    )


@torch.no_grad()
def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    return float(torch.cat([model(xb).argmax(1) for xb in x.split(1000)]).eq(y).float().mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="1,000 steps, 10,000 images (CI)")
    parser.add_argument("--out", type=Path, default=Path("runs/examples/04_logic_layer_in_torch"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)

    # MNIST through wirelab's data layer (downloaded once, checked against its SHA-256)
    x_train, y_train = load_mnist("train")
    x_test, y_test = load_mnist("test")
    n_train, n_test, gates = (10000, 2000, 2000) if args.small else (60000, 10000, 8000)
    x = torch.tensor(x_train[:n_train]).float().div(255).unsqueeze(1)  # (N, 1, 28, 28)
    y = torch.tensor(y_train[:n_train], dtype=torch.int64)
    xt = torch.tensor(x_test[:n_test]).float().div(255).unsqueeze(1)
    yt = torch.tensor(y_test[:n_test], dtype=torch.int64)

    model = make_model(gates)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    steps = 1000 if args.small else 5 * (n_train // 100)  # --small: 1,000 steps; else 5 epochs
    losses, t0 = [], time.perf_counter()
    model.train()
    for step in range(steps):
        idx = torch.randint(0, n_train, (100,))  # a batch of 100 images
        loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if (step + 1) % max(1, steps // 5) == 0:
            print(f"step {step + 1}/{steps}: loss {np.mean(losses[-50:]):.3f}")
    seconds = time.perf_counter() - t0

    soft = accuracy(model, xt, yt)  # train mode: relaxed gates
    model.eval()
    hard = accuracy(model, xt, yt)  # eval mode: every gate its argmax Boolean function
    conv_params = sum(p.numel() for p in model[:4].parameters())
    print(f"model: conv front end ({conv_params} weights) + 2 logic layers of {gates} gates")
    print(f"test accuracy on {n_test} images: relaxed gates {soft:.4f}, discrete gates {hard:.4f}")
    print(f"trained {steps} steps in {seconds:.1f} s")

    metrics = {
        "accuracy_relaxed": soft,
        "accuracy_discrete": hard,
        "gates": 2 * gates,
        "conv_weights": conv_params,
        "steps": steps,
        "train_seconds": seconds,
        "test_images": n_test,
    }
    (args.out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot(np.convolve(losses, np.ones(20) / 20, mode="valid"))
    ax.set(xlabel="step", ylabel="training loss (20-step mean)")
    ax.set_title(f"conv + logic gates: discrete test accuracy {hard:.3f}", fontsize=9)
    fig.tight_layout()
    fig.savefig(args.out / "loss.png", dpi=120)
    print(f"wrote {args.out / 'metrics.json'} and {args.out / 'loss.png'}")


if __name__ == "__main__":
    main()
