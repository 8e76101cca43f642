"""The canary: the free calls of each cloud service, against its real API, to see its answers' shapes.

    KILN_MESHY_API_KEY=… python tools/canary.py            # every service whose key is set
    KILN_MESHY_API_KEY=… python tools/canary.py MESHY      # only the services named

For each service with a fixed API origin (``ServiceInfo.api_origin``) whose key variable
(``ServiceInfo.key_env``) is set, it runs, through the generic client (``api.services.make_client``),
only calls that cost nothing: Test Connection, the balance, and reading a task id that does not
exist. Each answer must keep the shape Kiln reads: Test Connection says the balance where the
service has one, the balance is a whole number, and the missing task is "not found" (not an
unreadable answer, not "this version of Kiln is too old"). A service without a key is skipped with a
line. ``KILN_<SERVICE>_BASE_URL`` points a service elsewhere (the tests point it at the stand-ins).
Exit status 1 when any check fails (the scheduled workflow .github/workflows/canary.yml fails loudly),
else 0. Nothing is ever submitted, and no key or balance figure is written out.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from api.errors import KilnError, NotFoundError, ServiceMovedError  # noqa: E402
from api.services import ServiceInfo, all_services, make_client  # noqa: E402
from api.words import catalogue as words  # noqa: E402
from api.words import english_message  # noqa: E402

logger = logging.getLogger("canary")

#: A task id no service has made: a well-formed UUID of zeros (every service's ids are UUID-like).
MISSING_TASK = "00000000-0000-0000-0000-000000000000"
#: Rodin follows a task by its subscription key (``handle``): a made-up one of the same shape.
MISSING_HANDLE = "kiln-canary-no-such-subscription"


def cloud_services() -> list[ServiceInfo]:
    """The services with a fixed API origin: the ones a repository secret can hold a key for."""
    return [service for service in all_services() if service.api_origin]


def check(service: ServiceInfo, key: str, base_url: str) -> list[str]:
    """The free calls against ``base_url`` with ``key``: the problems found (empty: every shape held)."""
    problems: list[str] = []
    with make_client(service.id, base_url, key) as client:
        try:
            said = client.check_connection()
            wanted = (
                words.CONNECTED_WITH_BALANCE if service.capabilities.balance else words.CONNECTED_TO_SERVICE
            )
            if said.name != _entry_name(wanted):
                problems.append(
                    f"Test Connection said {said.name}, not {_entry_name(wanted)}: {english_message(said)}"
                )
        except KilnError as error:
            problems.append(f"Test Connection failed ({type(error).__name__}): {error.user_message}")
        if service.capabilities.balance:
            try:
                left = client.balance()
                if not isinstance(left, int) or left < 0:
                    problems.append(f"the balance is not a whole number of credits any more (read {left!r})")
            except KilnError as error:
                problems.append(f"the balance failed ({type(error).__name__}): {error.user_message}")
        try:
            client.get_task(MISSING_TASK, handle=MISSING_HANDLE)
            problems.append("a task that does not exist was answered as if it did")
        except ServiceMovedError as error:
            problems.append(f"reading a missing task says the API moved: {error.user_message}")
        except NotFoundError:
            pass  # the shape Kiln reads: a task the service does not know
        except KilnError as error:
            problems.append(f"reading a missing task failed ({type(error).__name__}): {error.user_message}")
    return problems


def _entry_name(entry: object) -> str:
    return next(name for name, value in vars(words).items() if value is entry)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("services", nargs="*", help="service ids (default: every cloud service)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    wanted = {name.upper() for name in args.services}
    failed = False
    for service in cloud_services():
        if wanted and service.id not in wanted:
            continue
        key = os.environ.get(service.key_env, "").strip()
        if not key:
            logger.info("%s: skipped, %s is not set", service.id, service.key_env)
            continue
        base_url = os.environ.get(service.base_url_env, "").strip() or service.api_origin
        problems = check(service, key, base_url)
        for problem in problems:
            logger.error("%s: FAILED: %s", service.id, problem)
        if problems:
            failed = True
        else:
            logger.info(
                "%s: ok (Test Connection, balance, a missing task: every answer kept its shape)", service.id
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
