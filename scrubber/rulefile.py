"""Loading rule files (YAML in grammar/) with errors that name file, line and reason."""

from __future__ import annotations

import importlib.resources
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

LINE_KEY = "__line__"


class RuleError(ValueError):
    """A rule file that cannot be used; the message names the file, the line and the reason."""

    def __init__(self, path: Path | str, line: int | None, reason: str) -> None:
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {reason}")
        self.path = str(path)
        self.line = line
        self.reason = reason


class _LineLoader(yaml.SafeLoader):
    """A SafeLoader that records, in every mapping, the line it starts on."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    mapping = loader.construct_mapping(node, deep=True)
    mapping[LINE_KEY] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load(path: Path) -> Any:
    """Parse ``path``; every mapping in the result carries its line under ``__line__``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RuleError(path, None, f"cannot read: {exc.strerror}") from exc
    try:
        return yaml.load(text, Loader=_LineLoader)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else None
        raise RuleError(path, line, f"invalid YAML: {exc.problem}") from exc


def line_of(node: object) -> int | None:
    return node.get(LINE_KEY) if isinstance(node, Mapping) else None


def check_keys(path: Path, node: Mapping[str, Any], required: set[str], optional: set[str]) -> None:
    """Fail on a missing or unknown key in one rule."""
    keys = set(node) - {LINE_KEY}
    missing = sorted(required - keys)
    if missing:
        raise RuleError(path, line_of(node), f"missing key {', '.join(missing)}")
    unknown = sorted(keys - required - optional)
    if unknown:
        raise RuleError(path, line_of(node), f"unknown key {', '.join(unknown)}")


def grammar_dir() -> Path:
    """Where the rule files live, found from the package with ``importlib.resources``.

    A wheel carries them as package data in ``scrubber/grammar/``; a source checkout (editable
    install, or ``PYTHONPATH`` pointing at a tree, as ``load.ab_findings`` does) reads the
    repository's ``grammar/`` beside the package, so edits there take effect without a reinstall.
    """
    package = importlib.resources.files("scrubber")
    if not isinstance(package, Path):
        raise RuleError(str(package), None, "rule files must be on the file system (not in a zip)")
    for candidate in (package / "grammar", package.parent / "grammar"):
        if (candidate / "patterns.yaml").is_file():
            return candidate
    raise RuleError(package / "grammar", None, "rule directory not found (grammar/patterns.yaml)")
