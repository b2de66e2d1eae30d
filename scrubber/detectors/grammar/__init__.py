"""Partial PII by dependency-tree rules: "the last four of my SSN is 1234", "card ending 4242".

A sentence is cut on whitespace (scrubber.detectors.tokens), its number-like values are found
("1 4 2 6 5", "five one three", "•••• 4258"), and each value goes to the nearest cue word: the
one right next to it ("zip code 9 4 1 0 5", "last4=0293"), or else the one fewest steps away in
the sentence's dependency tree. A rule of grammar/rules.yaml then says whether a value of that
shape, governed by a cue of that list, is an entity. Only sentences with a cue and something
number-like reach the parser, and only when no cue stands right next to every value and
the findings of the detectors before it (``known``, from the engine) do not already settle it
("the new one is 5163 2643 8457 6132": the card pattern found it whole).

Its parts: ``rules`` (loading grammar/rules.yaml), ``sentences`` (cutting a message into
sentences with cues and values, and the cue right by each value), ``known`` (what the findings
of the detectors before it spare), ``parse`` (the parser and the tree walk) and ``detector``,
which runs them in that order.
"""

from __future__ import annotations

from scrubber.detectors.grammar.detector import GrammarDetector
from scrubber.detectors.grammar.parse import parser
from scrubber.detectors.grammar.rules import Grammar, load_grammar

__all__ = ["Grammar", "GrammarDetector", "load_grammar", "parser"]
