"""The HTTP under every service's client, and what keeps the artist safe on it, written once.

``client`` is the plumbing every service's client stands on (``ServiceClient``: one attempt per
call, a paid submit whose outcome is unknown said so, downloads; each service's wire is its package
in :mod:`api.services`); ``models`` parses answers tolerantly, ``ids`` checks task ids in one place,
``redact`` masks the key in service text. Under the client, the rules that keep the key and the
artist's machine safe: ``transport`` (one exchange: who gets the key — only the service's own API
origin —, how long, how much is read), ``origin`` (where a request will really go), ``guard``
(deadlines for a whole exchange), ``answers`` (JSON with limits, the service's words on failure),
``download`` (streamed to disk, capped, renamed when whole), ``retrying`` (the one retry policy:
who retries what) and ``trust`` (HTTPS that trusts the operating system's store). Imports only the
bottom of ``api/`` and ``checks``.
"""
