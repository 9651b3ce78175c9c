"""pip builds a wheel of python/ offline and the installed copy works
(skipped without pip + setuptools)."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT


def test_wheel_installs_and_imports(tmp_path):
    try:
        import setuptools  # noqa: F401
        subprocess.run([sys.executable, "-m", "pip", "--version"], check=True,
                       capture_output=True)
    except Exception:
        pytest.skip("pip or setuptools missing")
    src = tmp_path / "src"
    shutil.copytree(os.path.join(ROOT, "python"), src,
                    ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path / "whl"), str(src)], check=True, capture_output=True,
                   env=env, timeout=120)
    wheels = os.listdir(tmp_path / "whl")
    assert len(wheels) == 1 and wheels[0].startswith("speedqa-")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--target",
                    str(tmp_path / "site"), str(tmp_path / "whl" / wheels[0])], check=True,
                   capture_output=True, env=env, timeout=120)
    env["PYTHONPATH"] = str(tmp_path / "site")
    out = subprocess.run([sys.executable, "-c",
                          "import speedqa, speedqa.manifest; print(speedqa.__file__); "
                          "print(speedqa.version()); print(speedqa.pool([1.0, 3.0])['mean'])"],
                         check=True, capture_output=True, text=True, env=env,
                         cwd=str(tmp_path)).stdout.split()
    assert out[0].startswith(str(tmp_path / "site"))
    import speedqa
    assert out[1] == speedqa.version() and float(out[2]) == 2.0
    assert os.path.exists(tmp_path / "site" / "bin" / "speedqa-dask")
