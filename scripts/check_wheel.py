"""The checks of scripts/check-wheel.sh that need Python.

``python scripts/check_wheel.py contents DIST_DIR SRC_DIR``
    (the build's interpreter) the wheel holds every file of the package's source tree (modules
    and package data: a file left out of the wheel is a file an installed wirelab cannot find),
    and the sdist holds what a source release needs.

``python scripts/check_wheel.py smoke VERSION REPO``
    (the clean environment's interpreter, run outside the repository) the installed wirelab is
    the wheel's, not the source tree's; its version is VERSION; every module imports (a module
    that needs an optional extra which is not installed is listed, not failed); a few calls into
    the data, attention and logic packages compute; and the quickstarts of the package docstrings
    (`QUICKSTART_PACKAGES`, the ```python blocks, as tests/test_quickstarts.py runs them) run as
    written, each in a fresh interpreter in a temporary directory.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

QUICKSTART_PACKAGES = (
    "wirelab",
    "wirelab.data",
    "wirelab.reservoir",
    "wirelab.logic",
    "wirelab.attention",
)
QUICKSTART_TIMEOUT_S = 120
SDIST_NEEDS = ("pyproject.toml", "README.md", "LICENSE", "CITATION.cff", "src/wirelab/__init__.py")
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

SMOKE = """
import torch

from wirelab.attention import MultiHeadAttention
from wirelab.data import load_connectome
from wirelab.logic import NAMES, TRUTH, make_config

larva = load_connectome("larva")
print(f"larva connectome: {larva.weights.shape[0]} neurons, {larva.weights.nnz} edges")
torch.manual_seed(0)
mha = MultiHeadAttention(dim=32, num_heads=4, num_kv_heads=2)
out = mha(torch.randn(2, 5, 32), causal=True)
out = out[0] if isinstance(out, tuple) else out
print(f"GQA attention (4 query heads, 2 key/value heads): {tuple(out.shape)}")
print(f"logic gates: {len(NAMES)}, truth table {tuple(TRUTH.shape)}")
print(f"logic recipe mnist01 from the wheel: dense {make_config('mnist01').model['dense']}")
"""


def fail(message: str) -> None:
    print(f"check-wheel: FAILED: {message}", file=sys.stderr)
    raise SystemExit(1)


def contents(dist: Path, src: Path) -> None:
    wheels = sorted(dist.glob("*.whl"))
    sdists = sorted(dist.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        fail(f"expected one wheel and one sdist in {dist}, found {wheels + sdists}")
    in_wheel = set(zipfile.ZipFile(wheels[0]).namelist())
    package = src / "wirelab"
    tree = {
        p.relative_to(src).as_posix()
        for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".so")
    }
    missing = sorted(tree - in_wheel)
    if missing:
        fail(f"the wheel lacks {len(missing)} file(s) of src/: {', '.join(missing[:10])}")
    data = sorted(f for f in in_wheel if f.startswith("wirelab/") and not f.endswith(".py"))
    print(f"wheel: {wheels[0].name}, {len(in_wheel)} files, all {len(tree)} of src/wirelab")
    print(f"wheel: package data {', '.join(data)}")
    with tarfile.open(sdists[0]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    lacking = [n for n in SDIST_NEEDS if n not in names]
    if lacking:
        fail(f"the sdist lacks {', '.join(lacking)}")
    tops = sorted({n.split("/", 1)[0] for n in names})
    print(f"sdist: {sdists[0].name}, {len(names)} entries: {', '.join(tops)}")


def import_all(repo: Path) -> None:
    import wirelab

    where = Path(wirelab.__file__).resolve()
    if where.is_relative_to(repo.resolve()):
        fail(f"wirelab was imported from the source tree ({where}), not from the wheel")
    print(f"wirelab {wirelab.__version__} from {where.parent}")
    optional: list[str] = []
    broken: list[str] = []
    names = [
        m.name
        for m in pkgutil.walk_packages(wirelab.__path__, "wirelab.")
        if not m.name.endswith(".__main__")  # `python -m wirelab` runs the CLI when imported
    ]
    for name in names:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            root = (exc.name or "").split(".")[0]
            (broken if root in ("", "wirelab") else optional).append(f"{name} ({exc.name})")
        except Exception as exc:  # any other failure to import is a broken module
            broken.append(f"{name} ({type(exc).__name__}: {exc})")
    if broken:
        fail(f"modules that do not import from the wheel: {'; '.join(broken)}")
    print(f"imports: {len(names) - len(optional)} of {len(names)} modules")
    if optional:
        print(f"imports: need an extra not installed here: {', '.join(optional)}")


def run_snippet(label: str, code: str) -> None:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as cwd:
        try:
            proc = subprocess.run(
                [sys.executable, "-c", code],
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=QUICKSTART_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            fail(f"{label}: still running after {QUICKSTART_TIMEOUT_S} s")
    took = time.perf_counter() - start
    if proc.returncode != 0:
        fail(f"{label}: exit {proc.returncode}\n{proc.stdout}{proc.stderr[-3000:]}")
    print(f"--- {label} ({took:.1f} s)")
    print(proc.stdout.rstrip())


def smoke(version: str, repo: Path) -> None:
    import wirelab

    if wirelab.__version__ != version:
        fail(f"wirelab.__version__ is {wirelab.__version__}, the wheel's version is {version}")
    import_all(repo)
    run_snippet("smoke: data, attention, logic", SMOKE)
    for package in QUICKSTART_PACKAGES:
        doc = importlib.import_module(package).__doc__ or ""
        blocks = BLOCK.findall(doc)
        if not blocks:
            print(f"--- {package}: no quickstart in its docstring")
        for i, code in enumerate(blocks, 1):
            run_snippet(f"{package} quickstart {i}", code)


def main(argv: list[str]) -> None:
    if len(argv) == 3 and argv[0] == "contents":
        contents(Path(argv[1]), Path(argv[2]))
    elif len(argv) == 3 and argv[0] == "smoke":
        smoke(argv[1], Path(argv[2]))
    else:
        fail("usage: check_wheel.py contents DIST_DIR SRC_DIR | smoke VERSION REPO")


if __name__ == "__main__":
    main(sys.argv[1:])
