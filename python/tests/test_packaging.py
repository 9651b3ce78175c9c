"""Installing offline, as a user would: pip (Debian's setuptools, no build
isolation, no index) into a venv, and meson install, whose package finds the
libraries with no environment variable."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

SAMPLES = os.path.join(ROOT, "samples")
CHECK = ("import speedqa, sys; print(speedqa.__file__); "
         "d = speedqa.score_files(sys.argv[1], sys.argv[2]); "
         "print(d['pooled_metrics']['speed_temporal']['mean']); "
         "print(speedqa.pool([1.0, 3.0])['mean']); "
         # the library's version is meson.build's project() (version.h): the
         # package's, installed either way, must be the same
         "import importlib.metadata as md; print(speedqa.__version__, speedqa.version()); "
         "print(md.version('speedqa') if speedqa.__file__.startswith(sys.argv[3]) else '-')")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SPEEDQA_") and k != "PYTHONPATH"}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


def want_mean():
    import speedqa
    d = speedqa.score_files(os.path.join(SAMPLES, "ref.y4m"), os.path.join(SAMPLES, "dis.y4m"))
    return d["pooled_metrics"]["speed_temporal"]["mean"]


def test_pip_installs_offline_into_a_venv(tmp_path):
    """The README's command: a venv over the system's packages, pip with no
    index and no build isolation (Debian's setuptools builds it)."""
    try:
        import setuptools  # noqa: F401
        import venv  # noqa: F401
    except ImportError:
        pytest.skip("setuptools or venv missing")
    venv_dir = tmp_path / "venv"
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv_dir)],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip("no venv: %s" % r.stderr.strip()[-200:])
    py = str(venv_dir / "bin" / "python")
    env = clean_env()
    src = tmp_path / "python"  # a copy: setuptools builds in the source tree
    shutil.copytree(os.path.join(ROOT, "python"), src,
                    ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
    p = subprocess.run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                        str(src)], capture_output=True, text=True, env=env,
                       cwd=str(tmp_path), timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert os.path.exists(venv_dir / "bin" / "speedqa-dask")
    # the libraries of this build (a pip install does not carry them)
    libdirs = os.pathsep.join([os.path.dirname(os.environ["SPEEDQA_LIB"]),
                               os.path.dirname(os.environ["SPEEDQA_IO_LIB"])])
    out = subprocess.run([py, "-c", CHECK, os.path.join(SAMPLES, "ref.y4m"),
                          os.path.join(SAMPLES, "dis.y4m"), str(venv_dir)], capture_output=True,
                         text=True, env=clean_env(LD_LIBRARY_PATH=libdirs), cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split()
    assert lines[0].startswith(str(venv_dir))
    assert float(lines[1]) == want_mean() and float(lines[2]) == 2.0
    # pip's metadata (pyproject.toml's dynamic version) == the package's == the library's
    assert lines[3] == lines[4] == lines[5], lines[3:]


def test_meson_install_finds_its_libraries(tmp_path):
    """meson install (staged with --destdir) installs the package next to the
    libraries; it loads them with no SPEEDQA_* variable and no library path."""
    build = os.path.dirname(os.path.dirname(os.environ["SPEEDQA_IO_LIB"]))
    if not os.path.exists(os.path.join(build, "meson-info")):
        pytest.skip("not a meson build tree")
    stage = tmp_path / "stage"
    p = subprocess.run(["meson", "install", "-C", build, "--no-rebuild", "--quiet", "--destdir",
                        str(stage)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    inits = [os.path.join(d, "__init__.py") for d, _, fs in os.walk(stage)
             if os.path.basename(d) == "speedqa" and "_paths.py" in fs]
    if not inits:
        pytest.skip("this build installs no Python package (no python3 at setup)")
    site = os.path.dirname(os.path.dirname(inits[0]))
    out = subprocess.run([sys.executable, "-c", CHECK, os.path.join(SAMPLES, "ref.y4m"),
                          os.path.join(SAMPLES, "dis.y4m"), str(tmp_path / "no-metadata")],
                         capture_output=True, text=True, env=clean_env(PYTHONPATH=site),
                         cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split()
    assert lines[0].startswith(site)
    assert float(lines[1]) == want_mean() and float(lines[2]) == 2.0
    # the installed _version.py, written from meson.build, == the library's
    assert lines[3] == lines[4], lines[3:]
