#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The Python module's tests (pytest) on one backend, from the build tree.
#   run_pytest.sh PYTHON BUILD_PYTHON_DIR BACKEND
# Exit 77 (CTest: skipped) with the reason when pytest or numpy is missing, or when BACKEND
# has no device here.
set -euo pipefail
py=$1 build=$2 backend=$3
here=$(cd "$(dirname "$0")" && pwd)
for m in numpy pytest; do
  if ! "$py" -c "import $m" 2>/dev/null; then
    echo "Python tests not run: $py has no $m (Debian: apt install python3-$m)"
    exit 77
  fi
done
export PYTHONPATH=$build${PYTHONPATH:+:$PYTHONPATH}
why=$("$py" -c "import j2kfront, sys; ok, why = j2kfront.backends()['$backend']; print('' if ok else why)")
if [[ -n $why ]]; then
  echo "$backend backend unavailable: $why"
  exit 77
fi
# Each run its own temporary directory (--basetemp): ctest runs the backends' runs side by
# side, and pytest sessions at the same time must not share its default numbered directories
# under /tmp.
# -p no:cacheprovider: nothing written into the source tree.
base=$(mktemp -d "${TMPDIR:-/tmp}/j2kfront-pytest-XXXXXX")
trap 'rm -rf "$base"' EXIT
"$py" -m pytest -q -rs -p no:cacheprovider --basetemp "$base/tmp" --backend "$backend" "$here"
