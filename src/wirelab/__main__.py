"""``python -m wirelab``: the same as the ``wirelab`` command."""

from wirelab.cli import main

main()
