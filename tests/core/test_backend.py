import importlib
import subprocess
import sys

import pytest

import mil
from mil._core import BACKENDS, KERNELS, kernel, twins, use_backend


def test_every_kernel_is_resolved_with_a_reason():
    assert set(BACKENDS) == set(KERNELS)
    for name, state in BACKENDS.items():
        assert state["active"] in ("compiled", "python")
        assert state["description"]


@pytest.mark.parametrize("name", KERNELS)
def test_twins_provide_the_same_public_names(name):
    compiled, python = twins(name)
    assert python.__all__, f"{name}_py declares no public names"
    for attr in python.__all__:
        assert callable(getattr(python, attr))
    if compiled is None:
        pytest.skip(f"{name} is not compiled here")
    assert sorted(compiled.__all__) == sorted(python.__all__)
    for attr in compiled.__all__:
        assert callable(getattr(compiled, attr))


def test_use_backend_switches_and_restores():
    name = KERNELS[0]
    with use_backend("python"):
        assert kernel(name) is twins(name)[1]
    assert kernel(name) is (twins(name)[0] if BACKENDS[name]["active"] == "compiled" else twins(name)[1])
    with pytest.raises(ValueError, match="kind must be"):
        with use_backend("fortran"):
            pass


def _run(code, **env):
    import os

    full_env = {k: v for k, v in os.environ.items() if not k.startswith("MIL_")}
    full_env.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full_env)


def test_pure_python_switch_in_a_fresh_process():
    out = _run("import mil; mil.show_config()", MIL_PURE_PYTHON="yes")
    assert out.returncode == 0, out.stderr
    assert "python (MIL_PURE_PYTHON)" in out.stdout
    assert "compiled\n" not in out.stdout + "\n"


def test_show_config_reports_versions():
    import io

    buf = io.StringIO()
    mil.show_config(file=buf)
    text = buf.getvalue()
    for word in ("mil " + mil.__version__, "numpy", "scipy", "scikit-learn", "kernels:"):
        assert word in text
    for name in KERNELS:
        assert name in text


def test_require_compiled_reports_the_original_error(tmp_path):
    # A package copy without compiled modules must fail loudly under MIL_REQUIRE_COMPILED.
    import os
    import shutil

    src = os.path.dirname(mil.__file__)
    dst = tmp_path / "mil"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    code = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import mil"
    failed = _run(code, MIL_REQUIRE_COMPILED="1")
    assert failed.returncode != 0
    assert "MIL_REQUIRE_COMPILED" in failed.stderr and "does not import" in failed.stderr
    fallback = _run(code + "; mil.show_config()")
    assert fallback.returncode == 0, fallback.stderr
    assert "python (compiled module missing:" in fallback.stdout


def test_env_flag_values(monkeypatch):
    from mil._config import env_flag

    for value, expected in [("1", True), ("TRUE", True), ("yes", True), ("on", True),
                            ("0", False), ("", False), ("no", False)]:
        monkeypatch.setenv("MIL_TEST_FLAG", value)
        assert env_flag("MIL_TEST_FLAG") is expected
    importlib.reload(importlib.import_module("mil._config"))
