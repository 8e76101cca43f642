"""HTTPS that trusts what the operating system trusts, for Kiln's own connections only.

requests checks certificates against its own bundle (certifi). Behind a company proxy or an
antivirus that inspects HTTPS (common on Windows), the certificate the artist's system trusts is
not in it, so every request would fail. ``truststore`` (vendored in :mod:`api.vendor`) verifies
with Windows' certificate store, macOS's Keychain, or the Linux system's CA files (``SSL_CERT_FILE``
and ``SSL_CERT_DIR`` honoured). It is used through Kiln's adapter only, never
injected into Python's ``ssl`` module: other add-ons in the same Blender keep what they chose.
``REQUESTS_CA_BUNDLE`` (or ``CURL_CA_BUNDLE``), when set, still wins; verification is never off.
"""

from __future__ import annotations

import functools
import logging
import ssl

logger = logging.getLogger(__name__)


@functools.cache
def system_trust() -> ssl.SSLContext | None:
    """One client context verifying against the system's trust store, or None (requests' bundle then)."""
    try:
        from ..vendor import truststore
    except ImportError as exc:  # a Python without the certificate-chain API truststore needs
        logger.warning("System trust store unavailable (%s): HTTPS is checked against requests' bundle", exc)
        return None
    return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
