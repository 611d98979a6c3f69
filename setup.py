"""Builds coreset._core and libcoreset with the project's CMake for `pip install .`.

The version is the library's (CMakeLists.txt's project version). The CUDA backend is compiled in
when CMake finds the toolkit, as for the command. Environment:
  CORESET_PYTHON_BUILD_DIR  CMake build folder (default build-python, beside build/ so that
                            ccache's relative paths match and its compiles come from the
                            cache; reused, so a second install only rebuilds what changed)
  CORESET_CMAKE_ARGS        extra configure arguments, e.g. "-DCORESET_ENABLE_CUDA=OFF"
"""

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


def library_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(coreset VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = Path(os.environ.get("CORESET_PYTHON_BUILD_DIR", ROOT / "build-python"))
        configure = [
            "cmake", "-G", "Ninja", "-S", str(ROOT), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=Release", "-DCORESET_BUILD_TESTS=OFF", "-DCORESET_BUILD_BENCH=OFF",
            "-DCORESET_BUILD_PYTHON=ON", "-DCORESET_PYTHON_WHEEL=ON",
            # The package solves in one process; a wheel should not need libmpi to import.
            "-DCORESET_ENABLE_MPI=OFF",
            "-DPython_EXECUTABLE=" + sys.executable,
        ] + shlex.split(os.environ.get("CORESET_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "coreset_python",
                        "--parallel", str(os.cpu_count() or 1)], check=True)
        module = next((build_dir / "python" / "coreset").glob("_core*.so"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(module, target)
        # libcoreset under its SONAME (the name the module asks for), beside the module, which
        # finds it through its RPATH $ORIGIN.
        sonames = [p for p in build_dir.rglob("libcoreset.so.*") if p.is_symlink()]
        if not sonames:
            raise RuntimeError("libcoreset's SONAME link is missing under %s" % build_dir)
        soname = min(sonames, key=lambda p: len(p.name))
        shutil.copy2(soname.resolve(), target.parent / soname.name)


setup(
    version=library_version(),
    ext_modules=[Extension("coreset._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
