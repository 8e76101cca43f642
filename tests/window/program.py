"""The Blender program with a real window, for the tests of what an artist sees and does.

Debian's ``blender`` package lives in a debootstrap chroot cached outside the repository
(``tools/window_chroot.sh``). Each window is an Xvfb display inside it, software OpenGL, real
timers and a real event loop; the test talks to Blender through ``agent.py`` (snippets run on
Blender's main thread) and to the screen through xdotool and ImageMagick. The chroot shares this
machine's network, so the sandbox started by the test on loopback is the service.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
PROVISION = REPO / "tools" / "window_chroot.sh"
AGENT = Path(__file__).resolve().parent / "agent.py"
#: Blender reads no user environment but these (``env -i`` keeps the host's out of the chroot).
BASE_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp"}
#: The 3D View's anti-aliasing in the test windows: one pass (FXAA), not the default eight. Blender
#: draws the viewport eight times after every change in it (a start, a job landing, an undo): on
#: software OpenGL 1.9 CPU-s for each change, 0.35 with FXAA; a window's start 4.4 -> 2.9 CPU-s. The
#: one picture of the viewport is taken with the default (``test_pictures.show_in_viewport``).
VIEWPORT_AA = "FXAA"
#: Preferences as an artist has them after the first start (no splash), saved in a user folder by
#: ``blender -b --python-expr``, with the viewport's anti-aliasing above. Assets: those on disk only
#: (Blender 5.2's ``asset_access``). With online access, 5.2 fetches its Online Essentials library's
#: listing at each start (its own ``use_online_essentials`` off does not stop that); without a network
#: the fetch fails about 12 s after the start, and its error report flashing in the status bar cost
#: each window about 2 s of CPU (software OpenGL) and could show in a picture.
FIRST_START_PREFERENCES = (
    "import bpy\n"
    "p = bpy.context.preferences\n"
    "p.view.show_splash = False\n"
    f"p.system.viewport_aa = {VIEWPORT_AA!r}\n"
    "if hasattr(p.view, 'asset_access'):\n"
    "    p.view.asset_access = 'ONLY_OFFLINE'\n"
    "bpy.ops.wm.save_userpref()"
)
#: X display numbers, from a base each of two window runs side by side sets apart (``make window``):
#: two runs trying the same number at once could both see the other's server come up.
_displays = itertools.count(int(os.environ.get("KILN_WINDOW_DISPLAY_BASE", "70")))


class WindowError(AssertionError):
    """Something in the window did not happen as the test expected; carries Blender's log."""


@dataclass(frozen=True)
class Program:
    """Debian's Blender in its chroot."""

    root: Path
    version: str

    def inside(self, host: Path) -> str:
        """The chroot's name for a host path below its root."""
        return "/" + str(host.resolve().relative_to(self.root.resolve()))

    def workdir(self, name: str) -> Path:
        """A fresh folder inside the chroot (host path)."""
        folder = self.root / "tmp" / f"kiln-window-{os.getpid()}" / f"{name}-{uuid.uuid4().hex[:8]}"
        folder.mkdir(parents=True)
        return folder

    def command(self, argv: Sequence[str], env: dict[str, str] | None = None) -> list[str]:
        variables = {**BASE_ENV, **(env or {})}
        return [
            "chroot",
            str(self.root),
            "/usr/bin/env",
            "-i",
            *(f"{k}={v}" for k, v in variables.items()),
            *argv,
        ]

    def run(
        self, argv: Sequence[str], env: dict[str, str] | None = None, timeout: float = 120.0
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.command(argv, env), capture_output=True, text=True, timeout=timeout, check=False
        )

    def blender(
        self, args: Sequence[str], user: Path, timeout: float = 120.0
    ) -> subprocess.CompletedProcess[str]:
        """``blender ARGS`` with its own user folder; fails the test on a non-zero exit."""
        done = self.run(
            ["blender", *args], env={"BLENDER_USER_RESOURCES": self.inside(user)}, timeout=timeout
        )
        if done.returncode != 0:
            raise WindowError(
                f"blender {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
            )
        return done


def provision() -> Program | str:
    """The chroot with Blender, made or refreshed; or the one sentence why this machine cannot."""
    done = subprocess.run([str(PROVISION), "ensure"], capture_output=True, text=True, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode == 3:
        return lines[-1] if lines else "The window suite cannot run on this machine."
    if done.returncode != 0 or not lines:
        raise RuntimeError(
            f"tools/window_chroot.sh ensure failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )
    root = Path(lines[-1])
    version = subprocess.run(
        ["chroot", str(root), "blender", "--version"], capture_output=True, text=True, check=True
    ).stdout.splitlines()[0]
    return Program(root=root, version=version.strip())


#: The screens' sizes. Every frame the window draws costs about its pixels (software OpenGL draws the
#: whole window for a change in one region), and frames are most of the suite's CPU: a screen is as
#: small as its test allows. Tall: every Kiln panel at full height, and room for the Preferences
#: window (test_pictures.PREFERENCES_SIZE) and a question left of the Sidebar
#: (sidebar_clicks.QUESTION_REACH).
SCREEN = (1024, 768)
TALL_SCREEN = (1024, 1300)


@dataclass
class Display:
    """An Xvfb screen inside the chroot, with xdotool for input and ImageMagick for pictures."""

    program: Program
    width: int = SCREEN[0]
    height: int = SCREEN[1]
    number: int = field(default_factory=lambda: next(_displays))
    _process: subprocess.Popen[bytes] | None = None
    #: Where the last ``mousemove`` put the pointer.
    _pointer: tuple[str, str] | None = None

    @property
    def name(self) -> str:
        return f":{self.number}"

    def start(self) -> Display:
        """Xvfb on the first free display number (another chroot's Xvfb may hold one: X's abstract
        sockets are shared by every process on this machine's network)."""
        for _attempt in range(30):
            if self._try_start():
                return self
            self.number = next(_displays)
        raise WindowError("no Xvfb display could be started")

    def _try_start(self) -> bool:
        socket = self.program.root / "tmp" / ".X11-unix" / f"X{self.number}"
        if socket.exists():
            return False
        self._process = subprocess.Popen(
            self.program.command(
                ["Xvfb", self.name, "-screen", "0", f"{self.width}x{self.height}x24", "-nolisten", "tcp"]
            ),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while not socket.exists():
            if self._process.poll() is not None:
                return False
            if time.monotonic() > deadline:
                self._process.kill()
                return False
            time.sleep(0.05)
        return True

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            self._process.wait(timeout=10)

    def xdotool(self, *args: str | int) -> str:
        words = [str(arg) for arg in args]
        if words[:2] == ["mousemove", "--sync"]:
            # --sync waits for the pointer to move: to where it already is, xdotool waits ~15 s.
            target = (words[2], words[3])
            if target == self._pointer:
                del words[1]
            self._pointer = target
        elif words[:1] == ["mousemove"]:
            self._pointer = (words[1], words[2])
        done = self.program.run(["xdotool", *words], env={"DISPLAY": self.name}, timeout=30)
        if done.returncode != 0:
            raise WindowError(f"xdotool {args} failed: {done.stderr}")
        return done.stdout

    def clipboard(self) -> str:
        """What the display's clipboard holds (read as any X program reads it: no round trip through
        Blender's Python, so a search over the Sidebar costs a few milliseconds a step)."""
        done = self.program.run(
            ["xclip", "-o", "-selection", "clipboard"], env={"DISPLAY": self.name}, timeout=10
        )
        return done.stdout if done.returncode == 0 else ""

    def click(self, x: int, y: int, button: int = 1) -> None:
        self.xdotool("mousemove", "--sync", x, y)
        self.xdotool("click", button)

    def screenshot(self, dest: Path, crop: dict[str, int] | None = None) -> Path:
        """The whole screen (or a rectangle of it) as a PNG at ``dest``, with the mouse parked in
        the status bar so no tooltip or highlight is in the picture."""
        # A key press closes a tooltip a button left behind; Shift alone changes nothing.
        self.xdotool(
            "mousemove",
            "--sync",
            self.width - 2,
            self.height - 2,
            "sleep",
            "0.2",
            "key",
            "shift",
            "sleep",
            "0.6",
        )
        shot = self.program.workdir("shot") / "screen.png"
        argv = ["import", "-window", "root"]
        if crop:
            argv += ["-crop", f"{crop['width']}x{crop['height']}+{crop['x']}+{crop['y']}", "+repage"]
        done = self.program.run([*argv, self.program.inside(shot)], env={"DISPLAY": self.name}, timeout=60)
        if done.returncode != 0:
            raise WindowError(f"import failed: {done.stderr}")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(shot), dest)
        return dest


class Window:
    """One Blender program on a display, with the agent listening; ``call`` runs code in it."""

    def __init__(self, program: Program, display: Display, user: Path, env: dict[str, str]) -> None:
        self.program = program
        self.display = display
        self.user = user
        self.env = env
        self.agent_dir = program.workdir("agent")
        self.log_path = self.agent_dir / "blender.log"
        self._process: subprocess.Popen[bytes] | None = None
        self._serial = itertools.count()

    def start(
        self,
        blend: Path | None = None,
        args: Sequence[str] = (),
        ready_timeout: float = 90.0,
        online: bool = True,
    ) -> Window:
        """``online=False``: Blender's online access as the preferences have it (off on a first start),
        not forced on from the command line."""
        shutil.copy(AGENT, self.agent_dir / "agent.py")
        for box in ("in", "out"):
            shutil.rmtree(self.agent_dir / box, ignore_errors=True)
        argv = [
            "blender",
            "--window-geometry", "0", "0", str(self.display.width), str(self.display.height),
            *(["--online-mode"] if online else []),
            *args,
            *([self.program.inside(blend)] if blend else []),
            "--python", self.program.inside(self.agent_dir / "agent.py"),
        ]  # fmt: skip
        env = {
            **self.env,
            "DISPLAY": self.display.name,
            "BLENDER_USER_RESOURCES": self.program.inside(self.user),
            "KILN_AGENT_DIR": self.program.inside(self.agent_dir),
        }
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen(
                self.program.command(argv, env), stdout=log, stderr=subprocess.STDOUT
            )
        self.call("result = True", timeout=ready_timeout)
        return self

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace") if self.log_path.exists() else ""

    def call(self, code: str, timeout: float = 30.0) -> Any:
        """Run ``code`` on Blender's main thread; returns what it put in ``result``."""
        name = f"{next(self._serial):05d}"
        inbox, outbox = self.agent_dir / "in", self.agent_dir / "out"
        inbox.mkdir(exist_ok=True)
        partial = inbox / f"{name}.partial"
        partial.write_text(code, encoding="utf-8")
        partial.replace(inbox / f"{name}.py")
        answer_path = outbox / f"{name}.json"
        deadline = time.monotonic() + timeout
        while not answer_path.exists():
            if not self.running:
                raise WindowError(
                    f"Blender ended (exit {self._exit_code()}) before answering:\n{code}\n{self.log()[-4000:]}"  # noqa: E501
                )
            if time.monotonic() > deadline:
                raise WindowError(f"no answer within {timeout} s to:\n{code}\n{self.log()[-4000:]}")
            time.sleep(0.01)
        answer = json.loads(answer_path.read_text(encoding="utf-8"))
        if not answer["ok"]:
            raise WindowError(f"{code}\nraised in Blender:\n{answer['error']}")
        return answer["result"]

    def wait_for(self, expression: str, timeout: float = 60.0, every: float = 0.25) -> Any:
        """Poll ``expression`` in Blender until it is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.call(f"result = {expression}")
            if value:
                return value
            if time.monotonic() > deadline:
                raise WindowError(f"{expression} still {value!r} after {timeout} s\n{self.log()[-4000:]}")
            time.sleep(every)

    def _exit_code(self) -> int | None:
        return None if self._process is None else self._process.poll()

    def quit(self, timeout: float = 60.0) -> int:
        """File ▸ Quit, as an artist leaves Blender (no save prompt: the agent calls the operator)."""
        if not self.running:
            return self._exit_code() or 0
        assert self._process is not None
        inbox = self.agent_dir / "in"
        (inbox / "99999.partial").write_text("bpy.ops.wm.quit_blender()", encoding="utf-8")
        (inbox / "99999.partial").replace(inbox / "99999.py")
        try:
            return self._process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise WindowError(f"Blender did not quit within {timeout} s\n{self.log()[-4000:]}") from None

    def kill(self) -> None:
        if self.running:
            assert self._process is not None
            self._process.send_signal(signal.SIGKILL)
            self._process.wait(timeout=30)
