"""Row 5: memory growth of this process while Kiln's client downloads a 500 MB GLB.

Runs as its own process (``python -m bench.download``) so nothing else in it has raised the
high-water mark: growth is the peak resident size during the download minus the size before,
read from /proc (VmHWM reset just before, and VmRSS sampled every few milliseconds).
"""

from __future__ import annotations

import contextlib
import functools
import json
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from api.checks.glb import check_glb
from api.services.interface.client import Client
from bench.addon import ROOT
from bench.meshes import write_big_glb

SIZE = 500 * 1024 * 1024
SAMPLE_SECONDS = 0.005


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def measure() -> dict[str, float]:
    """In the child: serve a 500 MB GLB on loopback and download it with the real client."""
    with tempfile.TemporaryDirectory(prefix="kiln-bench-dl-") as tmp:
        folder = Path(tmp)
        write_big_glb(folder / "big.glb", SIZE)
        handler = functools.partial(_Quiet, directory=str(folder))
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        client = Client(base, "bench_live_0000000000")
        peak_rss, done = [0], threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak_rss[0] = max(peak_rss[0], _status_kb("VmRSS"))
                time.sleep(SAMPLE_SECONDS)

        sampler = threading.Thread(target=sample, daemon=True)
        with contextlib.suppress(OSError):
            Path("/proc/self/clear_refs").write_text("5")  # high-water mark := current size
        before = _status_kb("VmRSS")
        sampler.start()
        start = time.perf_counter()
        client.download(f"{base}/big.glb", folder / "out.glb", check=check_glb)
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
        size = (folder / "out.glb").stat().st_size
        client.close()
        server.shutdown()
    assert size == SIZE
    return {
        "bytes": float(SIZE),
        "seconds": seconds,
        "growth_mb": (max(_status_kb("VmHWM"), peak_rss[0]) - before) / 1024.0,
        "sampled_growth_mb": (peak_rss[0] - before) / 1024.0,
    }


def run() -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.download"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


if __name__ == "__main__":
    print(json.dumps(measure()))
