"""The environment files: pins agree, and the pin checker used by the bootstrap is right."""
import re
import subprocess
import sys
from importlib import metadata

import yaml

from lib import paths


def pins(lines):
    return {m.group(1).lower(): m.group(2) for ln in lines
            if (m := re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)==(\S+)\s*", ln.split("#")[0]))}


def test_environment_yml_has_the_same_pins_as_requirements_txt():
    req = pins((paths.ROOT / "requirements.txt").read_text().splitlines())
    env = yaml.safe_load((paths.ROOT / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert pins(pip_section) == req
    assert "python=3.11" in env["dependencies"] and "-e ." in pip_section
    assert req["torch"] == "2.13.0" and req["recordlinkage"] == "0.16" and req["pandas"].startswith("2.")


def check(tmp_path, text):
    f = tmp_path / "req.txt"
    f.write_text(text)
    return subprocess.run([sys.executable, str(paths.ROOT / "scripts/check_pins.py"), str(f)],
                          capture_output=True, text=True)


def test_check_pins_accepts_installed_versions_and_local_labels(tmp_path):
    ok = check(tmp_path, f"# comment\npytest=={metadata.version('pytest')}\ntorch==2.13.0\n")
    assert ok.returncode == 0, ok.stderr


def test_check_pins_rejects_wrong_missing_and_unpinned(tmp_path):
    bad = check(tmp_path, "pytest==0.0.1\nno-such-package-xyz==1.0\nnumpy>=1\n")
    assert bad.returncode == 1
    assert "pytest: " in bad.stderr and "0.0.1 pinned" in bad.stderr
    assert "no-such-package-xyz: not installed" in bad.stderr and "not an exact pin" in bad.stderr
