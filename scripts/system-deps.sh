#!/usr/bin/env bash
# System packages wirelab uses outside Python:
#   libosmesa6        headless MuJoCo rendering of the fly video (MUJOCO_GL=osmesa)
#   yosys, iverilog   synthesis, formal equivalence and simulation of logic circuits
#   nextpnr-ice40, fpga-icestorm (icepack)   place and route and bitstreams for the iCE40 UP5K
#   gcc-riscv64-unknown-elf, picolibc-riscv64-unknown-elf   firmware for the PicoRV32 soft core
#   chromium          the browser test of the HTML report
# Installs what is missing when run as root with apt-get; otherwise says what to install.
set -u
missing=()
command -v yosys >/dev/null 2>&1 || missing+=(yosys)
command -v iverilog >/dev/null 2>&1 || missing+=(iverilog)
command -v nextpnr-ice40 >/dev/null 2>&1 || missing+=(nextpnr-ice40)
command -v icepack >/dev/null 2>&1 || missing+=(fpga-icestorm)
command -v riscv64-unknown-elf-gcc >/dev/null 2>&1 || missing+=(gcc-riscv64-unknown-elf)
[ -d /usr/lib/picolibc/riscv64-unknown-elf ] || missing+=(picolibc-riscv64-unknown-elf)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
ldconfig -p 2>/dev/null | grep -q libOSMesa || missing+=(libosmesa6)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null && exit 0
  echo "warning: apt-get could not install ${missing[*]}; the steps that need them will be skipped" >&2
else
  echo "note: missing system packages: ${missing[*]} (sudo apt-get install ${missing[*]});" \
       "the steps that need them are skipped with a message" >&2
fi
exit 0
