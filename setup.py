# SPDX-License-Identifier: BSD-2-Clause
# The Python package's build (pyproject.toml): CMake builds the native module _j2kfront
# (python/CMakeLists.txt, with the library it links statically) for the interpreter running
# this, and setuptools packages it with python/j2kfront/__init__.py. Environment:
#   J2K_BUILD_DIR    a configured CMake build of this tree to build the module in (the tests use
#                    their own); default: a build of its own under build/python-package
#   J2K_CMAKE_ARGS   more -D options for a build of its own (e.g. -DJ2K_WITH_CUDA=OFF)
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
# Where setuptools' own files go: beside the CMake builds, never in the source folders.
WORK = ROOT / "build" / "python-package"


def version() -> str:
    match = re.search(r"project\(j2kfront VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    if not match:
        raise RuntimeError("CMakeLists.txt: no project(j2kfront VERSION ...)")
    return match.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        build = Path(os.environ.get("J2K_BUILD_DIR") or WORK / "cmake")
        if not (build / "CMakeCache.txt").exists():
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                            "-DJ2K_WITH_PYTHON=ON", "-DJ2K_BUILD_TESTS=OFF", "-DJ2K_BUILD_TOOLS=OFF",
                            f"-DPython3_EXECUTABLE={sys.executable}",
                            *shlex.split(os.environ.get("J2K_CMAKE_ARGS", ""))], check=True)
        if not (build / "python" / "CMakeFiles" / "j2kfront_python.dir").is_dir():
            raise RuntimeError(f"{build} builds no Python module (configure it with -DJ2K_WITH_PYTHON=ON, "
                               "with python3-dev and pybind11-dev installed)")
        subprocess.run(["cmake", "--build", str(build), "--target", "j2kfront_python",
                        "--parallel", str(os.cpu_count() or 1)], check=True)
        built = sorted((build / "python" / "j2kfront").glob("_j2kfront*.so"))
        if not built:
            raise RuntimeError(f"{build}: the build made no python/j2kfront/_j2kfront*.so")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


WORK.mkdir(parents=True, exist_ok=True)
setup(
    version=version(),
    packages=["j2kfront"],
    package_dir={"": "python"},
    ext_modules=[Extension("j2kfront._j2kfront", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(WORK / "setuptools")}, "egg_info": {"egg_base": str(WORK)}},
)
