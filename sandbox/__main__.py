"""CLI: `python -m sandbox --port P --key K` prints its base URL and serves until stopped."""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from types import FrameType

from sandbox.server import Sandbox
from sandbox.standins import APPS
from sandbox.state import DEFAULT_KEY


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback)")
    parser.add_argument("--port", type=int, default=8765, help="port; 0 picks a free one (default: 8765)")
    parser.add_argument(
        "--key",
        action="append",
        dest="keys",
        metavar="KEY",
        help=f"accepted API key, repeatable (default: the demo key {DEFAULT_KEY})",
    )
    parser.add_argument("--credits", type=int, default=1000, help="credits per key (default: 1000)")
    parser.add_argument("--text-cost", type=int, default=1, help="credits per text-to-3d task (default: 1)")
    parser.add_argument("--speed", type=float, default=1.0, help="time scale; 10 is ten times faster")
    parser.add_argument("--faults", default="", help="fault spec, e.g. '503=0.2,reset=0.1' (see README)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fault dice (default: 0)")
    parser.add_argument(
        "--service",
        default="interface",
        choices=sorted(APPS),
        help="which service to stand in for (default: interface, the service of Kiln's interface document)",
    )
    parser.add_argument("--log-level", default="INFO", help="logging level on stderr (default: INFO)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        sandbox = Sandbox(
            keys=args.keys,
            credits=args.credits,
            speed=args.speed,
            faults=args.faults,
            seed=args.seed,
            text_cost=args.text_cost,
            host=args.host,
            port=args.port,
            service=args.service,
        )
    except ValueError as exc:
        raise SystemExit(f"sandbox: {exc}") from None
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    sandbox.start()
    print(f"Kiln sandbox listening on {sandbox.base_url}", flush=True)
    logging.getLogger("sandbox").info("keys: %s", ", ".join(sorted(sandbox.keys)))
    try:
        while not stop.wait(0.5):
            pass
    finally:
        sandbox.stop()


if __name__ == "__main__":
    main()
