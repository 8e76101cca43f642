"""Kiln on a Blender whose Python lacks numpy or requests (as Debian's ``blender`` package may).

Enabling it gives one sentence saying what is missing and how to get it, never a traceback, and
registers only the preferences; once the modules are there, enabling it again registers everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from checkout import BLENDER_SCRIPTS

SCRIPT = BLENDER_SCRIPTS / "enable_without_modules.py"


def enable_without(hidden: str, tmp_path: Path) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    env = {**os.environ, "BLENDER_USER_RESOURCES": str(tmp_path / "user")}
    env.pop("KILN_API_KEY", None)
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--", str(tmp_path / "repo"), hidden],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    assert "Traceback" not in result.stdout + result.stderr
    line = next(line for line in result.stdout.splitlines() if line.startswith("KILN-RESULT "))
    return json.loads(line.removeprefix("KILN-RESULT ")), result


@pytest.mark.slow
def test_without_numpy_and_requests_kiln_says_what_is_missing_and_registers_only_its_preferences(
    tmp_path: Path,
) -> None:
    result, process = enable_without("numpy,requests", tmp_path)
    sentence = (
        "Kiln needs the Python modules numpy, requests, which this Blender's Python lacks. "
        "Blender from blender.org includes them; on Debian or Ubuntu install python3-numpy "
        "python3-requests, then restart Blender."
    )
    without = result["without"]
    assert without["enabled"]
    assert without["types"] == ["KilnPreferences"]
    assert without["preferences"] == sentence
    assert without["fields"] == []  # the sentence alone: nothing to fill in that could not work
    assert process.stderr.count("Kiln needs the Python modules") == 1  # said once, in the console
    # With the modules back, enabling again registers all of Kiln and the sentence is gone.
    assert result["after_disable"] == []
    assert {"KILN_PT_generate", "KILN_OT_generate_from_text"} <= set(result["with"]["types"])
    assert "Python module" not in result["with"]["preferences"]
    # The whole preferences: a fresh Kiln's first asks which service (its key comes once one is chosen).
    assert {"service", "poll_interval"} <= set(result["with"]["fields"]), result["with"]["fields"]


@pytest.mark.slow
def test_without_requests_only_that_module_is_named(tmp_path: Path) -> None:
    result, _process = enable_without("requests", tmp_path)
    assert result["without"]["types"] == ["KilnPreferences"]
    assert result["without"]["preferences"] == (
        "Kiln needs the Python module requests, which this Blender's Python lacks. "
        "Blender from blender.org includes it; on Debian or Ubuntu install python3-requests, "
        "then restart Blender."
    )
