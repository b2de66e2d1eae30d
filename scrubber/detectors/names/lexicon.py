"""grammar/names.yaml: its word lists, checked and compiled into a ``NameLexicon``.

The lexicon holds the context patterns (``patterns.py``) as written and with their typing slips,
the trigger scan that finds every context's phrases in one pass, the table of the phrases that
hide inside longer ones, and the word sets the other parts of the detector look words up in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import regex

from scrubber import rulefile
from scrubber.detectors.cues import CueIndex, with_slips
from scrubber.detectors.names import patterns
from scrubber.detectors.names.patterns import Contexts, alternation, loose_alternation
from scrubber.detectors.names.shapes import TWICE, Namer
from scrubber.detectors.names.triggers import Inner, inner_table, phrase
from scrubber.rulefile import RuleError

_LISTS = (
    "greetings",
    "titles",
    "closings",
    "intros",
    "loose_intros",
    "intro_followers",
    "talk_intros",
    "talk_followers",
    "fields",
    "list_fields",
    "relations",
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
    "lower_relations",
    "relation_followers",
    "log_words",
    "chat_roles",
    "label_keys",
    "job_words",
    "person_cues",
    "not_persons",
)
# Lists whose words people mistype ("Regrads,", "the account is undre ..."): their typing slips
# (one letter left out or two swapped, in words of five letters or more) count too.
_SLIPPED = ("greetings", "closings", "intros", "loose_intros", "talk_intros", "fields", "relations")
# Which contexts each word can start: the words of every phrase of a context's lists.
_TRIGGERS = {
    "greeting": ("greetings",),
    "title": ("titles",),
    "closing": ("closings",),
    "sign_same_line": ("closings",),
    "intro": ("intros",),
    "loose_intro": ("loose_intros",),
    "talk": ("talk_intros",),
    "bare_field": ("fields",),
    "field": ("fields",),
    "list_field": ("list_fields",),
    "relation": ("relations",),
    "speaker": ("speaker_roles",),
    "record": ("record_cues",),
}


@dataclass(frozen=True)
class NameLexicon:
    """The contexts as written, the same with their words mistyped, and what to skip."""

    exact: Contexts
    slipped: Contexts
    name_line: regex.Pattern[str]
    field_keys: regex.Pattern[str]
    # A chat label: "[10:42] Priya Shah: ...", "<Tom Becker> hi there".
    label: regex.Pattern[str]
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
    # A line that asks for a name ("Who am I speaking with?"), what makes it a request, and
    # the reply to it on a later line: capitalised, or typed without capitals.
    asks: regex.Pattern[str]
    requests: regex.Pattern[str]
    reply_cased: regex.Pattern[str]
    reply_lower: regex.Pattern[str]
    # Words that are never a name in a reply or after a relation with no comma; log words.
    common: frozenset[str]
    log_words: frozenset[str]
    lower_relations: frozenset[str]
    relations: frozenset[str]
    # Words of animals and things before "named" ("a cat named Biscuit").
    not_persons: frozenset[str]
    # Chat roles (and their slips: "Custmer"), words of a job title under a signature, and a
    # name before ", ssn ..." in running text.
    roles: frozenset[str]
    job_words: frozenset[str]
    person_record: regex.Pattern[str]
    # Keys of a line that say whose name follows: "Driver: Beatriz Santos".
    role_keys: frozenset[str]
    # "Mateo's mom": a possessive and a kin word (a plain ``re`` scan from the "'s").
    kin_hint: re.Pattern[str]
    # Names in shapes with no phrase of the lists (``records.more``).
    more: Mapping[str, regex.Pattern[str]]
    # The rest of a list after a name: ", Kenji Watanabe, Olumide Bakare, and Zoë Hartmann".
    list_rest: regex.Pattern[str]
    # Words that are no name in a text's structure (labels, vocatives, signature lines).
    no_name: frozenset[str]


def load_names(path: Path) -> NameLexicon:
    """Compile grammar/names.yaml; a bad file fails with the file, the line and the reason."""
    data = rulefile.load(path)
    if not isinstance(data, Mapping):
        raise RuleError(path, None, f"expected a mapping with {', '.join(_LISTS)}")
    rulefile.check_keys(path, data, set(_LISTS), set())
    w: dict[str, list[str]] = {}
    for key in _LISTS:
        words = data[key]
        if (
            not isinstance(words, list)
            or not words
            or not all(isinstance(x, str) and x.strip() for x in words)
        ):
            raise RuleError(path, rulefile.line_of(data), f"{key} must be a non-empty list of words")
        w[key] = [x.strip().lower() for x in words]
    alt = {k: alternation(v) for k, v in w.items()}
    namer = Namer(particles=alt["particles"], title=patterns.title(w["titles"]))
    phrases = {context: [p for key in keys for p in w[key]] for context, keys in _TRIGGERS.items()}
    try:
        reply_cased, reply_lower = patterns.replies(namer, w)
        # Chat roles, their slips and their letters typed twice as once ("Custmer", "Aggent").
        roles = frozenset(with_slips(w["chat_roles"])) | {TWICE.sub(r"\1", r) for r in w["chat_roles"]}
        return NameLexicon(
            exact=patterns.contexts(namer, w),
            slipped=patterns.contexts(namer, w | {k: sorted(with_slips(w[k])) for k in _SLIPPED}),
            name_line=patterns.name_line(namer),
            field_keys=regex.compile(alt["fields"], regex.IGNORECASE),
            label=patterns.label(namer),
            # A title is never the name it stands before ("Dear Mr. ...").
            not_names=frozenset(w["not_names"]) | frozenset(w["titles"]),
            org_words=frozenset(w["org_words"]),
            ambiguous=frozenset(w["ambiguous"]),
            trigger=CueIndex(phrases),
            phrases=frozenset(phrase(p) for group in phrases.values() for p in group),
            inside=inner_table(phrases),
            particles=frozenset(w["particles"]),
            asks=regex.compile(loose_alternation(w["name_questions"]), regex.IGNORECASE),
            requests=regex.compile(loose_alternation(w["name_requests"]), regex.IGNORECASE),
            reply_cased=reply_cased,
            reply_lower=reply_lower,
            common=frozenset(w["common_words"]) | frozenset(w["relations"]),
            log_words=frozenset(w["log_words"]),
            lower_relations=frozenset(w["lower_relations"]),
            relations=frozenset(w["relations"]),
            not_persons=frozenset(w["not_persons"]),
            roles=roles,
            job_words=frozenset(w["job_words"]),
            # "requested for Igor Lebedev, ssn ...": the comma and the cue after the name.
            person_record=regex.compile(rf",[ \t]*(?i:{alt['person_cues']})(?![\w'])"),
            role_keys=roles | frozenset(w["relations"]),
            kin_hint=patterns.kin_hint(sorted(set(w["lower_relations"]))),
            more=patterns.more_shapes(namer, w),
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
