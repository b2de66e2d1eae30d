"""A long-running proxy must not grow with every new word the parser meets."""

import random
import string

from scrubber import Policy, Scrubber
from scrubber.detectors.grammar import parser


def test_parsing_new_words_leaves_the_vocabulary_as_it_was() -> None:
    engine = Scrubber(Policy(level=7))
    grammar = next(d for d in engine.detectors if d.name == "grammar")
    rng = random.Random(7)

    def word() -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(9))

    texts = [
        f"{word()} said {rng.randint(1000, 9999)} {word()} is the last four of my social" for _ in range(200)
    ]
    engine.scrub_many(texts[:20])
    before = len(parser().vocab.strings)
    parsed_before = grammar.stats["parsed_sentences"]  # type: ignore[attr-defined]
    engine.scrub_many(texts[20:])
    assert grammar.stats["parsed_sentences"] > parsed_before  # type: ignore[attr-defined]
    assert len(parser().vocab.strings) == before
