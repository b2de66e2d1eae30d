"""grammar/names.yaml: its contexts and word lists, checked and compiled into a ``NameLexicon``.

The lexicon holds the context patterns (``patterns.py``) as written and with their typing slips,
the trigger scan that finds every context's phrases in one pass, the table of the phrases that
hide inside longer ones, the order and kinds of the contexts, and the word sets the other parts
of the detector look words up in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex

from scrubber import rulefile
from scrubber.detectors.cues import CueIndex, with_slips
from scrubber.detectors.names import patterns
from scrubber.detectors.names.patterns import Contexts, Table, alternation, loose_alternation
from scrubber.detectors.names.shapes import TWICE, Endings, Namer
from scrubber.detectors.names.triggers import Inner, inner_table, phrase
from scrubber.rulefile import RuleError

_LISTS = (
    "greetings",
    "greeting_followers",
    "titles",
    "lower_titles",
    "dotted_lower_titles",
    "closings",
    "intros",
    "loose_intros",
    "intro_followers",
    "lower_intro_followers",
    "talk_intros",
    "talk_followers",
    "fields",
    "name_part_keys",
    "label_nouns",
    "list_fields",
    "people_keys",
    "relations",
    "possessives",
    "kin_adjectives",
    "kin_joiners",
    "names_of",
    "speaker_roles",
    "record_cues",
    "particles",
    "not_names",
    "org_words",
    "ambiguous",
    "name_questions",
    "name_requests",
    "reply_openers",
    "common_words",
    "surname_endings",
    "lower_relations",
    "relation_followers",
    "log_words",
    "chat_roles",
    "not_agent_nouns",
    "header_words",
    "label_keys",
    "job_words",
    "bracket_roles",
    "contact_labels",
    "address_units",
    "generation_suffixes",
    "person_cues",
    "born_cues",
    "not_persons",
    "naming_verbs",
    "xml_name_words",
    "xml_name_elements",
    "wrote_before",
    "wrote_after",
)
# Lists of `ending: least length of a word`.
_LENGTHS = ("common_endings", "agent_endings")
# The contexts the detector knows (a pattern in ``patterns.py``, or the layout's closing line);
# names.yaml gives their order, phrases and kinds. "kin" has no phrases: it is looked for where
# a relation's phrase is.
_CONTEXTS = frozenset(
    {
        "field",
        "list_field",
        "intro",
        "relation",
        "record",
        "greeting",
        "title",
        "loose_intro",
        "sign_same_line",
        "speaker",
        "talk",
        "kin",
        "bare_field",
        "closing",
    }
)
_UNPHRASED = frozenset({"kin"})
# Run with the layout, after the contexts of the order.
_LAYOUT = frozenset({"closing"})


@dataclass(frozen=True)
class NameLexicon:
    """The contexts as written, the same with their words mistyped, and what to skip."""

    exact: Contexts
    slipped: Contexts
    # The contexts a phrase announces, in the order they are tried; those where a name may end
    # early at a word that is never a name; those of a key and its value.
    order: tuple[str, ...]
    open_ended: frozenset[str]
    keyed: frozenset[str]
    name_line: regex.Pattern[str]
    field_keys: regex.Pattern[str]
    # A chat label: "[10:42] Priya Shah: ...", "<Tom Becker> hi there".
    label: regex.Pattern[str]
    # An e-mail display name: "Chloe Hanna <chloe@...>".
    display: regex.Pattern[str]
    not_names: frozenset[str]
    org_words: frozenset[str]
    ambiguous: frozenset[str]
    # One pass over the message finds the phrases that start a context, mistyped or not; only
    # the contexts whose phrases are there run (most messages have none), and their mistyped
    # versions (larger patterns) only where a phrase was mistyped.
    trigger: CueIndex
    phrases: frozenset[str]
    # For each phrase that is more than one plain word, the phrases of any context inside it
    # (the scan reports only the longest): (start, end or -1 if it runs on past, context).
    inside: Mapping[str, tuple[Inner, ...]]
    particles: frozenset[str]
    # A line that asks for a name ("Who am I speaking with?"), pieces of text one of which
    # such a line holds (in lower case), what makes it a request, and the reply to it on a
    # later line: capitalised, or typed without capitals.
    asks: regex.Pattern[str]
    ask_gate: tuple[str, ...]
    requests: regex.Pattern[str]
    reply_cased: regex.Pattern[str]
    reply_lower: regex.Pattern[str]
    # Words that are never a name in a reply or after a relation with no comma; the endings of
    # such words, on lines typed without capitals and in capitals; log words.
    common: frozenset[str]
    lower_endings: Endings
    cased_endings: Endings
    log_words: frozenset[str]
    lower_relations: frozenset[str]
    relations: frozenset[str]
    # A relation: the words before it ("my"), between ("late"), instead of a possessive
    # ("and"), the last letters of the possessives as case-folded, and the "'s name" after it.
    possessives: tuple[str, ...]
    possessive_ends: frozenset[str]
    kin_adjectives: frozenset[str]
    kin_joiners: frozenset[str]
    name_of: regex.Pattern[str]
    # Lower-case titles with their dot; the first letters of every lower-case title.
    dotted_lower_titles: frozenset[str]
    title_heads: frozenset[str]
    # Words of animals and things before "named" ("a cat named Biscuit"), the naming verbs,
    # and intros that end in a noun (their name is on their line).
    not_persons: frozenset[str]
    naming_verbs: frozenset[str]
    label_nouns: frozenset[str]
    # Chat roles (and their slips: "Custmer"), agent-noun endings and the names that have
    # one, header words, words of a job title under a signature, and a name before ", ssn ...".
    roles: frozenset[str]
    agent_endings: Endings
    not_agent_nouns: frozenset[str]
    header_words: frozenset[str]
    job_words: frozenset[str]
    person_record: regex.Pattern[str]
    # Keys of a line that say whose name follows: "Driver: Beatriz Santos"; keys of people.
    role_keys: frozenset[str]
    people_keys: frozenset[str]
    # "Mateo's mom": a possessive and a kin word (a plain ``re`` scan from the "'s").
    kin_hint: re.Pattern[str]
    # Cheap hints of an XML name element and of "(DOB", the layout's contact and street lines,
    # and the first letters a street line may start with.
    xml_hint: re.Pattern[str]
    born_hint: re.Pattern[str]
    # A role in brackets: "(clerk)", "(they/them)" (see bracket_roles).
    bracket_hint: re.Pattern[str]
    sig_contact: re.Pattern[str]
    street_line: regex.Pattern[str]
    street_heads: str
    # A reply's attribution verb ("wrote:", "schrieb"), and pieces one of which it holds.
    wrote: re.Pattern[str]
    wrote_gate: tuple[str, ...]
    # Names in shapes with no phrase of the lists (``records.more``).
    more: Mapping[str, regex.Pattern[str]]
    # The marks after a closing ("Best regards,") that no closing holds, nor its slips (which
    # only drop, swap or double letters): a closing line that ends in one ends the closing.
    closing_stops: frozenset[str]
    # The rest of a list after a name: ", Kenji Watanabe, Olumide Bakare, and Zoë Hartmann".
    list_rest: regex.Pattern[str]
    # Words that are no name in a text's structure (labels, vocatives, signature lines).
    no_name: frozenset[str]


def load_names(path: Path) -> NameLexicon:
    """Compile grammar/names.yaml; a bad file fails with the file, the line and the reason."""
    data = rulefile.load(path)
    if not isinstance(data, Mapping):
        raise RuleError(path, None, "expected a mapping of contexts and word lists")
    rulefile.check_keys(path, data, {*_LISTS, *_LENGTHS, "contexts", "mistyped"}, set())
    w = {key: _words(path, data, key) for key in _LISTS}
    lengths = {key: _lengths(path, data, key) for key in _LENGTHS}
    table, open_ended, keyed = _contexts(path, data["contexts"])
    mistyped = _words(path, data, "mistyped")
    unknown = sorted(set(mistyped) - set(_LISTS))
    if unknown:
        raise RuleError(path, rulefile.line_of(data), f"mistyped: unknown list {unknown[0]!r}")
    alt = {k: alternation(v) for k, v in w.items()}
    lead = patterns.leads(w, table)
    namer = Namer(particles=alt["particles"], title=patterns.title(lead["title"]))
    phrases = {ctx: lead[ctx] for ctx in table if ctx not in _UNPHRASED}
    common = lengths["common_endings"]
    surnames = set(w["surname_endings"])
    try:
        reply_cased, reply_lower = patterns.replies(namer, w)
        # Chat roles, their slips and their letters typed twice as once ("Custmer", "Aggent").
        roles = frozenset(with_slips(w["chat_roles"])) | {TWICE.sub(r"\1", r) for r in w["chat_roles"]}
        return NameLexicon(
            exact=patterns.contexts(namer, w, table),
            slipped=patterns.contexts(namer, w | {k: sorted(with_slips(w[k])) for k in mistyped}, table),
            order=tuple(ctx for ctx in table if ctx not in _LAYOUT),
            open_ended=open_ended,
            keyed=keyed,
            name_line=patterns.name_line(namer, w),
            field_keys=regex.compile(alt["fields"], regex.IGNORECASE),
            label=patterns.label(namer),
            display=patterns.display(namer),
            # A title is never the name it stands before ("Dear Mr. ...").
            not_names=frozenset(w["not_names"]) | frozenset(w["titles"]),
            org_words=frozenset(w["org_words"]),
            ambiguous=frozenset(w["ambiguous"]),
            trigger=CueIndex(phrases),
            phrases=frozenset(phrase(p) for group in phrases.values() for p in group),
            inside=inner_table(phrases),
            particles=frozenset(w["particles"]),
            asks=regex.compile(loose_alternation(w["name_questions"]), regex.IGNORECASE),
            ask_gate=_gate(w["name_questions"]),
            requests=regex.compile(loose_alternation(w["name_requests"]), regex.IGNORECASE),
            reply_cased=reply_cased,
            reply_lower=reply_lower,
            common=frozenset(w["common_words"]) | frozenset(w["relations"]),
            lower_endings=Endings.of(common),
            cased_endings=Endings.of({e: n for e, n in common.items() if e not in surnames}),
            log_words=frozenset(w["log_words"]),
            lower_relations=frozenset(w["lower_relations"]),
            relations=frozenset(w["relations"]),
            possessives=tuple(w["possessives"]),
            possessive_ends=frozenset(p[-1].casefold() for p in w["possessives"]),
            kin_adjectives=frozenset(w["kin_adjectives"]),
            kin_joiners=frozenset(w["kin_joiners"]),
            name_of=regex.compile(patterns.name_of(w), regex.IGNORECASE),
            dotted_lower_titles=frozenset(w["dotted_lower_titles"]),
            title_heads=_heads(w["lower_titles"]),
            not_persons=frozenset(w["not_persons"]),
            naming_verbs=frozenset(w["naming_verbs"]),
            label_nouns=frozenset(w["label_nouns"]),
            roles=roles,
            agent_endings=Endings.of(lengths["agent_endings"]),
            not_agent_nouns=frozenset(w["not_agent_nouns"]),
            header_words=frozenset(w["header_words"]),
            job_words=frozenset(w["job_words"]),
            # "requested for Igor Lebedev, ssn ...": the comma and the cue after the name.
            person_record=regex.compile(rf",[ \t]*(?i:{alt['person_cues']})(?![\w'])"),
            role_keys=roles | frozenset(w["relations"]),
            people_keys=frozenset(w["people_keys"]),
            kin_hint=patterns.kin_hint(sorted(set(w["lower_relations"]))),
            xml_hint=patterns.xml_hint(w),
            born_hint=patterns.born_hint(w),
            bracket_hint=patterns.bracket_hint(w),
            sig_contact=patterns.sig_contact(w),
            street_line=patterns.street_line(w),
            street_heads="".join(sorted({c for u in w["address_units"] for c in (u[0], u[0].upper())})),
            wrote=patterns.wrote(w),
            wrote_gate=_gate(w["wrote_before"] + w["wrote_after"]),
            more=patterns.more_shapes(namer, w),
            closing_stops=frozenset(",.!").difference(*lead["closing"]),
            list_rest=patterns.list_rest(namer),
            no_name=frozenset(
                x
                for k in (
                    "not_names",
                    "org_words",
                    "common_words",
                    "log_words",
                    "chat_roles",
                    "label_keys",
                    "greetings",
                    "closings",
                    "titles",
                )
                for p in (with_slips(w[k]) if k in ("greetings", "closings") else w[k])
                for x in p.split()
            ),
        )
    except regex.error as exc:
        raise RuleError(path, rulefile.line_of(data), f"cannot compile the name contexts: {exc}") from exc


def _words(path: Path, data: Mapping[str, Any], key: str) -> list[str]:
    words = data[key]
    if not isinstance(words, list) or not words or not all(isinstance(x, str) and x.strip() for x in words):
        raise RuleError(path, rulefile.line_of(data), f"{key} must be a non-empty list of words")
    return [x.strip().lower() for x in words]


def _lengths(path: Path, data: Mapping[str, Any], key: str) -> dict[str, int]:
    node = data[key]
    items = {k: v for k, v in node.items() if k != rulefile.LINE_KEY} if isinstance(node, Mapping) else {}
    if not items or not all(
        isinstance(k, str) and k.strip() and isinstance(v, int) and not isinstance(v, bool) and v > 0
        for k, v in items.items()
    ):
        raise RuleError(
            path, rulefile.line_of(node) or rulefile.line_of(data), f"{key} must map endings to lengths"
        )
    return {k.strip().lower(): v for k, v in items.items()}


def _contexts(path: Path, node: object) -> tuple[Table, frozenset[str], frozenset[str]]:
    """The contexts of names.yaml in their order: each one's lists, the open-ended, the keyed."""
    if not isinstance(node, Mapping):
        raise RuleError(path, None, "contexts must be a mapping of context: {phrases: [lists]}")
    rulefile.check_keys(path, node, set(_CONTEXTS), set())
    table: dict[str, tuple[str, ...]] = {}
    open_ended: set[str] = set()
    keyed: set[str] = set()
    for ctx, spec in node.items():
        if ctx == rulefile.LINE_KEY:
            continue
        line = rulefile.line_of(spec) or rulefile.line_of(node)
        if not isinstance(spec, Mapping):
            raise RuleError(path, line, f"context {ctx!r}: expected {{phrases: [lists]}}")
        rulefile.check_keys(path, spec, set(), {"phrases", "open", "keyed"})
        lists = spec.get("phrases", [])
        if not isinstance(lists, list) or not all(isinstance(x, str) for x in lists):
            raise RuleError(path, line, f"context {ctx!r}: phrases must be a list of list names")
        unknown = [x for x in lists if x not in _LISTS]
        if unknown:
            raise RuleError(path, line, f"context {ctx!r}: unknown list {unknown[0]!r}")
        if ctx in _UNPHRASED and lists:
            raise RuleError(path, line, f"context {ctx!r} has no phrases of its own")
        if ctx not in _UNPHRASED and not lists:
            raise RuleError(path, line, f"context {ctx!r}: phrases must name at least one list")
        for flag, into in (("open", open_ended), ("keyed", keyed)):
            value = spec.get(flag, False)
            if not isinstance(value, bool):
                raise RuleError(path, line, f"context {ctx!r}: {flag} must be true or false")
            if value:
                into.add(ctx)
        table[ctx] = tuple(lists)
    return table, frozenset(open_ended), frozenset(keyed)


def _heads(titles: list[str]) -> frozenset[str]:
    """The first letters of the titles, as many as the shortest has (a cheap test of a title)."""
    n = min(len(t) for t in titles)
    return frozenset(t[:n] for t in titles)


def _gate(phrases: Iterable[str]) -> tuple[str, ...]:
    """A few pieces of text, one of which each phrase holds: what a cheap ``in`` test looks for
    before the phrases' pattern runs. A piece is a word of a phrase (between blanks and
    apostrophes) or four letters or more of one; the piece most phrases hold is taken first
    (the longest of those), until every phrase holds one."""
    left = {p: _pieces(p) for p in phrases}
    out: list[str] = []
    while left:
        counts: dict[str, int] = {}
        for pieces in left.values():
            for piece in pieces:
                counts[piece] = counts.get(piece, 0) + 1
        best = min(counts, key=lambda k: (-counts[k], -len(k), k))
        out.append(best)
        left = {p: pieces for p, pieces in left.items() if best not in pieces}
    return tuple(out)


def _pieces(text: str) -> frozenset[str]:
    out: set[str] = set()
    for word in re.split(r"[\s'’]+", text):
        out.add(word)
        out.update(word[i:j] for i in range(len(word)) for j in range(i + 4, len(word) + 1))
    out.discard("")
    return frozenset(out)
