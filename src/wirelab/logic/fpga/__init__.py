"""The logic gate classifier on an iCE40 UP5K: beside a PicoRV32 soft core (PicoSoC), or alone
with a sequential head for ten classes.

- `peripheral`: the classifier as a memory-mapped PicoSoC peripheral, and the host's register map;
- `soc`: the top level (PicoSoC + peripheral) and the simulation testbench;
- `firmware`: the rv32i program that feeds test images and prints classes over the UART;
- `run`: ``wirelab logic soc RUN_DIR`` (`soc_run`): build, place and route, simulate, compare;
- `seqhead`: the sequential popcount/argmax head (``wl_seq``); `seqsim`: its Icarus check
  against the combinational head;
- `top`: ``wl_seq_top``, the input register (flip-flops or block RAM) and handshake;
- `postsim`: the synthesised or placed netlist simulated with yosys's iCE40 cell models;
- `up5k`: ``wirelab logic up5k RUN_DIR --out DIR`` (`up5k_run`); `narrow`: ``wirelab logic
  narrow`` (a narrower last layer without retraining).

Place and route of the classifier alone is `wirelab.logic.circuit.pnr`.
"""
