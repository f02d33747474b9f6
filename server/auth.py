"""Per-namespace bearer tokens: who may read and who may record lineage in which namespace.

The file given to ``--auth`` is a JSON object mapping a namespace to the tokens allowed in it::

    {
      "MyNamespace": ["b1946ac92492d2347c6235b4d2611184", "sha256:5e884898da28047151d0e56f8dc62927..."],
      "sales":       {"read": ["dashboard-token-0123456789"], "write": ["c3ab8ff13720e8ad9047dd39466b3c89"]},
      "*":           ["admin-token-with-at-least-16-chars"]
    }

* A key is a namespace name, or ``"*"`` for every namespace (an operator's token).
* A list of tokens may read and write the namespace; an object separates the tokens that may only
  ``read`` from those that may ``write`` (and so read too).
* A token is either the token itself (at least 16 characters) or ``"sha256:"`` followed by the
  64-digit hex SHA-256 of the token, so the file need not hold secrets in clear text.
* The same token may appear under several namespaces.

Requests send ``Authorization: Bearer <token>``. No token, or a token no namespace knows, is
401; a valid token that may not read the route's namespace (or, to record a run, write it) is 403.
Routes without a namespace (``POST /v3/lineage/recipe``) accept any valid token. ``/healthz`` and
``/openapi.json`` are public. What a request names or gets back beyond its path is checked by the
routes with the ``Grant`` the check returns: every dataset a run records must be in a namespace the
token may write, and lineage answers are cut at the namespaces it may not read (``lineage.visibility``).

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lineage.visibility import EVERYTHING, Visibility
from server.errors import ForbiddenError, UnauthorizedError

ALL_NAMESPACES = "*"
MIN_TOKEN_CHARS = 16
ACCESS_LEVELS = ("read", "write")
_HASHED = re.compile(r"sha256:([0-9a-f]{64})")
_BEARER = re.compile(r"Bearer[ \t]+([!-~]+)[ \t]*", re.IGNORECASE)


class AuthFileError(ValueError):
    """The token file cannot be used; the message says which entry is wrong."""


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


@dataclass(frozen=True, slots=True)
class Grant:
    """What one token may do: the namespaces it may read and those it may write (``*``: all of them)."""

    read: frozenset[str]
    write: frozenset[str]
    view: Visibility = field(init=False)
    """What its lineage answers may show (``lineage.visibility``), built once per token."""
    alias_prefix: str = field(init=False)
    """Put before a request's raw text to name its near-cache answer: empty for a token that sees
    everything, else its view's key and a newline, so cut answers are never shared across views."""

    def __post_init__(self) -> None:
        read = self.read | self.write  # writing a namespace includes reading it
        object.__setattr__(self, "read", read)
        everything = ALL_NAMESPACES in read
        object.__setattr__(self, "view", EVERYTHING if everything else Visibility(read))
        object.__setattr__(self, "alias_prefix", "" if everything else f"{self.view.key}\n")

    def may_read(self, namespace: str) -> bool:
        return ALL_NAMESPACES in self.read or namespace in self.read

    def may_write(self, namespace: str) -> bool:
        return ALL_NAMESPACES in self.write or namespace in self.write


FULL_ACCESS = Grant(read=frozenset({ALL_NAMESPACES}), write=frozenset({ALL_NAMESPACES}))
"""The grant of every request to a server without ``--auth``."""


def _levels(namespace: str, tokens: Any, where: Path | str) -> dict[str, list[Any]]:
    """A namespace's entry as ``{"read": [...], "write": [...]}`` (a plain list may do both)."""
    if isinstance(tokens, list):
        if not tokens:
            raise AuthFileError(f"auth file {where}: namespace {namespace!r} needs a non-empty list of tokens")
        return {"write": tokens}
    if isinstance(tokens, dict):
        unknown = sorted(set(tokens) - set(ACCESS_LEVELS))
        if unknown:
            raise AuthFileError(f"auth file {where}: namespace {namespace!r} has unknown access {unknown[0]!r} "
                                f"(expected {' or '.join(map(repr, ACCESS_LEVELS))})")
        if not all(isinstance(value, list) for value in tokens.values()) or not any(tokens.values()):
            raise AuthFileError(f"auth file {where}: namespace {namespace!r} needs a non-empty list of tokens "
                                "under 'read' or 'write'")
        return dict(tokens)
    raise AuthFileError(f"auth file {where}: namespace {namespace!r} needs a non-empty list of tokens")


class Authorizer:
    """Decides 401 / 403 / allowed for a request's ``Authorization`` header and namespace."""

    def __init__(self, grants: Mapping[str, Sequence[str] | Mapping[str, Sequence[str]]],
                 *, source: Path | str = "") -> None:
        by_digest: dict[bytes, dict[str, set[str]]] = {}
        for namespace, entry in grants.items():
            for level, tokens in _levels(namespace, entry, source).items():
                for token in tokens:
                    levels = by_digest.setdefault(self._parse_token(namespace, token), {"read": set(), "write": set()})
                    levels[level].add(namespace)
        self._entries: tuple[tuple[bytes, Grant], ...] = tuple(
            (digest, Grant(read=frozenset(levels["read"]), write=frozenset(levels["write"])))
            for digest, levels in by_digest.items()
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
        for namespace in data:
            if not namespace:
                raise AuthFileError(f"auth file {path}: empty namespace name")
        return cls(data, source=path)

    def _granted(self, token: str) -> Grant | None:
        presented = _digest(token)
        granted: Grant | None = None
        for digest, grant in self._entries:  # no early exit: constant work per request
            if hmac.compare_digest(digest, presented):
                granted = grant  # digests are unique: at most one entry matches
        return granted

    def authenticate(self, authorization: str | None) -> Grant:
        """The grant of the request's bearer token; ``UnauthorizedError`` (401) without a valid one."""
        if not authorization:
            raise UnauthorizedError("this API needs a bearer token: send 'Authorization: Bearer <token>'")
        match = _BEARER.fullmatch(authorization)
        if match is None:
            raise UnauthorizedError("the Authorization header must be 'Bearer <token>'")
        granted = self._granted(match.group(1))
        if granted is None:
            raise UnauthorizedError("the bearer token is not valid")
        return granted

    def check(self, authorization: str | None, namespace: str | None, *, write: bool = False) -> Grant:
        """The request's grant, or 401 / 403 (``ForbiddenError``) unless it may read - or ``write`` - ``namespace``."""
        grant = self.authenticate(authorization)
        if namespace is not None:
            if not grant.may_read(namespace):
                raise ForbiddenError("the bearer token does not grant access to this namespace", parameter="ns")
            if write and not grant.may_write(namespace):
                raise ForbiddenError("the bearer token may read this namespace but not record runs in it",
                                     parameter="ns")
        return grant
