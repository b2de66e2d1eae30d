"""Secrets: passwords, keys and tokens that are values, not placeholders or template filler."""

from __future__ import annotations

import base64
import re

from scrubber.detectors.validators.base import Memo

_PLACEHOLDER_WORDS = frozenset(
    [
        "redacted",
        "hidden",
        "masked",
        "removed",
        "none",
        "null",
        "nil",
        "undefined",
        "empty",
        "secret",
        "password",
        "changeme",
        "wrong",
        "incorrect",
        "invalid",
        "expired",
        "reset",
        "changed",
        "required",
        "missing",
        "correct",
        "not",
        "too",
        "the",
        "my",
        "your",
        "a",
        "an",
        "set",
        "updated",
        "weak",
        "strong",
        "ok",
        "fine",
        "same",
        "different",
        "case",
        "sensitive",
        "here",
        "there",
        "below",
        "above",
        "attached",
        "same",
        "enabled",
        "disabled",
        "true",
        "false",
        "yes",
        "no",
        "unknown",
        "xxx",
        "xxxx",
        "xxxxx",
    ]
)


# A run of one of these characters this long in a key is a template's filler ("AKIAXXXX...",
# "sk_test_0000...", "ghp_****..."), not a key: random keys have no such runs.
_FILLER_RUN = re.compile(r"([Xx0*#.•_-])\1{7}")
_SHELL_VARIABLE = re.compile(r"\$(?:[A-Z_][A-Z0-9_]*|[a-z_]+)")


# Words that say "put your own here" inside a key-shaped value.
_TEMPLATE_WORDS = re.compile(
    r"(?i)(?:^|[-_.])(?:replace[-_.]?me|change[-_.]?me|your[-_.](?:api[-_.])?(?:key|token|secret|password)"
    r"|insert[-_.]|placeholder|example[-_.]?(?:key|token)|dummy|fake[-_.]?(?:key|token))"
)


def _placeholder(v: str) -> bool:
    """Whether ``v`` stands for a secret instead of being one: a variable reference
    ("$NPM_TOKEN", "${API_KEY}", "%DB_PASS%", "{{ secrets.X }}"), a bracketed note
    ("<your-token-here>", "[FILTERED]", "(sensitive value)") or a run of filler characters."""
    if v.startswith(("${", "$(", "{{", "<", "%(", "[")) or v.endswith((">", "}}")):
        return True
    if _SHELL_VARIABLE.fullmatch(v) is not None:
        return True  # $NPM_TOKEN, $db_pass (not "$ecret99": a variable has no digits then)
    if len(v) > 2 and v[0] == "%" and v[-1] == "%":
        return True  # a Windows variable: %DB_PASS%
    if v[0] == "(" and v[1:].rstrip(")").replace("-", "").replace("_", "").isalpha():
        return True  # Terraform's "(sensitive value)", "(hidden)", "(redacted)"
    if _TEMPLATE_WORDS.search(v) is not None:
        return True  # "xoxb-REPLACE-ME", "sk_live_YOUR_KEY_HERE", "<insert-token>"
    if v.startswith(("/", "~/")) and "/" in v[1:]:
        return True  # a path ("PWD=/home/ops" in sudo's log is the working directory)
    return _FILLER_RUN.search(v) is not None


def secret_value(value: str, memo: Memo) -> int:
    v = value.rstrip(".,;:)]}")
    if len(v) < 4:
        return 0
    low = v.lower()
    if low in _PLACEHOLDER_WORDS or len(set(v)) <= 2 or _placeholder(v):
        return 0
    if set(v) <= set("*x•#?."):
        return 0
    has_digit = any(c.isdigit() for c in v)
    has_symbol = any(not c.isalnum() for c in v)
    mixed_case = v != v.lower() and v != v.upper()
    if not (has_digit or has_symbol or mixed_case or len(v) >= 12):
        return 0
    return len(v)


def secret_token(value: str, memo: Memo) -> int:
    """A provider's key or token (the pattern checked its shape): not a template's filler."""
    if _FILLER_RUN.search(value) is not None or _TEMPLATE_WORDS.search(value) is not None:
        return 0
    return len(value)


def credential(value: str, memo: Memo) -> int:
    """The password of a "user:password" pair given on a command line (``curl -u``): any value
    but a placeholder. Short and plain ones count too: "deploy:pass" gives a password."""
    v = value.rstrip(".,;)]}")
    if not v or v.lower() in _PLACEHOLDER_WORDS or _placeholder(v) or set(v) <= set("*x•#?."):
        return 0
    if v.isdigit() and len(v) <= 5:
        return 0  # a group id: "docker run -u 1000:1000"
    return len(v)


# Punctuation that makes a word a password rather than an ordinary (hyphenated) word.
_PASSWORD_SYMBOLS = frozenset("!@#$%^&*+=?~_|/\\<>[]{}")


# One run of base64 (or URL-safe base64, or hex) characters, up to a key's length.
_KEY_RUN = re.compile(r"[A-Za-z0-9+/_-]{65,512}={0,2}")


def _mixed(v: str) -> bool:
    return any(c.isupper() for c in v) and any(c.islower() for c in v) and any(c.isdigit() for c in v)


def prose_password(value: str, memo: Memo) -> int:
    """A password given in prose, after "password" with no "=" or ":" ("password is maple!336",
    "reset my password to Nimbus-33nimb", 'network "Lakeside", password maple!336nimbu'): only
    a value that looks like one, letters with digits or a symbol, so that the words that follow
    "password" in a sentence ("reset link", "to expire", "is wrong", "self-service") are not.
    Past 64 characters, only a key: one run of base64 or hex with capitals, small letters and
    digits."""
    v = value.rstrip(".,;:)]}\"'")  # as secret_value: "P3pp3r82?" keeps its "?"
    if len(v) > 64:
        # Longer than a password: a key, if it is one run of base64 or hex with capitals,
        # small letters and digits ("storage key for the backups: nb0Vs5wX...==").
        return len(v) if _KEY_RUN.fullmatch(v) and secret_token(v, memo) and _mixed(v) else 0
    if len(v) < 6 or _placeholder(v) or v.lower() in _PLACEHOLDER_WORDS:
        return 0
    if "://" in v or ("@" in v[1:-1] and "." in v.rsplit("@", 1)[-1]):
        return 0  # a link or an e-mail address
    core = v.rstrip("!?")  # "reset my password please?": the "?" ends the sentence
    if not any(c.isalpha() for c in core):
        return 0
    if not any(c.isdigit() or c in _PASSWORD_SYMBOLS for c in core):
        return 0
    return len(v)


def typed_password(value: str, memo: Memo) -> int:
    """A password somewhere in a sentence that speaks of one, not right after its key word ("it
    says password incorrect but I'm typing Fen#2041lark"): only what is made as passwords are
    and words, ids and versions are not: 8 to 24 characters with small letters, a digit, and
    a capital or a symbol other than the joiners of names and versions ("-", "_", "."). Not a
    path, a link, an e-mail address, a key and its value ("ip=10.2.3.4") or a time."""
    v = value.rstrip(".,;:)]}\"'")
    if not 8 <= len(v) <= 24 or _placeholder(v) or any(c in v for c in "/\\@=:"):
        return 0
    if not (any(c.islower() for c in v) and any(c.isdigit() for c in v)):
        return 0
    if not any(c.isupper() or c in _TYPED_SYMBOLS for c in v):
        return 0
    return len(v)


# The symbols that make a password of letters and digits (not "-", "_" or ".", which ids,
# versions and names are joined with: "build-2024a", "release_3b").
_TYPED_SYMBOLS = frozenset("!#$%^&*+?~|<>[]{}")


def basic_credentials(value: str, memo: Memo) -> int:
    """The credentials of HTTP Basic authentication: base64 of "user:password" in printable
    characters ("Basic YWxpY2U6czNjcmV0IQ=="), however the sentence gives them."""
    v = value.rstrip(".,;:)]}\"'")
    if len(v) < 8:
        return 0
    try:
        raw = base64.b64decode(v + "=" * (-len(v) % 4), validate=True)
        text = raw.decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return 0
    user, sep, password = text.partition(":")
    if not sep or not user or not password or not text.isprintable():
        return 0
    return len(v)


def aws_secret(value: str, memo: Memo) -> int:
    """An AWS secret access key: 40 characters of base64 with capitals, small letters and a
    digit (a 40-character git SHA has no capitals)."""
    if _FILLER_RUN.search(value) is not None:
        return 0
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value)):
        return 0
    return len(value) if any(c.isdigit() for c in value) else 0
