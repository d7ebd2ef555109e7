"""The logic gate classifier on an iCE40 UP5K beside a PicoRV32 soft core (PicoSoC).

- `peripheral`: the classifier as a memory-mapped PicoSoC peripheral, and the host's register map;
- `soc`: the top level (PicoSoC + peripheral) and the simulation testbench;
- `firmware`: the rv32i program that feeds test images and prints classes over the UART;
- `run`: ``wirelab logic soc RUN_DIR`` (`soc_run`): build, place and route, simulate, compare.

Place and route of the classifier alone is `wirelab.logic.circuit.pnr`.
"""
