"""Contract name kept for outside checks: ``api.client.Client`` (the interface document's service,
:mod:`api.services.interface.client`)."""

from .services.interface.client import Client as Client
