#!/usr/bin/env bash
# Installs the Python package as README says (a virtual environment that sees Debian's numpy and
# pytest, then `pip install --no-build-isolation .`, which builds libcoreset and the module with
# CMake in build-python) and runs the pytest suite against the installed package, from
# outside the source tree so that only the installed copy can be imported. The `coreset` command
# of ./build, when built, is what the same-answer tests compare with.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
venv="${CORESET_VENV:-build/venv}"
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --quiet --no-build-isolation .
rm -rf python/coreset.egg-info
[ -x build/coreset ] && export CORESET_BINARY="$PWD/build/coreset"
cd python/tests
"$OLDPWD/$venv/bin/python" -m pytest -q -p no:cacheprovider .
"$OLDPWD/$venv/bin/python" -c "import coreset; print('installed:', coreset.__file__, coreset.__version__)"
