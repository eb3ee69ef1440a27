"""The UI-free core and the --print path never import Textual.

Checked in a fresh interpreter, because the test process itself may already
have Textual loaded by other tests.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

ALL_CORE_MODULES = r"""
import importlib, pkgutil, sys
import viewer.core
names = ["viewer", "viewer.core", "viewer.cli"]
names += [m.name for m in pkgutil.walk_packages(viewer.core.__path__, "viewer.core.")]
for name in names:
    importlib.import_module(name)
loaded = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
print(len(names), "modules;", "textual loaded:" if loaded else "textual absent", *loaded[:5])
sys.exit(1 if loaded else 0)
"""

PRINT_RUN = r"""
import sys
from viewer.cli import main
try:
    main(["--print", "--output-format", "{fmt}", {path!r}])
except SystemExit:
    pass
loaded = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
sys.stderr.write("textual loaded: %s\n" % loaded[:5] if loaded else "")
sys.exit(3 if loaded else 0)
"""


def _python(h, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=h.cli_env(), cwd=h.repo, timeout=30)


def test_core_and_cli_modules_do_not_import_textual(h):
    cp = _python(h, ALL_CORE_MODULES)
    assert "Traceback" not in cp.stderr, cp.stderr
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert "textual absent" in cp.stdout


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_print_mode_does_not_import_textual(h, tmp_path, fmt):
    p = tmp_path / "run.ndjson"
    p.write_bytes(
        b'{"type":"system","subtype":"init","session_id":"s"}\n'
        b'{"type":"tool_call","subtype":"started","call_id":"c","session_id":"s",'
        b'"tool_call":{"shellToolCall":{"args":{"command":"ls"}}}}\n'
        b'{"type":"tool_call","subtype":"completed","call_id":"c","session_id":"s",'
        b'"tool_call":{"shellToolCall":{"result":{"success":{"exitCode":0}}}}}\n'
        b'{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s"}\n'
    )
    path = str(p)
    cp = _python(h, PRINT_RUN.replace("{fmt}", fmt).replace("{path!r}", repr(path)))
    assert "Traceback" not in cp.stderr, cp.stderr
    assert cp.returncode == 0, cp.stderr
