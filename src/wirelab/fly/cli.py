"""``wirelab fly ...``: the command group; each role's commands live with the role.

- bodies (`wirelab.fly.bodies.cli`): ``calibrate``, ``timestep``;
- stimulation (`wirelab.fly.stimulation.cli`): ``stimulate``, ``lateralization``;
- turns (`wirelab.fly.turns.cli`): ``turns``;
- taxis (`wirelab.fly.taxis.cli`): ``taxis``;
- choice (`wirelab.fly.choice.cli`): ``choice``.

Each command parses its options into the experiment's config and calls the experiment's
``run(config, out)``, which alone writes the result directory; then it prints a summary.
"""

from __future__ import annotations

import click

from wirelab.fly.bodies.cli import calibrate_cmd, timestep_cmd
from wirelab.fly.choice.cli import choice_cmd
from wirelab.fly.stimulation.cli import lateralization_cmd, stimulate_cmd
from wirelab.fly.taxis.cli import taxis_cmd
from wirelab.fly.turns.cli import turns_cmd


@click.group("fly")
def group() -> None:
    """The connectome drives a simulated fly (flygym NeuroMechFly or a fast kinematic body)."""


for _command in (
    calibrate_cmd,
    timestep_cmd,
    stimulate_cmd,
    lateralization_cmd,
    turns_cmd,
    taxis_cmd,
    choice_cmd,
):
    group.add_command(_command)
