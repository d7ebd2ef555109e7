"""The larval connectome turns NeuroMechFly: left, right and no stimulation on flygym 2, filmed.

The controller is the larval *Drosophila* connectome (Winding et al. 2023) as a reservoir of
tanh units: its left or right olfactory sensory neurons get a constant input, and the mean
activity of its descending neurons to the nerve cord (DN-VNC), left and right, sets the drive of
the legs on each side (`wirelab.fly.ConnectomeController`, the `default_mapping`: what the
stimulus evokes, on top of a resting drive of 1). The body is NeuroMechFly, the physics model of
the adult fly in flygym 2 (MuJoCo), walking with a hybrid turning controller.

For each condition (left, control, right) the same fly (seed 0) walks ``--settle`` s with no
input (the start-up transient), then the stimulus is on for ``--duration`` s. The turn is the
heading change from stimulus onset (degrees, counter-clockwise positive); the control walks the
same seed without a stimulus, so ``turn - control`` is what the stimulus did. Each walk is saved
as an MP4.

flygym 2 lives in the fly environment, ``.venv-fly`` (Python 3.12; ``make fly-env``). Run this
script with the main environment's Python as usual: it re-runs itself there
(`wirelab.fly.rerun_in_fly_env`). ``.venv-fly/bin/python examples/06_...py`` works too.
The statistics over seeds, with null models, are the turn study: ``wirelab fly turns``.

Measured at the default size (2 min 17 s on one CPU core): after 2 s of stimulus, minus the
control, left -33.9 deg and right +24.7 deg: each side turns the fly away from itself.

    python examples/06_fly_connectome_flygym.py            # 1 s settle + 2 s stimulus (minutes)
    python examples/06_fly_connectome_flygym.py --small    # 0.2 s + 0.3 s (CI size)
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wirelab.fly import ConnectomeController, open_body, rerun_in_fly_env

CONDITIONS = {"left": (1.0, 0.0), "control": (0.0, 0.0), "right": (0.0, 1.0)}  # u = [left, right]


@dataclass
class Walk:
    time: np.ndarray  # (S,) s, after each controller update
    heading_deg: np.ndarray  # (S,) counter-clockwise positive
    turn_deg: float  # heading change from stimulus onset to the end


def walk(condition: str, settle: float, duration: float, video: Path) -> Walk:
    """One filmed walk: resting input for ``settle`` s, then the condition's input."""
    controller = ConnectomeController.from_connectome("larva")  # olfactory in, DN-VNC out
    # play_speed 0.2: the video runs five times slower than the fly
    with open_body("flygym", seed=0, video=video, play_speed=0.2, frame_size=(512, 384)) as body:
        obs = body.reset()
        times, headings = [obs.time], [float(obs.heading)]
        k = controller.steps_per_update(body.dt)  # physics steps per controller update (20)
        while obs.time < settle + duration - 1e-9:
            u = CONDITIONS[condition] if obs.time >= settle - 1e-9 else (0.0, 0.0)
            drive = controller.step(u)  # [left, right] drive, held for k physics steps
            for _ in range(k):
                obs = body.act(drive)
            times.append(obs.time)
            headings.append(float(obs.heading))
    t, h = np.array(times), np.degrees(headings)
    onset = int(np.searchsorted(t, settle - 1e-9))  # the stimulus comes on at t[onset]
    return Walk(t, h, float(h[-1] - h[onset]))


def plot(runs: dict[str, Walk], settle: float, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    for name, r in runs.items():
        ax.plot(r.time, r.heading_deg, label=f"{name}: {r.turn_deg:+.1f}°")
    ax.axvline(settle, color="grey", ls=":", lw=1)
    ax.set_xlabel("time (s); stimulus on at the dotted line")
    ax.set_ylabel("heading (deg, CCW +)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="a short walk (CI size)")
    parser.add_argument("--out", type=Path, default=Path("runs/examples/06_fly_connectome_flygym"))
    args = parser.parse_args()
    rerun_in_fly_env()  # from the main environment: run again in .venv-fly, then exit

    settle, duration = (0.2, 0.3) if args.small else (1.0, 2.0)
    args.out.mkdir(parents=True, exist_ok=True)
    runs: dict[str, Walk] = {}
    for condition in CONDITIONS:
        video = args.out / f"{condition}.mp4"
        runs[condition] = walk(condition, settle, duration, video)
        print(f"{condition:>7}: turn {runs[condition].turn_deg:+6.1f} deg   video {video}")

    control = runs["control"].turn_deg
    print(
        f"stimulus minus control: left {runs['left'].turn_deg - control:+.1f} deg, "
        f"right {runs['right'].turn_deg - control:+.1f} deg (CCW +, after {duration:g} s)"
    )
    plot(runs, settle, args.out / "headings.png")
    summary = {c: r.turn_deg for c, r in runs.items()}
    (args.out / "turns.json").write_text(
        json.dumps({"settle_s": settle, "duration_s": duration, "turn_deg": summary}, indent=1)
    )
    print(f"wrote {args.out}/headings.png, turns.json and one MP4 per condition")


if __name__ == "__main__":
    main()
