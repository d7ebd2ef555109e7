#!/usr/bin/env bash
# Prints the path of a working Python 3.12 interpreter (the fly environment's: flygym 2 needs
# Python >= 3.12), or says how to get one and exits 1. Tried in order: $PY312, python3.12 on PATH,
# pyenv's 3.12 versions, /usr/bin/python3.12.
set -u
works() { "$@" -c 'import sys; assert sys.version_info[:2] == (3, 12); print(sys.executable)' 2>/dev/null; }
if [ -n "${PY312:-}" ] && works "$PY312"; then exit 0; fi
works python3.12 && exit 0
if command -v pyenv >/dev/null 2>&1; then
  for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.12(\.[0-9]+)?$' | sort -rV); do
    works "$(pyenv root)/versions/$v/bin/python3.12" && exit 0
  done
fi
works /usr/bin/python3.12 && exit 0
echo "no Python 3.12 found: the fly environment (flygym 2) needs one." \
     "Install it (e.g. 'apt-get install python3.12-venv' or 'pyenv install 3.12') or set PY312=/path/to/python3.12" >&2
exit 1
