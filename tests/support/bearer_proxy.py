"""A loopback proxy that adds ``Authorization: Bearer TOKEN`` to every request, for an MCP client
that cannot be told to send a header (the MCP conformance suite's own client).

It plays the part of the artist's client configuration and nothing else: method, path, body and
every other header pass as sent, and the answer streams back as it comes (an event stream stays
one). The ``Host`` a client sends for the proxy itself becomes the server's, so a well-behaved
request stays well-behaved; any other ``Host`` (a DNS-rebinding page's name) passes unchanged, so
the server's own check decides about it.

From a shell (docs/agents.md, "Running the MCP conformance suite"):
``KILN_AGENT_TOKEN=… python tests/support/bearer_proxy.py http://127.0.0.1:8790/mcp`` prints the
proxy's address and serves until Ctrl+C. The token is read from the environment, never from an
argument, which other users of the machine could read in the process list.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

#: Headers that belong to one connection, never forwarded (RFC 9110, 7.6.1).
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"}


class BearerProxy:
    def __init__(self, target_url: str, token: str) -> None:
        target = urlsplit(target_url)
        self.target_host = target.hostname or "127.0.0.1"
        self.target_port = target.port or 80
        self.path = target.path
        self.token = token
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.1,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def own_hosts(self) -> set[str]:
        return {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}

    def __enter__(self) -> BearerProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _handler(proxy: BearerProxy) -> type[BaseHTTPRequestHandler]:
    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP | {"host"}}
            host = self.headers.get("Host", "")
            own = host.lower() in proxy.own_hosts()
            headers["Host"] = f"{proxy.target_host}:{proxy.target_port}" if own else host
            headers["Authorization"] = f"Bearer {proxy.token}"
            upstream = http.client.HTTPConnection(proxy.target_host, proxy.target_port, timeout=120)
            try:
                upstream.request(self.command, self.path, body=body, headers=headers)
                answer = upstream.getresponse()
                self.send_response_only(answer.status, answer.reason)
                for name, value in answer.getheaders():
                    if name.lower() not in HOP_BY_HOP:
                        self.send_header(name, value)
                if answer.getheader("Content-Length") is None:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                while chunk := answer.read1(65536):
                    self.wfile.write(chunk)
                    self.wfile.flush()
            finally:
                upstream.close()

        do_POST = do_GET = do_DELETE = do_PUT = do_OPTIONS = forward

    return Forward


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Add Kiln's bearer token to every request for a client that cannot."
    )
    parser.add_argument("url", help="Kiln's agent server, e.g. http://127.0.0.1:8790/mcp")
    target = parser.parse_args().url
    token = os.environ.get("KILN_AGENT_TOKEN", "").strip()
    if not token:
        parser.error("set KILN_AGENT_TOKEN to the token of the client configuration Kiln copied")
    with BearerProxy(target, token) as proxy:
        print(proxy.url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
