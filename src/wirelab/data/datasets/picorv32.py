"""The PicoRV32 RISC-V core and PicoSoC sources (YosysHQ/picorv32 at one commit), read by
`wirelab.logic.fpga` from ``hdl/picorv32`` in the data directory or the cache."""

from __future__ import annotations

from wirelab.data.datasets.base import Dataset, RemoteFile

_PICORV32_COMMIT = "87c89acc18994c8cf9a2311e871818e87d304568"
# SHA-256, bytes and path of each file of YosysHQ/picorv32 at that commit that wirelab reads.
_PICORV32_FILES = """
041ebc727233e5bf096dd41260cbb81014d3d29ca007a15f3b1807d4e9ff288e   777 COPYING
0836050971b3c6cdd28ac3b1e5719a67fb645161912bef1e472e63995ceb0622 94657 picorv32.v
568c90c1c173c7fc2571a6b3269e35dc581e546b2fcb311afe817865b885361c  4667 picosoc/Makefile
613c90d102981f1b9b5b28793b3f27e67884c25cf28b5ccb94d316bc18e5a58d  6242 picosoc/README.md
d4309cfcccd605c3a3fe5e1c4b1687e32bb8eb349aec8b0879685d564ce0d7a3 16600 picosoc/firmware.c
980fe3f8f66c8ad644d018320216b420dc237d3b955749b3f01f461016e26e7b  2290 picosoc/ice40up5k_spram.v
e9bba50889eea6cf20fbc3c3905bf836214cc62904233abb90b75cce25d05da3   406 picosoc/icebreaker.pcf
f672d5e2a16b5b13c45ab57eff61b1bb6ad81cdb2d5ae7a37a08e51de8c9b451  3862 picosoc/icebreaker.v
5e7db346599ad9aee29edb1f1c8a9265cb862610e4cab67bad3232d0aa596ee6  2878 picosoc/icebreaker_tb.v
86a1693c4844a0d11353e7524f38303d86be7aaf6ee82be2769c87e21b7b7be8  6891 picosoc/picosoc.v
9e4a843c30cd0f9ffd592f5598cb22fae437a4ebfec808a66adcd2b1cc93ea00  2615 picosoc/sections.lds
6b970be4255ef5f951f80a3b0cb27f73844df94349f4e4460bc4dbc4bb49ca1b  3563 picosoc/simpleuart.v
5e30ee6eaadd532e2547ee0a3cb41e5bd4a1ee3c72fd484275ce680dff49ba57  8549 picosoc/spiflash.v
3bbd69ef9d49ba82d0fb952a8ca68d0360f6ad4b0bb2aa55e5f1ce1744a7188e 13474 picosoc/spimemio.v
2bc57add38c5beb5ca4784f60ee69a076c24d34c0f071725cf36bc0887dccec9  2431 picosoc/start.s
"""


def _picorv32(line: str) -> RemoteFile:
    sha256, size, name = line.split()
    return RemoteFile(
        path=f"hdl/picorv32/{name}",
        urls=(
            f"https://raw.githubusercontent.com/YosysHQ/picorv32/{_PICORV32_COMMIT}/{name}",
            f"https://github.com/YosysHQ/picorv32/raw/{_PICORV32_COMMIT}/{name}",
        ),
        sha256=sha256,
        size=int(size),
    )


PICORV32 = Dataset(
    description=(
        "PicoRV32 RISC-V soft core and PicoSoC (iCEBreaker top level, flash model, firmware "
        "start-up), YosysHQ/picorv32 at commit 87c89ac; ISC licence (COPYING)."
    ),
    citation="C. X. Wolf. PicoRV32: a size-optimized RISC-V CPU. github.com/YosysHQ/picorv32",
    files=tuple(_picorv32(line) for line in _PICORV32_FILES.strip().splitlines()),
)
