# Sourced by run_all.sh and run_tests.sh: find or build a Python environment with the pinned
# requirements, install `lib` editable, register the named Jupyter kernel. Sets $PY.
# Idempotent: when nothing changed, it installs nothing (a stamp records the requirements' hash).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
kernel=llm-audit-companion
base_python="${PYTHON:-python3}"
req_hash="$(cat requirements.txt pyproject.toml | sha256sum | cut -c1-64)"

has_pins() {  # does interpreter $1 satisfy every pin in requirements.txt and import this lib?
  "$1" scripts/check_pins.py requirements.txt >/dev/null 2>&1
}

if [ -x .venv/bin/python ] && [ "$(cat .venv/.requirements.sha256 2>/dev/null)" = "$req_hash" ]; then
  PY="$root/.venv/bin/python"
elif [ ! -d .venv ] && has_pins "$base_python"; then
  PY="$(command -v "$base_python")"     # e.g. a conda/Binder env built from environment.yml
else
  "$base_python" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' || {
    echo "error: Python 3.11 is required (found $("$base_python" --version 2>&1)); set PYTHON=/path/to/python3.11" >&2; exit 3; }
  echo "setting up .venv from requirements.txt (first run: about 4 minutes, 2 GB) ..."
  [ -x .venv/bin/python ] || "$base_python" -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
  .venv/bin/python scripts/check_pins.py requirements.txt
  echo "$req_hash" > .venv/.requirements.sha256
  PY="$root/.venv/bin/python"
fi

# `lib` must be importable from this checkout (editable install), not from another clone.
# -P: without the current folder on sys.path, so the check sees the install, not the checkout it runs in
if ! "$PY" -P -c "import lib, pathlib, sys; sys.exit(0 if pathlib.Path(lib.__file__).resolve().parent == pathlib.Path('$root/lib').resolve() else 1)" 2>/dev/null; then
  "$PY" -m pip install --quiet --disable-pip-version-check --no-deps -e .
fi

# Named kernel inside the environment's prefix, pointing at this interpreter.
prefix="$("$PY" -c 'import sys; print(sys.prefix)')"
spec="$prefix/share/jupyter/kernels/$kernel/kernel.json"
if [ ! -f "$spec" ] || ! grep -q "\"$PY\"" "$spec"; then
  "$PY" -m ipykernel install --sys-prefix --name "$kernel" --display-name "LLM audit companion" >/dev/null
fi
# JupyterLab opens the percent scripts (notebooks/*.py) as notebooks on a double click: jupytext's
# "Jupytext Notebook" becomes the default viewer of Python files, as a default-settings override
# of this environment (jupyterlab_server reads <prefix>/etc/jupyter/labconfig/); user settings win.
labconfig="$prefix/etc/jupyter/labconfig/default_setting_overrides.json"
"$PY" scripts/jupyter/install_overrides.py scripts/jupyter/default_setting_overrides.json "$labconfig"
export PY
