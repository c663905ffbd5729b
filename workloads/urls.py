"""A URL's secrets (a userinfo password, a query's ``password=`` or ``token=``) masked wherever a
URL or a message about it is shown, and a URL's userinfo taken apart for a client to send as
credentials. One set of rules for every URL the tool prints: a study's storage, a metrics
endpoint, an AWS endpoint.
"""
from __future__ import annotations

import re
from urllib.parse import unquote, unquote_plus, urlsplit

from workloads.errors import ScenarioError

_SECRET_KEYS = ("pass", "pwd", "secret", "token", "credential", "auth")   # password, sslpassword, passwd, ...
MASK = "***"
_USERINFO = re.compile(r"^([^:/?#]*://)([^/?#]*)@")   # greedy: a password may hold an unencoded @


def secret_key(key: str) -> bool:
    return any(word in unquote(key).lower() for word in _SECRET_KEYS)


def url_password(url: str) -> str | None:
    userinfo = _USERINFO.match(url)
    return userinfo.group(2).split(":", 1)[1] if userinfo and ":" in userinfo.group(2) else None


def _query_pairs(url: str) -> list[tuple[str, str, str]]:
    """(key, '=', value) of each ``&``- or ``;``-separated query item."""
    return [pair.partition("=") for pair in re.split(r"[&;]", url.partition("?")[2].partition("#")[0]) if pair]


def _secrets(url: str) -> set[str]:
    """The URL's secrets as written and decoded: the userinfo's password and secret query values."""
    found = {value for key, sep, value in _query_pairs(url) if sep and secret_key(key)}
    found.add(url_password(url) or "")
    return {secret for raw in found for secret in (raw, unquote(raw), unquote_plus(raw)) if secret}


def mask_secrets(text: str, url: str) -> str:
    """``text`` (a message, a driver's error) with every secret of ``url`` replaced by ``***``."""
    for secret in sorted(_secrets(url), key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def mask_url(url: str) -> str:
    """``url`` with its userinfo's password and its secret query values replaced by ``***``."""
    shown = _USERINFO.sub(lambda m: m.group(1) + m.group(2).split(":", 1)[0] + (":" + MASK if ":" in m.group(2) else "") + "@", url)
    base, sep, rest = shown.partition("?")
    query, hash_, fragment = rest.partition("#")
    items = re.split(r"([&;])", query)
    items = [f"{item.partition('=')[0]}={MASK}" if "=" in item and secret_key(item.partition("=")[0]) else item
             for item in items]
    return mask_secrets(base + sep + "".join(items) + hash_ + fragment, url)


def split_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """``url`` without its userinfo, and the userinfo's (user, password) decoded, for a client to
    send as credentials (HTTP basic authentication) rather than as part of the host name."""
    userinfo = _USERINFO.match(url)
    if not userinfo:
        return url, None
    user, _, password = userinfo.group(2).partition(":")
    return userinfo.group(1) + url[userinfo.end():], (unquote(user), unquote(password))


def http_url(url: str, option: str) -> str:
    """``url`` when it is an http:// or https:// URL with a host (and a port, if any, a number); else one
    line naming ``option``, before any call is made."""
    try:
        parts = urlsplit(url)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 0) >= 0
    except ValueError:      # a port that is no number, an unclosed IPv6 bracket
        usable = False
    if not usable:
        raise ScenarioError(option, f"{mask_url(url)!r} is no http:// or https:// URL with a host")
    return url
