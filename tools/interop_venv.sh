#!/usr/bin/env bash
# Creates the Python virtualenv that the TensorFlow interop tests run in
# (tests/interop, tools/interop.sh): the real TensorFlow, tf-keras and
# TensorBoard from PyPI, pinned. Idempotent: when the venv already has
# these versions installed, a second run only reads their metadata (no
# pip, no network, no import of TensorFlow).
#
#   tools/interop_venv.sh           # creates or checks ~/.cache/tfd-venv
#   TFD_VENV=/other/dir tools/interop_venv.sh
#
# Prints nothing on success when the venv is already there; exit status 1
# when Python or pip fails.
set -euo pipefail

venv="${TFD_VENV:-$HOME/.cache/tfd-venv}"
requirements=(tensorflow-cpu==2.21.0 tf-keras==2.21.0 tensorboard)
wanted="${requirements[*]}"

# Whether the venv has every pinned distribution (metadata only).
installed() {
  [ -x "$venv/bin/python" ] && "$venv/bin/python" - "${requirements[@]}" <<'PY'
import sys
from importlib import metadata
for requirement in sys.argv[1:]:
    name, _, version = requirement.partition("==")
    try:
        found = metadata.version(name)
    except metadata.PackageNotFoundError:
        sys.exit(1)
    if version and found != version:
        sys.exit(1)
PY
}

installed && exit 0

echo "tools/interop_venv.sh: installing ${wanted} into ${venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  --index-url https://pypi.org/simple "${requirements[@]}"
if ! installed; then
  echo "tools/interop_venv.sh: ${venv} still lacks ${wanted}" >&2
  exit 1
fi
