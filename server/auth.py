"""Per-namespace bearer tokens: who may read and record lineage in which namespace.

The file given to ``--auth`` is a JSON object mapping a namespace to the tokens allowed in it::

    {
      "MyNamespace": ["b1946ac92492d2347c6235b4d2611184", "sha256:5e884898da28047151d0e56f8dc62927..."],
      "sales":       ["c3ab8ff13720e8ad9047dd39466b3c89"],
      "*":           ["admin-token-with-at-least-16-chars"]
    }

* A key is a namespace name, or ``"*"`` for every namespace (an operator's token).
* A token is either the token itself (at least 16 characters) or ``"sha256:"`` followed by the
  64-digit hex SHA-256 of the token, so the file need not hold secrets in clear text.
* The same token may appear under several namespaces.

Requests send ``Authorization: Bearer <token>``. No token, or a token no namespace knows, is
401; a valid token for another namespace is 403. Routes without a namespace (``POST
/v3/lineage/recipe``) accept any valid token. ``/healthz`` and ``/openapi.json`` are public.

Only digests are kept in memory, and a presented token is compared with *every* known digest
through ``hmac.compare_digest`` without stopping early, so the time taken says nothing about
which tokens exist or how close a guess was.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from server.errors import ForbiddenError, UnauthorizedError

ALL_NAMESPACES = "*"
MIN_TOKEN_CHARS = 16
_HASHED = re.compile(r"sha256:([0-9a-f]{64})")
_BEARER = re.compile(r"Bearer[ \t]+([!-~]+)[ \t]*", re.IGNORECASE)


class AuthFileError(ValueError):
    """The token file cannot be used; the message says which entry is wrong."""


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


class Authorizer:
    """Decides 401 / 403 / allowed for a request's ``Authorization`` header and namespace."""

    def __init__(self, grants: Mapping[str, Sequence[str]]) -> None:
        by_digest: dict[bytes, set[str]] = {}
        for namespace, tokens in grants.items():
            for token in tokens:
                by_digest.setdefault(self._parse_token(namespace, token), set()).add(namespace)
        self._entries: tuple[tuple[bytes, frozenset[str]], ...] = tuple(
            (digest, frozenset(namespaces)) for digest, namespaces in by_digest.items()
        )

    @staticmethod
    def _parse_token(namespace: str, token: object) -> bytes:
        if not isinstance(token, str):
            raise AuthFileError(f"namespace {namespace!r}: tokens must be strings, got {type(token).__name__}")
        hashed = _HASHED.fullmatch(token)
        if hashed:
            return bytes.fromhex(hashed.group(1))
        if token.startswith("sha256:"):
            raise AuthFileError(f"namespace {namespace!r}: 'sha256:' must be followed by 64 lowercase hex digits")
        if len(token) < MIN_TOKEN_CHARS or not token.isprintable() or any(c.isspace() for c in token):
            raise AuthFileError(
                f"namespace {namespace!r}: a token needs at least {MIN_TOKEN_CHARS} printable, non-space characters"
            )
        return _digest(token)

    @classmethod
    def from_file(cls, path: str | Path) -> Authorizer:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as error:
            raise AuthFileError(f"cannot read auth file {path}: {error.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise AuthFileError(f"auth file {path} is not valid JSON: {error}") from None
        if not isinstance(data, dict) or not data:
            raise AuthFileError(f"auth file {path}: expected a non-empty object {{namespace: [token, ...]}}")
        for namespace, tokens in data.items():
            if not namespace:
                raise AuthFileError(f"auth file {path}: empty namespace name")
            if not isinstance(tokens, list) or not tokens:
                raise AuthFileError(f"auth file {path}: namespace {namespace!r} needs a non-empty list of tokens")
        return cls(data)

    def _granted(self, token: str) -> frozenset[str]:
        presented = _digest(token)
        granted: set[str] = set()
        for digest, namespaces in self._entries:  # no early exit: constant work per request
            if hmac.compare_digest(digest, presented):
                granted |= namespaces
        return frozenset(granted)

    def check(self, authorization: str | None, namespace: str | None) -> None:
        """Raise ``UnauthorizedError`` (401) or ``ForbiddenError`` (403) unless the request may proceed."""
        if not authorization:
            raise UnauthorizedError("this API needs a bearer token: send 'Authorization: Bearer <token>'")
        match = _BEARER.fullmatch(authorization)
        if match is None:
            raise UnauthorizedError("the Authorization header must be 'Bearer <token>'")
        granted = self._granted(match.group(1))
        if not granted:
            raise UnauthorizedError("the bearer token is not valid")
        if namespace is not None and namespace not in granted and ALL_NAMESPACES not in granted:
            raise ForbiddenError("the bearer token does not grant access to this namespace", parameter="ns")
