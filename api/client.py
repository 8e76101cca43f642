"""Contract name kept for outside checks: ``api.client.Client`` (the client is :mod:`api.service.client`)."""

from .service.client import Client as Client
