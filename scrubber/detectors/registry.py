"""Builds the detector list for a set of entities from the rule files in grammar/."""

from __future__ import annotations

from pathlib import Path

from scrubber import rulefile
from scrubber.detectors import REGEX_TIMEOUT, Detector
from scrubber.detectors.addresses import AddressDetector, load_address_grammar
from scrubber.detectors.cues import load_cues
from scrubber.detectors.grammar import GrammarDetector, load_grammar
from scrubber.detectors.names import NameDetector, load_names
from scrubber.detectors.names.model import NameModelDetector, load_model
from scrubber.detectors.patterns import PatternDetector
from scrubber.detectors.tables import TableDetector
from scrubber.detectors.vendors import load_pattern_rules


def build_detectors(
    entities: frozenset[str], *, grammar_dir: Path | None = None, regex_timeout: float = REGEX_TIMEOUT
) -> list[Detector]:
    root = grammar_dir or rulefile.grammar_dir()
    cues = load_cues(root / "cues.yaml")
    rules = [r for r in load_pattern_rules(root, cues) if r.entity in entities]
    detectors: list[Detector] = []
    if rules:
        detectors.append(PatternDetector(rules, timeout=regex_timeout))
    person = "PERSON" in entities
    names = load_names(root / "names.yaml") if person and (root / "names.yaml").is_file() else None
    model = load_model(root) if person and (root / "name_model.yaml").is_file() else None
    # Streets before names: the name model reads the streets found before it (a town after one
    # is no person; a name does not run over one). The address grammar's cost grows with the
    # line, no faster, and it looks at the message's deadline once a line and every few hundred
    # matches, so a long line of streets cannot hold the detectors after it past the budget.
    if "STREET_ADDRESS" in entities and (root / "addresses.yaml").is_file():
        detectors.append(
            AddressDetector(
                load_address_grammar(root / "addresses.yaml"),
                timeout=regex_timeout,
                name_word=model.lexicon.street_name_word if model is not None else None,
            )
        )
    if names is not None:
        ordinary = model.lexicon.ordinary_word if model is not None else None
        firm = model.firm_word if model is not None else None
        detectors.append(NameDetector(names, timeout=regex_timeout, ordinary_word=ordinary, firm_word=firm))
    if model is not None:
        endings = (names.lower_endings, names.agent_endings) if names is not None else ()
        particles = names.particles if names is not None else frozenset()
        detectors.append(NameModelDetector(model, word_endings=endings, particles=particles))
    if (root / "rules.yaml").is_file():
        grammar = load_grammar(root / "rules.yaml", cues).only(entities)
        if grammar.rules:
            detectors.append(GrammarDetector(grammar))
    if detectors:
        # Last: the cells of tables, read with their column names as cues, by the others.
        detectors.append(TableDetector(detectors))
    return detectors
