"""Names of people (PERSON) from the contexts that announce them: grammar/names.yaml.

No dictionary and no parser: a greeting, a title, a closing line, "my name is", a name field,
an e-mail display name, a relation ("my mother, ..."), or a record ("Lee Huang, SSN ...") says
that the capitalised words after it are a name. Measured against the parser's NER on the
devset this finds more names, far fewer false ones, and costs a few regular expressions.
"""

from __future__ import annotations

import bisect
import itertools
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import regex

from scrubber import rulefile
from scrubber.detectors.cues import SEEN_MAX, CueHits, CueIndex, with_slips
from scrubber.detectors.patterns import TIMEOUT_CHARS, RegexTimeout
from scrubber.findings import Finding
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
SCORE = 0.85
# A capitalised name word: "Martín", "McDonald", "O'Neil", "Jean-Luc", "Seo-yeon", "al-Rashid",
# "d'Souza"; never all capitals.
_CASED = r"(?:\p{Lu}['’]|(?:al|el|ad|ud|ul|d)['’-])?\p{Lu}\p{Ll}[\p{L}'’]*(?:-\p{L}\p{Ll}+)?"
# A name word in capitals ("Cardholder: JOHN SMITH"): only in a field, and two words or more.
_CAPS = r"\p{Lu}(?:['’]\p{Lu})?\p{Lu}+(?:-\p{Lu}+)?"
# A chat time stamp before a speaker: "[10:42]", "[3:07 PM]" (log stamps have seconds).
_STAMP = r"\[\d{1,2}:\d\d(?:[ \t]?[AaPp][Mm])?\]"
# The same on a line typed without capitals.
_LOWER = r"\p{Ll}[\p{Ll}'’]+(?:-\p{Ll}+)?"
# Initials before or inside a name: "J. Smith", "John F. Kennedy", "J.R.R. Tolkien".
_INITIALS = r"\p{Lu}\.(?:[ \t]?\p{Lu}\.)*"
# The end of a line, "\r\n" or "\n" (the SMTP relay hands over bodies with CRLF).
_EOL = r"[ \t]*\r?$"
# The words before a relation: "my mother, Katie Garcia".
_POSSESSIVES = ("my", "our", "his", "her", "their")
# Words between them: "my late father", "the other driver", "my two kids".
_KIN_ADJECTIVES = (
    "other",
    "late",
    "two",
    "three",
    "four",
    "elder",
    "older",
    "younger",
    "little",
    "big",
    "new",
    "former",
    "current",
    "previous",
    "second",
    "eldest",
    "youngest",
    "beloved",
    "only",
)
# Words before a relation that need a full name after it: "and grandpa Tariq Ahmed".
_KIN_JOINERS = ("and", "additional")
# Contexts after which the name may end anywhere ("this is Tabitha from ...").
_OPEN_ENDED = frozenset({"intro", "relation", "title", "talk"})
# Lower-case titles, only right after a greeting or with their dot ("hello mr. okafor").
_LOWER_TITLES = ("mr", "mrs", "ms", "miss", "dr", "prof")
_DOTTED_LOWER_TITLES = ("mr", "mrs", "dr")
# What may stand between a relation and the name: "my husband's name, Yuting Liu".
_NAME_OF = r"['’]s[ \t]+(?:(?:full|legal)[ \t]+)?name(?:[ \t]+is)?"
_NAME_OF_RE = regex.compile(_NAME_OF, regex.IGNORECASE)
# Keys whose value may be one word in lower case ("first_name=maria"); after any other key
# a single lower-case word is a service account ("reporter: jenkins").
_PART_KEYS = ("first", "last", "given", "surname", "family", "middle", "maiden")
_NAME_WORD = regex.compile(r"[^\s]+")
_SQL = regex.compile(
    r"(?i:insert\s+into)\s+[\w.\"`]+\s*\((?P<cols>[^)]{1,500})\)\s*(?i:values)\s*\((?P<vals>[^)]{1,2000})\)"
)
_SQL_VALUE = regex.compile(r"'(?:[^']|'')*'|[^,]+")
# A signature block's delimiter line ("-- ") stands where a closing would.
_SIG_DASHES = ("--", "—", "–")
_DASH, _EM_DASH, _EN_DASH = _SIG_DASHES
_SEPARATORS = re.compile(r"[\s_-]+")
# A signature's contact line: a phone number or an e-mail address, maybe after "Tel:", "M:".
# Bounded classes on one line: linear.
_SIG_CONTACT = re.compile(
    r"[ \t]*(?:(?:tel|phone|mobile|cell|mob|m|t|p|e|email|e-mail)[ \t]*[:.][ \t]*)?"
    r"(?:\+?[\d(][\d ()./-]{6,24}\d(?:[ \t]*(?:ext\.?|x)[ \t]*\d{1,6})?"
    r"|[^\s@]{1,64}@[^\s@]{1,255}\.[A-Za-z]{2,24})"
    r"[ \t\r]*",
    re.IGNORECASE,
)


def _alternation(words: Sequence[str]) -> str:
    parts = []
    for w in sorted(set(words), key=len, reverse=True):
        body = r"[\s_-]+".join(regex.escape(p) for p in w.split())
        parts.append(body + (r"\b" if w[-1].isalnum() else ""))
    return "(?:" + "|".join(parts) + ")"


# A context's phrase inside a longer one: (start, end or -1 if it runs on past the longer
# phrase, context, what must follow the longer phrase then: " word" after a blank, or "'s").
_Inner = tuple[int, int, str, str]


@dataclass(frozen=True)
class Contexts:
    """Compiled contexts: each pattern has a group ``n`` (or several) that is the name."""

    cased: Mapping[str, regex.Pattern[str]]
    lower: Mapping[str, regex.Pattern[str]]
    closing: regex.Pattern[str]


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
    inside: Mapping[str, tuple[_Inner, ...]]
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
    # Chat roles (and their slips: "Custmer"), keys that stand like labels, words of a job
    # title under a signature, and a name before ", ssn ..." in running text.
    roles: frozenset[str]
    label_keys: frozenset[str]
    job_words: frozenset[str]
    person_record: regex.Pattern[str]
    # Names in shapes with no phrase of the lists (``NameDetector._more``).
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
    alt = {k: _alternation(v) for k, v in w.items()}
    title = rf"(?:{_title(w['titles'])})\.?[ \t]+"

    # Words that are never names are dropped after matching (NameDetector._trim): a look-ahead
    # for each of them at every name word would cost more than all the rest.
    def name(word: str, most: int = 4, least: int = 1, *, lead: bool = False) -> str:
        # After a title a name may start with its particles ("Dear Mr. van der Berg").
        first = rf"(?:(?:{alt['particles']})[ \t]+){{0,2}}" if lead else ""
        gap = rf"[ \t]+(?:(?:{alt['particles']}|{_INITIALS})[ \t]+){{0,2}}"
        # A last initial after the name: "Ji-woo P." ("Avi P.: hi").
        last = r"(?:[ \t]+\p{Lu}\.(?![\p{L}\d]))?"
        return rf"(?P<n>{first}(?:{_INITIALS}[ \t]*)?{word}(?:{gap}{word}){{{least - 1},{most - 1}}}{last})"

    def titled(word: str, most: int = 4) -> str:
        """A name, or a title and a name (the title not part of it)."""
        return rf"(?:{title}{name(word, most, lead=True)}|{name(word, most)})"

    def build(word: str, lower_line: bool, w: Mapping[str, list[str]]) -> dict[str, regex.Pattern[str]]:
        alt = {k: _alternation(v) for k, v in w.items()}
        end = r"(?![\p{L}'’-])"
        # More names in the same slot: "cc: Hiroshi Tanaka, Maria Lopez", "Hi Jane and Tom,".
        also = rf"[ \t]+(?:and|&)[ \t]+{name(word)}"
        mine = "|".join(_POSSESSIVES)
        adj = rf"(?:(?:{'|'.join(_KIN_ADJECTIVES)})\s+)?"
        listed = rf"(?:[ \t]*[,;][ \t]*(?:and[ \t]+)?{name(word)}{end}|{also}{end}){{0,8}}"
        # "Hernandez, Maria" where the field's line ends: a surname, a comma and given names.
        last_first = rf"(?P<n>{word},[ \t]*{word}(?:[ \t]+{word})?)(?={_EOL})"
        if not lower_line:
            last_first = rf"(?:{last_first}|(?P<n>{_CAPS},[ \t]*{_CAPS}(?:[ \t]+{_CAPS})?)(?=[\"']?{_EOL}))"
        sep = r"[\"']?\s*(?:=>|[:=])\s*\[?[\"']?"
        keys = rf"(?i:(?<![\w.])(?:{alt['fields']}))"
        if lower_line:
            # One word in lower case only for a part of a name ("first_name=maria"); after any
            # other key it is a service account ("reporter: jenkins").
            parts = _alternation([f for f in w["fields"] if any(k in f for k in _PART_KEYS)])
            field = (
                rf"(?:(?i:(?<![\w.])(?:{parts})){sep}{name(word)}{end}"
                rf"|{keys}{sep}(?:{last_first}|{name(word, 4, 2)}{end}))"
            )
        else:
            field = rf"{keys}{sep}(?:{last_first}|{name(word)}{end}|{name(_CAPS, 4, 2)}{end})"
        comma = "," if lower_line else ",?"
        contexts = {
            "field": field,
            "list_field": rf"(?i:(?<![\w.-])(?:{alt['list_fields']}))[ \t]*:[ \t]*{name(word)}{end}" + listed,
            # "signed by \"Luana Albuquerque\"", "account holder is Castañeda, Joaquín (my mother)".
            "intro": rf"(?i:(?<![\w'])(?:{_intros(w['intros'], w['loose_intros'], lower_line)}))\s+[\"“]?"
            rf"(?:(?P<n>{word}(?:,[ \t]*{word}(?:[ \t]+{word})?|[ \t]+{word},[ \t]*{word}))"
            r"(?=[ \t]*(?:[(.;]|\r?$))"
            rf"|{title}{name(word, lead=True)}{end}(?:{also}{end})?"
            rf"|{name(word, lead=True)}{end}(?:{also}{end})?)",
            # "the" only with the name set off by commas: "The technician, Luis, said ...".
            # On a line without capitals only after a comma ("my husband was late" says no name).
            # "my husband's name, Yuting Liu".
            # "my late father Desmond Achterberg", "the other driver, Peter Nakagawa,"; after
            # "and" or "additional" a full name: "and grandpa Tariq Ahmed".
            "relation": rf"(?:(?i:\b(?:{mine})\s+{adj}(?:{alt['relations']})(?:{_NAME_OF})?)"
            rf"\s*{comma}\s+{name(word)}{end}"
            rf"|(?i:\b(?:and|additional)\s+(?:{alt['relations']}))\s*{comma}\s+{name(word, 4, 2)}{end}"
            rf"|(?i:\bthe\s+{adj}(?:{alt['relations']}))[ \t]*,[ \t]*{name(word)}(?=[ \t]*[,;)])"
            # "the other driver was Hyun-woo Park": a full name.
            + (
                ""
                if lower_line
                else rf"|(?i:\b(?:{mine}|the)\s+{adj}(?:{alt['relations']})\s+(?:was|is)\s+)"
                rf"{name(word, 4, 2)}{end}"
            )
            + ")",
            # "1. Henrike Vogt - passport U6104875": a list's number or bullet, a dash after the name.
            "record": rf"^[> \t]*(?:\w+:[ \t]+|\d{{1,3}}[.)][ \t]+|[-*•][ \t]+)?(?:{name(word)},"
            + ("" if lower_line else rf"|{name(word, 4, 2)}")
            + r")[ \t]+(?:[-–—:][ \t]+)?"
            rf"(?i:{alt['record_cues']})\b",
            # "name Colin Thorne dob 20/7/1968": a key without a colon, a name and a record's cue.
            "bare_field": rf"(?i:(?<![\w.])(?:{alt['fields']}))[ \t]+{name(word, 4, 2)}[ \t]+"
            rf"(?i:{alt['record_cues']}|{alt['person_cues']})\b",
        }
        if lower_line:
            # "my husband donald will call you": a relation, no comma, a name and a verb.
            contexts["kin"] = (
                rf"(?i:\b(?:{mine})\s+(?:{alt['lower_relations']}))[ \t]+{name(word, 2)}"
                rf"[ \t]+(?:{alt['relation_followers']})"
            )
            brk = rf"(?=[ \t]*(?:[?.!,;:]|\r?$)|[ \t]+(?:for|{alt['talk_followers']})\b)"
            contexts["talk"] = rf"(?<![\w'])(?:{alt['talk_intros']})[ \t]+{name(word, 2)}" + brk
            # "hello mr. okafor", "thanks ms lee": two words only before a break.
            # "dr. karagiannis's office": one word before a possessive.
            titled_lower = rf"(?:{name(word, 1)}(?=['’]s\b)|{name(word, 2, 2)}{brk}|{name(word, 1)}{end})"
            low_titles = "|".join(_LOWER_TITLES)
            contexts["greeting"] = (
                rf"(?:{alt['greetings']})[ \t]*,?[ \t]+(?:{low_titles})\.?[ \t]+{titled_lower}"
            )
            # "dr." not after a house number and a street ("12 oak dr. apt 3").
            contexts["title"] = (
                rf"(?<![\w.])(?<!\d[ \t]+(?:\p{{L}}+[ \t]+){{1,3}})(?:{'|'.join(_DOTTED_LOWER_TITLES)})\."
                rf"[ \t]+{titled_lower}"
            )
            # "sir i am dwayne brennan, my birth date is ...", "this is joão from the accounts team".
            contexts["loose_intro"] = (
                rf"(?<![\w'’])(?:{alt['loose_intros']})[ \t]+{name(word, 3)}"
                rf"(?=[ \t]*(?:[,.!;]|\r?$)|[ \t]+(?:from|here|speaking|calling)\b)"
            )
        else:
            contexts |= {
                "greeting": rf"(?i:(?<![\w'])(?:{alt['greetings']}))[ \t]*,?[ \t]+"
                rf"{titled(word, 3)}(?:[ \t]*,[ \t]*{name(word, 3)}{end}){{0,4}}(?:{also})?"
                rf"(?=[ \t]*(?:[,!:\r\n.]|$)|[ \t]+(?:[-–—]|(?i:this|it's|here)\b))",
                "title": rf"(?<![\w.]){title}{name(word, 2, lead=True)}{end}",
                "loose_intro": rf"(?i:(?<![\w'])(?:{alt['loose_intros']}))\s+{titled(word, 3)}"
                rf"(?=\s*(?:[,.!;)]|$|(?i:{alt['intro_followers']})(?:\s|$)))",
                # "Chloe Hanna <chloe@...>", '"Oyelaran, Tunde" <t.oyelaran@...>'
                "display": rf"(?:^|(?<=[\s:,\"']))\"?(?:{name(word)},[ \t]*)?{name(word)}\"?"
                r"[ \t]*<[^<>\s@]+@",
                "sign_same_line": rf"^[>\s]*(?i:{alt['closings']})[ \t]*(?:,|[ \t][-–—]{{1,2}})[ \t]*"
                rf"{name(word, 3)}[.!]?{_EOL}",
                # A chat speaker with a role: "Agent Rebecca: ..." (the line start is checked).
                "speaker": r"(?<=^[ \t>]*(?:\[[^\]\r\n]{1,24}\][ \t]*)?)"
                rf"(?i:{alt['speaker_roles']})[ \t]+{name(word, 3)}[ \t]*:(?=[ \t]|{_EOL})",
            }
        return {k: regex.compile(v, regex.MULTILINE) for k, v in contexts.items()}

    dashes = "|".join(regex.escape(d) for d in _SIG_DASHES)
    # A reply: up to two openers ("yes, it's"), the name, maybe "here", then the end of the
    # line or a sign that is no letter, digit or "?" ("Priya Raman.", "Priya :)").
    openers = rf"[ \t]*(?:{_loose_alternation(w['reply_openers'], ignore_case=True)}[ \t]*[,:]?[ \t]*){{0,2}}"
    reply_end = r"(?:[ \t]+(?i:here))?(?=[ \t]*(?:[^\w\s?'’]|\r?$))"
    low_titles = "|".join(_LOWER_TITLES)

    def contexts(w: Mapping[str, list[str]]) -> Contexts:
        return Contexts(
            cased=build(_CASED, False, w),
            lower=build(_LOWER, True, w),
            closing=regex.compile(
                rf"^[>\s]*(?:(?i:{_alternation(w['closings'])})[ \t]*[,.!]*|(?:{dashes})[ \t]?){_EOL}",
                regex.MULTILINE,
            ),
        )

    # Which contexts each word can start: the words of every phrase of a context's lists.
    triggers = {
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
    phrases = {context: [p for key in keys for p in w[key]] for context, keys in triggers.items()}
    try:
        lex = NameLexicon(
            exact=contexts(w),
            slipped=contexts(w | {k: sorted(with_slips(w[k])) for k in _SLIPPED}),
            # A signature line: the name, maybe "Jr." or "III", maybe a title or company after
            # a separator ("Ruth Gordon | Acme", "Ruth Gordon, CPA", "Ruth Gordon - Sales").
            name_line=regex.compile(
                rf"[>\s]*{name(_CASED)}\.?(?:[ \t]+(?:II|III|IV))?"
                rf"(?:[ \t]*(?:[,|(]|[ \t][-–—])[^\r\n]*)?[ \t\r]*"
            ),
            field_keys=regex.compile(alt["fields"], regex.IGNORECASE),
            label=regex.compile(
                rf"[ \t>]*(?:{_STAMP}[ \t]+(?:<{name(_CASED, 3)}>[ \t]"
                rf"|{name(_CASED, 3)}[ \t]*:(?=[ \t]|\r?$))|<{name(_CASED, 3, 2)}>[ \t])",
                regex.MULTILINE,
            ),
            # A title is never the name it stands before ("Dear Mr. ...").
            not_names=frozenset(w["not_names"]) | frozenset(w["titles"]),
            org_words=frozenset(w["org_words"]),
            ambiguous=frozenset(w["ambiguous"]),
            trigger=CueIndex(phrases),
            phrases=frozenset(_phrase(p) for group in phrases.values() for p in group),
            inside=_inside(phrases),
            particles=frozenset(w["particles"]),
            asks=regex.compile(_loose_alternation(w["name_questions"]), regex.IGNORECASE),
            requests=regex.compile(_loose_alternation(w["name_requests"]), regex.IGNORECASE),
            reply_cased=regex.compile(
                rf"{openers}(?:(?P<n>{_CASED},[ \t]*{_CASED}(?:[ \t]+{_CASED})?)(?={_EOL})"
                rf"|{titled(_CASED)}|{name(_CAPS, 4, 2)}){reply_end}"
            ),
            reply_lower=regex.compile(
                rf"{openers}(?:(?P<n>{_LOWER},[ \t]*{_LOWER}(?:[ \t]+{_LOWER})?)(?={_EOL})"
                rf"|(?:(?:{low_titles})\.?[ \t]+)?{name(_LOWER)}){reply_end}"
            ),
            common=frozenset(w["common_words"]) | frozenset(w["relations"]),
            log_words=frozenset(w["log_words"]),
            lower_relations=frozenset(w["lower_relations"]),
            relations=frozenset(w["relations"]),
            not_persons=frozenset(w["not_persons"]),
            roles=frozenset(with_slips(w["chat_roles"])) | {_TWICE.sub(r"\1", r) for r in w["chat_roles"]},
            label_keys=frozenset(w["label_keys"]),
            job_words=frozenset(w["job_words"]),
            # "requested for Igor Lebedev, ssn ...": the comma and the cue after the name.
            person_record=regex.compile(rf",[ \t]*(?i:{alt['person_cues']})(?![\w'])"),
            more={k: regex.compile(v, regex.MULTILINE) for k, v in _more_shapes(name, alt, w).items()},
            list_rest=regex.compile(
                rf"(?:[ \t]*\([^()\r\n]{{1,30}}\))?(?P<and>[ \t]*,[ \t]*(?:and[ \t]+)?|[ \t]+(?:and|&)[ \t]+)"
                rf"(?P<n>{name(_CASED, 4, 2)})(?:[ \t]*\([^()\r\n]{{1,30}}\))?"
                r"(?=[ \t]*(?:[,.;:!)]|and\b|&|\r?$)|$)"
            ),
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
    return lex


_EMAIL_OR_PHONE = r"(?:[\w.+-]+@[\w-]+\.\w|\+?\(?\d[\d ().-]{7,}\d(?!\d))"
# Tags and keys of a name's parts in XML: <FirstName>Ana</FirstName>, Name="DisplayName".
_XML_NAME_KEYS = (
    r"(?i:(?:first|last|given|family|full|display|middle|maiden|legal|sur|customer|client|contact"
    r"|holder|account|patient|employee|person|recipient|sender|beneficiary|payee|cardholder|owner"
    r"|guest|passenger)[_-]?name|surname|fullname|beneficiary|payee|recipient|cardholder|holder)"
)
# Lists of people after a key: "Our team: Anya Petrova (lead), Kenji Watanabe, ...".
_PEOPLE_KEYS = frozenset(
    (
        "team",
        "members",
        "staff",
        "crew",
        "people",
        "panel",
        "panelists",
        "speakers",
        "volunteers",
        "family",
        "kids",
        "children",
        "students",
        "winners",
        "participants",
        "hosts",
        "organizers",
        "organisers",
        "committee",
        "board",
        "invitees",
        "present",
        "absent",
        "cast",
        "authors",
        "owners",
        "signers",
        "parents",
        "roster",
        "lineup",
        "approvers",
        "travelling",
        "traveling",
    )
)
# Cheap hints of the shapes of ``NameDetector._more`` (plain ``re``: a linear scan).
_XML_HINT = re.compile(
    r"<(?=[\w:.-]*(?:[Nn]ame|NAME|[Hh]older|[Pp]ayee|[Rr]ecipient|[Bb]eneficiary)\b|[^<>]*\b[Nn]ame=)"
)
_PHONE_HINT = re.compile(r"\d[\d ().-]{7,}\d")
_BORN_HINT = re.compile(r"\((?i:dob|d\.o\.b|born|b\.|date of birth|aged?)\b")
_CELL_HINT = re.compile(r"^[ \t]*[^\W\d_][^,\t\n]{0,40},[^,\t\n]{1,40}\t", re.MULTILINE)
_UPPER = "A-ZÀ-ÖØ-ÞĀ-Ž"
_TWO_WORDS = re.compile(rf"[{_UPPER}][\w'’.-]*[ \t]+(?:[a-z]+[ \t]+){{0,2}}[{_UPPER}]")
# What a name before contact data starts with: capitalised words, then the data's first sign.
_CONTACT_LEAD = re.compile(
    rf"[ \t>]*(?:\d{{1,2}}[.)][ \t]+)?(?:[Mm]e[ \t]*[,:][ \t]*)?(?:[{_UPPER}][\w'’.-]*[ \t]+){{0,3}}"
    rf"[{_UPPER}][\w'’-]*[,;]?[ \t]+[(<]?(?:\+?\(?\d[\d ().-]{{6,}}\d|[\w.+-]+@)"
)
# A colon or ">" before a key's value of two capitalised words or a name and contact data.

# A colon or ">" and a capitalised word: a key's value or a name before contact data.
_COLON_CAP = re.compile(rf":[ \t]+[{_UPPER}][a-zß-öø-ÿā-ž]")
_GT_CAP = re.compile(rf">[ \t]+[{_UPPER}][a-zß-öø-ÿā-ž]")
# The same at a line's start (a "\n" first: a fast scan).
_CONTACT_LINE = re.compile("\n" + _CONTACT_LEAD.pattern)
_ME_COMMA = re.compile(r"\b[Mm]e,[ \t]*")
# "On 3/1/25, Trevor Blackwood wrote:", "Le 3 mars 2025, Jean Dupont a écrit :".
_WROTE = re.compile(r"(?:\bwrote|\ba [ée]crit|\bescribi[óo]|\bha scritto)[ \t]*:|\bschrieb\b")


def _more_shapes(
    name: Callable[..., str], alt: Mapping[str, str], w: Mapping[str, list[str]]
) -> dict[str, str]:
    """Patterns of ``NameDetector._more``: each has a group ``n`` that is the name."""
    kin = _alternation(w["lower_relations"])
    people = _alternation(sorted(_PEOPLE_KEYS))
    return {
        # "<FirstName>Ana</FirstName>", '<Data Name="DisplayName">Rosalind Villanueva</Data>'.
        "xml": rf"<(?P<t>{_XML_NAME_KEYS})>[ \t]*(?P<n>[^<>\r\n]{{1,80}}?)[ \t]*</(?P=t)>"
        rf"|<(?P<e>[\w:.-]+)[^<>]*?\b(?i:name)=[\"']{_XML_NAME_KEYS}[\"'][^<>]*>[ \t]*"
        rf"(?P<n>[^<>\r\n]{{1,80}}?)[ \t]*</(?P=e)>",
        # "Customer: Dmitri Volkov, dvolkov@...", "me> Kwame, 901-706-7709", "1. me, Meera
        # Bakshi-Rao 978.218.7032": a name at a line's start or after a colon, then contact data.
        "contact": rf"[ \t>]*(?:\d{{1,2}}[.)][ \t]+)?(?:(?i:me)[ \t]*[,:][ \t]*)?"
        rf"(?:{name(_CASED, 3, 2)}[ \t]*[,;]?|{name(_CASED, 1)}[ \t]*[,;])[ \t]*[(<]?(?={_EMAIL_OR_PHONE})",
        # "Is this Mateo's mom?"
        "kin_of": rf"(?<![\w'’.-])(?P<n>{_CASED})['’]s[ \t]+(?i:{kin})(?![\w'’-])",
        # "referral for Kateryna Bondarenko (DOB 1990-...)".
        "born": rf"(?<![\w'’.-]){name(_CASED, 4, 2)}[ \t]*\((?i:dob|d\.o\.b|born|b\.|date of birth|aged?)\b",
        # "Nguyen, Bao<TAB>254425800<TAB>...": "Last, First" as a line's first cell.
        "cell": rf"[ \t]*(?P<n>{_CASED}(?:[ \t]+{_CASED})?,[ \t]*{_CASED}(?:[ \t]+{_CASED})?)\t",
        # "Our team: Anya Petrova (lead), ...", "Driver: Beatriz Santos, additional driver ...".
        "people": rf"(?i:(?<![\w.-])(?:{people}))[ \t]*:[ \t]*{name(_CASED, 3, 2)}"
        r"(?=[ \t]*(?:[,(;]|and\b|&|\r?$))",
        "role_key": rf"[ \t>]*[\w-]+[ \t]*:[ \t]*{name(_CASED, 3, 2)}(?=[ \t]*(?:[,(]|\r?$))",
        # "—Benedikt" as a mail's last line.
        "dash_sign": rf"[ \t>]*(?:—|–|--?)[ \t]?{name(_CASED, 3)}[ \t]*\r?\n?\Z",
        # A name after a reply's verb: "Am 03.03.2025 schrieb Jana Novak:".
        "wrote_after": rf"(?i:\bschrieb)[ \t]+{name(_CASED, 4)}[ \t]*(?:<[^<>\r\n]*>[ \t]*)?:",
    }


def _inside(phrases: Mapping[str, Sequence[str]]) -> dict[str, tuple[_Inner, ...]]:
    """For each phrase that is not one plain word, where the phrases of each context sit in it.

    "many thanks" holds the greeting "thanks", "user.name is" the intro "name is"; a phrase
    may also run on past the end ("you" in "thank you" starts "you are speaking with"), and
    then what must come next is kept: its next word (after a blank), or the rest of the word
    ("'s" of "name's"). Slips count, as the mistyped patterns allow them.
    """
    by_first: dict[str, list[tuple[str, str]]] = {}
    for how, group in phrases.items():
        for v in with_slips(group):
            q = _phrase(v)
            by_first.setdefault(q[0], []).append((q, how))
    table: dict[str, tuple[_Inner, ...]] = {}
    for p in {_phrase(x) for group in phrases.values() for x in group}:
        if p.isalnum():
            continue
        entries: set[_Inner] = set()
        for k in range(len(p)):
            if not _run_starts(p, k):
                continue
            rest = p[k:]
            for q, how in by_first.get(p[k], ()):
                if rest.startswith(q):
                    end = k + len(q)
                    # A phrase that ends inside a word of ``p`` cannot match there (``\b``).
                    if end == len(p) or not (q[-1].isalnum() and p[end].isalnum()):
                        entries.add((k, end, how, ""))
                elif q.startswith(rest):
                    entries.add((k, -1, how, _next_piece(q[len(rest) :])))
        table[p] = tuple(sorted(entries))
    return table


def _next_piece(more: str) -> str:
    """What a phrase that runs on needs next: " so" of " so much", "'s" of "'s"."""
    if more[0] == " ":
        return " " + more.split(" ")[1]
    return more.split(" ")[0]


def _phrase(text: str) -> str:
    """A phrase as written or as found: lower case, one space between words."""
    return " ".join(_SEPARATORS.split(text.lower())).strip()


def _loose_alternation(words: Sequence[str], *, ignore_case: bool = False) -> str:
    """Phrases as whole words, blanks between words, either apostrophe ("who's this")."""
    parts = []
    for w in sorted(set(words), key=len, reverse=True):
        body = r"[ \t]+".join("['’]".join(map(regex.escape, p.split("'"))) for p in w.split())
        head = r"(?<![\w'’])" if w[0].isalnum() else ""
        parts.append(head + body + (r"(?![\w'’])" if w[-1].isalnum() else ""))
    return ("(?i:" if ignore_case else "(?:") + "|".join(parts) + ")"


def _intros(words: list[str], loose: list[str], lower_line: bool) -> str:
    return _alternation([x for x in words if x not in loose and (not lower_line or "name" in x)])


def _title(titles: list[str]) -> str:
    # Titles are matched capitalised only: "Dr. Lee", not "dr" inside a sentence.
    return "|".join(regex.escape(t.capitalize()) for t in sorted(titles, key=len, reverse=True))


class NameDetector:
    """PERSON by context; a name found once is also masked where it recurs in the message.

    A context's pattern is tried only where the trigger scan found one of its phrases, anchored
    there (at the phrase, at the start of its line, or at the "my" before it), and only after a
    cheap test of the characters around the phrase says a name can follow. Every test is a
    necessary condition of the pattern, so it never drops a match; it only spares the pattern
    call (with its timeout, a microsecond or two each) at the many phrases that start no name.
    """

    name = "names"
    entities = frozenset({"PERSON"})

    def __init__(self, lexicon: NameLexicon, *, timeout: float = 0.5) -> None:
        self.lex = lexicon
        self.timeout = timeout
        # Trigger phrases that are not one plain word, as matched (a message repeats the same
        # few): whether spelt right, and the phrases inside. Bounded: input is untrusted.
        self._inside: dict[str, tuple[bool, tuple[_Inner, ...], _ByNext]] = {}
        # The contexts with a pattern for capitalised names, and for lower-case lines.
        self._cased = frozenset(lexicon.exact.cased)
        self._lower = frozenset(lexicon.exact.lower)
        # The relations a name may follow without a comma, on a line without capitals.
        self._kin = frozenset(_phrase(r) for r in lexicon.lower_relations)
        # Keys of a line that say whose name follows: "Driver: Beatriz Santos".
        self._role_keys = lexicon.roles | lexicon.relations
        # "Mateo's mom": a possessive and a kin word (a plain ``re`` scan from the "'s").
        self._kin_hint = re.compile(
            r"['’]s[ \t]+(?i:"
            + "|".join(sorted(map(re.escape, lexicon.lower_relations), key=len, reverse=True))
            + r")\b"
        )

    def detect(self, text: str) -> list[Finding]:
        try:
            candidates = self._candidates(text)
        except TimeoutError as exc:
            raise RegexTimeout("person") from exc
        if not candidates:
            return []
        spans: dict[tuple[int, int], str] = {}
        for start, end, how in candidates:
            # A possessive is not part of the name: "dr. karagiannis's office".
            if end - start > 3 and text[end - 2 : end] in ("'s", "’s"):
                end -= 2
            # Nor the quote that closes a value: "'last_name': 'Carvalho'".
            elif end - start > 2 and text[end - 1] in "'’":
                end -= 1
            cut = self._trim(text, start, end)
            # Only where nothing has to follow the name may it be cut short.
            if cut == end or (how in _OPEN_ENDED and cut > start):
                spans[start, cut] = how
        out = [Finding(s, e, "PERSON", SCORE, f"names:{how}") for (s, e), how in sorted(spans.items())]
        if out:
            out.extend(self._recurring(text, out))
        return out

    def _trim(self, text: str, start: int, end: int) -> int:
        """End of the name once a word that is never a name cuts it short (start: no name).

        A company's word ("Apple Support") means the words before it were no person's name.
        """
        for m in _NAME_WORD.finditer(text, start, end):
            raw = m.group()
            if len(raw) == 2 and raw[1] == "." and raw[0].isupper():
                continue  # an initial ("A. Novak"), even one that is also a word
            word = raw.lower().rstrip(".!,;:")
            if word in self.lex.org_words:
                return start
            if word in self.lex.not_names:
                return start + len(text[start : m.start()].rstrip(" \t,"))
        return end

    def _uncommon(self, text: str, start: int, end: int) -> bool:
        """Whether no word of a name found without capitals is a common English word.

        Adverbs of seven letters or more in "-ly" ("actually") and words in "-ing" count as
        common too ("my husband usually is ...", "customer: checking").
        """
        for word in text[start:end].lower().split():
            word = word.strip(".,;:!")
            if word in self.lex.particles:
                continue
            if (
                word in self.lex.common
                or (len(word) >= 7 and word.endswith("ly"))
                or (len(word) >= 5 and word.endswith("ing"))
            ):
                return False
        return True

    def _log_label(self, text: str, s: int, e: int) -> bool:
        """Whether a chat label's shape is a log's words ("[14:22] Connection Reset: retrying"):
        a word of the label is a log word, or only log words (and numbers) follow it."""
        if any(word.lower() in self.lex.log_words for word in text[s:e].split()):
            return True
        colon = text.find(":", e)
        stop = text.find("\n", colon)
        rest = _LOG_REST.findall(text, colon + 1, len(text) if stop < 0 else stop)
        return 0 < len(rest) <= 3 and all(w.lower() in self.lex.log_words or w.isdigit() for w in rest)

    def _replies(self, text: str) -> Iterator[tuple[int, int, str]]:
        """Names given in reply to a line that asks for one ("Agent: Who am I speaking with?"
        / "Customer: Beatriz Souza"): the next one or two lines, by another speaker."""
        t = self.timeout
        done = -1  # end of the last question line looked at
        for m in self.lex.asks.finditer(text, timeout=t):
            if m.start() < done:
                continue
            s = text.rfind("\n", 0, m.start()) + 1
            e = text.find("\n", m.end())
            e = len(text) if e < 0 else e
            done = e
            # A question, or in a transcript a request ("Agent: please confirm your full name").
            asker = _speaker(text, s, e)[0]
            if "?" not in text[m.end() : e] and (
                asker is None or self.lex.requests.search(text, s, e, timeout=t) is None
            ):
                continue
            pos = e
            for _ in range(2):
                nxt = _next_line(text, pos)
                if nxt is None:
                    break
                ls, pos = nxt
                who, body = _speaker(text, ls, pos)
                if asker is not None:
                    if who is None:
                        break
                    if who.lower() == asker.lower():
                        continue
                lowered = text[body:pos].islower()
                pattern = self.lex.reply_lower if lowered else self.lex.reply_cased
                n = pattern.match(text, body, pos, timeout=t)
                # A reply that is no name ("one sec") leaves the next line to look at.
                spans = [] if n is None else n.spans("n")
                if spans and all(
                    self._uncommon(text, a, b) and self._trim(text, a, b) == b for a, b in spans
                ):
                    for a, b in spans:
                        yield a, b, "reply"
                    break

    def _candidates(self, text: str) -> list[tuple[int, int, str]]:
        """Names in their contexts, as (start, end, context); not yet trimmed."""
        out: list[tuple[int, int, str]] = []
        hits = self.lex.trigger.scan(text)
        # Worked out only once a pattern is about to run (most messages run none).
        mistyped: frozenset[str] | None = None
        closings: list[int] = []  # starts of the lines that may be closing lines
        commas: list[int] = []  # commas before a record's cue in running text
        if hits:
            for lower, starts in enumerate(self._starts(text, hits, closings, commas)):
                # The lower-case patterns run only where a whole line is typed without capitals.
                if not starts or (lower and not _has_lower_line(text)):
                    continue
                if mistyped is None:
                    mistyped = self._mistyped(text, hits)
                for how in _ORDER:
                    at = starts.get(how)
                    if not at:
                        continue
                    ctx = self.lex.slipped if how in mistyped else self.lex.exact
                    pattern = ctx.lower[how] if lower else ctx.cased[how]
                    for m in self._matches(pattern, text, at):
                        for s, e in m.spans("n"):
                            # Without capitals, a name in running text is no common word
                            # ("my name is on the account"); the words after it that end a
                            # name ("talk to marisol please") are not looked at.
                            if not lower or (
                                _is_lower(_line(text, s))
                                and (how in _KEYED or self._uncommon(text, s, self._trim(text, s, e)))
                            ):
                                out.append((s, e, how))
        if "<" in text or "]" in text:
            for s in _label_lines(text):
                n = self.lex.label.match(text, s, timeout=self.timeout)
                if (
                    n is not None
                    and not self._log_label(text, n.start("n"), n.end("n"))
                    and not self._role(n.group("n"))
                ):
                    out.append((n.start("n"), n.end("n"), "label"))
        if "@" in text and "<" in text and _DISPLAY_HINT.search(text) is not None:
            for m in self.lex.exact.cased["display"].finditer(text, timeout=self.timeout):
                for s, e in m.spans("n"):
                    out.append((s, e, "display"))
        dashes = _DASH in text or _EM_DASH in text or _EN_DASH in text
        if closings or dashes:
            out.extend(self._signatures(text, hits, closings, dashes, mistyped))
        low = text.lower()
        if "insert" in low:
            out.extend(self._sql(text))
        if "\n" in text and ("name" in low or "who" in low):
            out.extend(self._replies(text))
        if "\n" in text:
            out.extend(self._structure(text))
        if commas:
            out.extend(self._person_records(text, commas))
        out.extend(self._more(text))
        if not out:
            return out
        out.extend(self._list_rest(text, out))
        return [c for c in out if not self._xml_key(text, *c) and not self._not_person(text, *c)]

    def _starts(
        self, text: str, hits: CueHits, closings: list[int], commas: list[int] | None = None
    ) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
        """Where each context's pattern may match, capitalised and on lower-case lines (sorted).

        A phrase of one word is what the scan found. A longer one may hide the phrases of
        other contexts inside it ("many thanks" holds the greeting "thanks"), which the
        context's pattern would have found had it run over the whole message: those count too,
        for the contexts that have a phrase of their own in the message. The closings found
        go to ``closings``, as the starts of their lines.
        """
        cased: dict[str, list[int]] = {}
        lower: dict[str, list[int]] = {}
        records: list[int] = []
        for hit in hits:
            s, e = hit.start, hit.end
            matched = text[s:e]
            if matched.isalnum():
                for how in hit.lists:
                    self._note(how, text, s, e, cased, lower, records, closings)
                continue
            wanted = hits.lists
            # What follows the phrase, for a first look at the phrases that run on past it
            # (a mistyped "I'm" hides some sixty): a blank or not, then the next character.
            after = text[e : e + 1]
            blank = after.isspace() or after in ("_", "-")
            if blank:
                j = _skip_space(text, e, "_-")
                after = text[j : j + 1]
            by_next = self._inside_of(matched)[2]
            entries = by_next.get((blank, after.lower() if after.isascii() else None), by_next[blank, ""])
            for off, end, how, nxt in entries:
                if nxt and not _continues(text, e, nxt):
                    continue
                for h in (how,) if how else wanted:
                    if h in wanted:
                        self._note(
                            h, text, s + off, s + end if end >= 0 else -1, cased, lower, records, closings
                        )
        if records:
            cased["record"], lower["record"] = _record_lines(text, records, self.lex.particles, commas)
        for starts in (cased, lower):
            for how, at in starts.items():
                if len(at) > 1:
                    starts[how] = sorted(set(at))
        return cased, lower

    def _note(
        self,
        how: str,
        text: str,
        p: int,
        end: int,
        cased: dict[str, list[int]],
        lower: dict[str, list[int]],
        records: list[int],
        closings: list[int],
    ) -> None:
        """Files where a context's pattern may match, given its phrase at ``p`` (ending at
        ``end``; -1 if that is not known), if the text around the phrase lets it match at all.
        """
        if how == "closing":
            start = _closing_line(text, p, end)
            if start >= 0:
                closings.append(start)
            return
        if how == "record":
            records.append(p)
            return
        if how == "sign_same_line":
            start = _line_opened_by(text, p)
            if start >= 0 and (end < 0 or _signed(text, end)):
                _file(cased, how, start)
            return
        comma_only = False
        start = p
        if how == "speaker":
            if _label_start(text, p) < 0:
                return
        elif how == "relation":
            start = _possessive(text, p)
            if start < 0:
                return
            if end >= 0:
                named = _NAME_OF_RE.match(text, end)
                if named is not None:
                    end = named.end()
            # After "the", and on a line without capitals, the name follows a comma, or a verb
            # after it ("my husband donald will call").
            if end >= 0 and "," not in text[end : _skip_space(text, end, ",")]:
                if text[start] in "tT" and _IS_WAS.match(text, end) is None:
                    return
                comma_only = True
                if _phrase(text[p:end]) in self._kin and _may_start(text, _skip(text, end, " \t"), True):
                    _file(lower, "kin", start)
        elif how == "talk":
            # The phrases of "talk" count in lower case only.
            if not text[p].islower():
                return
        elif (
            how == "title"
            and text[p].islower()
            and (text[p:end] not in _DOTTED_LOWER_TITLES or text[end : end + 1] != ".")
        ):
            # Titles are matched capitalised, or "mr." and "mrs." in lower case on a lower-case
            # line: "30 ms total" has no name.
            return
        i = _name_index(how, text, end) if end >= 0 else -2
        if i == -1:
            return
        # After a title the name may start with a particle ("van der Berg").
        if (
            how in self._cased
            and (how != "title" or text[p].isupper())
            and (
                i < 0 or _may_start(text, i, how == "title" or (how == "intro" and text[i : i + 1] in _LEADS))
            )
        ):
            _file(cased, how, start)
        if how in self._lower and not comma_only:
            if how == "greeting":  # in lower case only before a title: "hello mr. okafor"
                if i >= 0 and text[i : i + 2].lower() not in _TITLE_HEADS:
                    return
            elif how == "title" and not text[p].islower():
                return
            if i < 0 or _may_start(text, i, True):
                _file(lower, how, start)

    def _inside_of(self, matched: str) -> tuple[bool, tuple[_Inner, ...], _ByNext]:
        """Whether a trigger phrase (not one plain word) is spelt right, the phrases in it, and
        those worth a look given what follows it (``_by_next``).

        As in ``NameLexicon.inside``, with offsets within ``matched``; context "" stands for
        every context, at each word of a mistyped phrase (nothing is known of what it hides).
        """
        known = self._inside.get(matched)
        if known is not None:
            return known
        low = matched.lower()
        words = [(m.start(), m.end()) for m in _WORD.finditer(low)]
        phrase = " ".join(low[a:b] for a, b in words)
        table = self.lex.inside.get(phrase) if len(low) == len(matched) else None
        if table is not None:
            # Offsets in the phrase as written in the lexicon -> offsets in the text.
            where: list[tuple[int, int]] = []  # (offset in the phrase, offset in the text)
            at = 0
            for a, b in words:
                where.append((at, a))
                at += b - a + 1

            entries = tuple(
                (_place(where, k), _place(where, e) if e >= 0 else -1, how, nxt) for k, e, how, nxt in table
            )
            known = (True, entries, _by_next(entries))
        else:
            starts = [i for i in range(len(matched)) if _run_starts(matched, i)]
            entries = tuple((i, -1, "", "") for i in starts)
            known = (phrase in self.lex.phrases, entries, _by_next(entries))
        if len(self._inside) < SEEN_MAX:
            self._inside[matched] = known
        return known

    def _mistyped(self, text: str, hits: CueHits) -> frozenset[str]:
        """The contexts with a mistyped phrase in the message: their patterns allow the slips."""
        out: set[str] = set()
        for hit in hits:
            matched = text[hit.start : hit.end]
            if matched.isalnum():
                if matched.lower() not in self.lex.phrases:
                    out |= hit.lists
            elif not self._inside_of(matched)[0]:
                out |= hit.lists
        return frozenset(out)

    def _matches(
        self, pattern: regex.Pattern[str], text: str, starts: list[int]
    ) -> Iterator[regex.Match[str]]:
        """The matches of ``pattern`` at ``starts`` (sorted), as ``finditer`` would find them there.

        A match hides the starts it covers. The calls share one time budget, that of one
        pass over the whole message, longer for a long one as in the pattern detector: a
        pattern that runs away blows any such budget, a long message full of names should not.
        """
        deadline = time.monotonic() + self.timeout * max(1.0, len(text) / TIMEOUT_CHARS)
        last = 0
        for start in starts:
            if start < last:
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("names: time budget spent")
            m = pattern.match(text, start, timeout=left)
            if m is not None:
                last = m.end()
                yield m

    def _signatures(
        self,
        text: str,
        hits: CueHits,
        starts: list[int],
        dashes: bool,
        mistyped: frozenset[str] | None,
    ) -> Iterator[tuple[int, int, str]]:
        """The name on the line after a closing line ("Best regards,") or a "-- " delimiter.

        ``starts`` are the lines where a closing may stand; the lines of dashes join them.
        """
        for dash in _SIG_DASHES if dashes else ():
            pos = text.find(dash)
            while pos >= 0:
                s = _dash_line(text, pos)
                if s >= 0:
                    starts.append(s)
                end = text.find("\n", pos)
                pos = text.find(dash, end) if end >= 0 else -1
        if not starts:
            return
        if mistyped is None:
            mistyped = self._mistyped(text, hits)
        ctx = self.lex.slipped if "closing" in mistyped else self.lex.exact
        t = self.timeout
        for m in self._matches(ctx.closing, text, sorted(set(starts))):
            nxt = _next_line(text, m.end())
            if nxt is not None:
                s, e = nxt
                if _may_start(text, _skip_space(text, s, ">"), False):
                    n = self.lex.name_line.fullmatch(text, s, e, timeout=t)
                    if n is not None:
                        yield n.start("n"), n.end("n"), "signature"

    def _shaped(self, words: Sequence[str], lower: bool, most: int = 3, least: int = 1) -> bool:
        """Whether ``words`` are ``least`` to ``most`` name words (initials and particles aside)
        and none is a word of roles, keys, logs, companies or common English."""
        named = 0
        for w in words:
            if not lower and _INITIAL.fullmatch(w) is not None:
                continue
            if w in self.lex.particles:
                continue
            low = w.lower()
            if (
                low in self.lex.no_name
                or low in self.lex.roles
                or (len(low) >= 7 and low.endswith("ly"))
                or (lower and len(low) >= 5 and low.endswith("ing"))
            ):
                return False
            if (_LOWER_WORD if lower else _CASED_WORD).fullmatch(w) is None:
                return False
            named += 1
        return least <= named <= most

    def _role(self, label: str) -> bool:
        """Whether a chat label is a role ("Advisor", "Cust", "Custmer", "CSR") or a handle
        ("support_bot", "guest_8812"), no name."""
        low = " ".join(label.lower().split())
        if low in self.lex.roles or "_" in low or any(c.isdigit() for c in low):
            return True
        if " " not in low and (_agent_noun(low) or _header_key(low)):
            return True
        # Letters typed twice count as once ("Customeer", "Aggent").
        return all(
            w in self.lex.roles or _TWICE.sub(r"\1", w) in self.lex.roles for w in _SEPARATORS.split(low) if w
        )

    def _structure(self, text: str) -> Iterator[tuple[int, int, str]]:
        """Names the layout of a message gives away: speakers' labels in a transcript, a mail's
        vocative first line, the name line of an address block, a signature without a closing."""
        lines: list[tuple[int, int]] = []  # (start, end) of each line's words: no ">", no blanks
        pos = 0
        for raw in text.split("\n"):
            body = raw.lstrip(" \t>")
            a = pos + len(raw) - len(body)
            lines.append((a, a + len(body.rstrip(" \t\r"))))
            pos += len(raw) + 1
        if ":" in text:
            yield from self._transcript(text, lines)
        filled = [i for i, (a, b) in enumerate(lines) if b > a]
        if len(filled) < 2:
            return
        # "Marcus,\n\nPlease find ..." (a mail that opens with the name it speaks to).
        a, b = lines[filled[0]]
        if text[b - 1] == ",":
            words = text[a : b - 1].split()
            if self._shaped(words, False):
                yield a, a + len(text[a : b - 1].rstrip()), "vocative"

        def blank(i: int) -> bool:
            return i < 0 or lines[i][0] == lines[i][1]

        def named(i: int, most: int = 3, least: int = 1) -> tuple[int, int] | None:
            a, b = lines[i]
            body = text[a:b].rstrip(".")
            if body and self._shaped(body.split(), False, most, least):
                return a, a + len(body)
            return None

        last = filled[-1]
        for i in filled[1:] if _has_digit(text) else ():
            # A name line above a street line: "Ana Beatriz Souza\n42 Harbour Street".
            head = text[lines[i][0]]
            if (
                (head.isdigit() or head in "FfAaUuSs")
                and not blank(i - 1)
                and _STREET_LINE.match(text, *lines[i]) is not None
                and (blank(i - 2) or text[lines[i - 2][1] - 1] == ":")
            ):
                n = named(i - 1, 4, 2)
                if n is not None:
                    yield n[0], n[1], "address_block"
        # A signature block is among the last six lines.
        for i in filled[-6:]:
            if i == filled[0] or not blank(i - 1):
                continue
            if i == last:
                # A lone name line ends the mail: "See you then.\n\nJoão Pereira". One word
                # only after a short line ("Talk soon!\n\nAlex"), not a cut-off word ("Th").
                n = named(i)
                if n is not None and " " not in text[n[0] : n[1]]:
                    before = [k for k in filled if k < i][-1]
                    if n[1] - n[0] < 3 or len(text[slice(*lines[before])].split()) > 5:
                        n = None
            elif i + 1 < len(lines) and not blank(i + 1):
                # A name over a job title or a company ("Keiko Sato\nSenior Engineer") or a
                # signature delimiter.
                a, b = lines[i + 1]
                nxt = text[a:b]
                if nxt.strip() in _SIG_DASHES or any(
                    w in self.lex.job_words or w in self.lex.org_words
                    for w in _SEPARATORS.split(nxt.lower().strip(".,|"))
                ):
                    n = named(i)
                elif _SIG_CONTACT.fullmatch(nxt) is not None:
                    # A full name over a phone number or an e-mail address ("Wanjiru Kamau\n+44 ...").
                    n = named(i, 3, 2)
                else:
                    n = None
            else:
                n = None
            if n is None:
                n = self._titled_line(text, *lines[i])
            if n is not None:
                yield n[0], n[1], "signature_block"

    def _titled_line(self, text: str, a: int, b: int) -> tuple[int, int] | None:
        """A signature line of a full name and a job title: "Gloria Stanfield, Escrow Officer"."""
        if b - a > 90 or not text[a : a + 1].isupper():
            return None
        line = text[a:b]
        cut = min((k for k in (line.find(","), line.find(" | "), line.find(" - ")) if k > 0), default=-1)
        if cut < 0 or cut > 40:
            return None
        tail = _SEPARATORS.split(line[cut:].lower().strip(",|- .").replace(",", " "))
        if not any(w in self.lex.job_words for w in tail):
            return None
        head = line[:cut].rstrip()
        if self._shaped(head.split(), False, 3, 2):
            return a, a + len(head)
        return None

    def _transcript(self, text: str, lines: list[tuple[int, int]]) -> Iterator[tuple[int, int, str]]:
        """Speakers' names in a transcript: a line's label that recurs, that carries a role
        ("João (support):"), or that speaks among lines labelled with roles ("Agent:")."""
        labels: list[tuple[int, int, str, bool, str]] = []
        for a, b in lines:
            if ":" not in text[a : min(b, a + 80)]:
                continue
            m = _LABEL_LINE.match(text, a, b)
            if m is None:
                continue
            ws, we = m.span("who")
            role = m.group("role")
            # Only a role in brackets says the label is a speaker ("Traceback (most recent ...):").
            marked = role is not None and self._role(role)
            if role is not None and not marked:
                continue
            key = " ".join(m.group("who").lower().split())
            labels.append((ws, we, key, marked, text[m.end() : b]))
        if len(labels) < 2:
            return
        counts: dict[str, int] = {}
        for *_, key, _m, _r in labels:
            counts[key] = counts.get(key, 0) + 1
        if len(counts) < 2:
            return
        roles = {key for key in counts if self._role(key)}
        for ws, we, key, marked, rest in labels:
            if key in roles:
                continue
            who = text[ws:we]
            lower = who.islower()
            if lower and not (roles and rest.strip() and rest.islower()):
                continue
            said = sum(1 for w in _LOG_REST.findall(rest) if w.isalpha())
            # Once a label recurs it is a conversation: the other speakers' labels count too.
            recurs = any(n >= 2 for k, n in counts.items() if k != key)
            if not (marked or counts[key] >= 2 or (roles and said >= 3) or (recurs and said >= 1)):
                continue
            if self._shaped(who.split(), lower, 3) and not self._log_label(text, ws, we):
                yield ws, we, "transcript"

    def _person_records(self, text: str, commas: list[int] | None = None) -> Iterator[tuple[int, int, str]]:
        """A name right before ", ssn ...", ", dob ...", ", passport ..." in running text:
        "Bureau pull requested for Igor Lebedev, ssn 600-83-5783". ``commas``: where to look
        (the commas before a record's cue); None: the whole text."""
        if commas is None:
            found = list(self.lex.person_record.finditer(text, timeout=self.timeout))
        else:
            found = [m for c in commas if (m := self.lex.person_record.match(text, c)) is not None]
        particles = self.lex.particles
        for m in found:
            c = m.start()
            lo = max(text.rfind("\n", 0, c) + 1, c - 120)
            head = text[lo:c].rstrip()
            taken: list[str] = []  # the name's words, from the right
            named = 0
            for word in reversed(head.split()):
                if word in particles:
                    taken.append(word)
                    continue
                if (
                    len(taken) >= 4
                    or not word[0].isupper()
                    or word.lower() in self.lex.no_name
                    or (_CASED_WORD.fullmatch(word) is None and _INITIAL.fullmatch(word) is None)
                ):
                    break
                taken.append(word)
                named += word[-1] != "."
            while taken and taken[-1] in particles:
                taken.pop()
            if named >= 2:
                pos = len(head)
                for word in taken:
                    pos = head.rfind(word, 0, pos)
                yield lo + pos, lo + len(head), "record"

    def _more(self, text: str) -> list[tuple[int, int, str]]:
        """Names in shapes that no phrase of the lists starts: XML elements, a name before
        contact data, a reply's attribution line, "Mateo's mom", a name before "(DOB ...)",
        "Last, First" as a table's first cell, lists of people, "—Benedikt" at a mail's end.

        Each shape has a cheap hint (a substring, or a plain ``re`` scan where one is there)
        that it needs; its pattern runs only where the hint is, anchored there.
        """
        at = self._hints(text)
        out: list[tuple[int, int, str]] = []
        if ":" in text and ("wrote" in text or "crit" in text or "schrieb" in text or "escri" in text):
            out.extend(self._wrote(text))
        if not at:
            return out
        more = self.lex.more
        t = self.timeout
        for how, a, b in at:
            pattern = more[how]
            found = (
                pattern.search(text, a, b, timeout=t)
                if how == "born"
                else pattern.match(text, a, b, timeout=t)
            )
            if found is None:
                continue
            for s, e in found.spans("n"):
                words = text[s:e].replace(",", " ").split()
                if how == "xml" and _CAPS_WORD.fullmatch(words[0] if words else "") is not None:
                    if all(_CAPS_WORD.fullmatch(x) for x in words):
                        out.append((s, e, how))
                    continue
                if self._shaped(words, False, 4) and (how != "dash_sign" or self._signs(text, s)):
                    out.append((s, e, how))
        return out

    def _hints(self, text: str) -> list[tuple[str, int, int]]:
        """Where the patterns of ``_more`` may match: (shape, start, end)."""
        at: list[tuple[str, int, int]] = []
        size = len(text)
        if "<" in text:
            at.extend(("xml", m.start(), size) for m in _XML_HINT.finditer(text))
        # After a colon or a ">" a capital: a key's value ("Our team: Anya ...", "Driver:
        # Beatriz Santos") or a name before contact data ("Customer: Dmitri Volkov, d@...").
        starts: list[int] = []
        anchors = (_COLON_CAP, _GT_CAP) if "> " in text else (_COLON_CAP,)
        for anchor in anchors if ": " in text or "> " in text else ():
            first = anchor.search(text)
            for m in anchor.finditer(text, first.start()) if first is not None else ():
                k = m.end() - 2
                starts.append(k)
                if anchor is _COLON_CAP and _TWO_WORDS.match(text, k) is not None:
                    j = k - 2
                    while text[j] != ":":
                        j -= 1
                    while j > 0 and text[j - 1] in " \t":
                        j -= 1
                    w = j
                    while w > 0 and (text[w - 1].isalnum() or text[w - 1] in "_-"):
                        w -= 1
                    key = text[w:j].lower()
                    if key in _PEOPLE_KEYS:
                        at.append(("people", w, size))
                    elif key in self._role_keys and _label_start(text, w) >= 0:
                        at.append(("role_key", text.rfind("\n", 0, w) + 1, size))
        # Contact data after a name at a line's start, after a colon or ">", or after "me,".
        head = text[:1]
        if head.isupper() or head.isdigit() or head in (">", "m", "M", " "):
            colon = text.find(":", 0, 24)
            if colon < 0 or " " in text[:colon]:
                starts.append(0)
        if "\n" in text:
            # At a line's start only among the last lines (a signature's): "Sunil Mehta, +91 ...".
            tail = size
            for _ in range(8):
                tail = text.rfind("\n", 0, tail)
                if tail <= 0:
                    break
            starts.extend(m.start() + 1 for m in _CONTACT_LINE.finditer(text, max(tail, 0)))
            end = size
            while end and text[end - 1].isspace():
                end -= 1
            last = text.rfind("\n", 0, end) + 1
            if last and text[_skip(text, last, " \t>") : end][:1] in ("—", "–", "-"):
                at.append(("dash_sign", last, size))
        if "me," in text:
            starts.extend(m.end() for m in _ME_COMMA.finditer(text))
        for k in sorted(set(starts)) if len(starts) > 1 else starts:
            if _CONTACT_LEAD.match(text, k) is not None:
                eol = text.find("\n", k)
                at.append(("contact", k, size if eol < 0 else eol))
        if "s " in text and ("'s" in text or "’s" in text):
            for m in self._kin_hint.finditer(text):
                k = m.start()
                while k > 0 and (text[k - 1].isalpha() or text[k - 1] in "'’-"):
                    k -= 1
                at.append(("kin_of", k, m.end()))
        if "(" in text:
            for m in _BORN_HINT.finditer(text):
                ls = text.rfind("\n", 0, m.start()) + 1
                at.append(("born", max(ls, m.start() - 120), m.end()))
        if "\t" in text:
            at.extend(("cell", m.start(), m.end()) for m in _CELL_HINT.finditer(text))
        return at

    def _contact_data(self, text: str) -> list[int]:
        """Where an e-mail address ("a.b@x.de", from its local part) or a phone number starts."""
        out: list[int] = []
        at = text.find("@")
        while at > 0:
            k = at
            while k > 0 and (text[k - 1].isalnum() or text[k - 1] in "._+-"):
                k -= 1
            if k < at and text[at + 1 : at + 2].isalnum():
                out.append(k)
            at = text.find("@", at + 1)
        if _has_digit(text):
            for m in _PHONE_HINT.finditer(text):
                k = m.start()
                while k > 0 and text[k - 1] in "+(":
                    k -= 1
                out.append(k)
            out.sort()
        return out

    def _signs(self, text: str, s: int) -> bool:
        """Whether "—Name" at ``s`` ends a mail that is no list of "- item" lines."""
        start = text.rfind("\n", 0, s) + 1
        if text[start:s].strip(" \t>") not in ("-",):
            return True
        prev = text.rfind("\n", 0, max(start - 1, 0))
        return not text[prev + 1 : start].lstrip(" \t>").startswith("-")

    def _wrote(self, text: str) -> Iterator[tuple[int, int, str]]:
        """The name in a reply's attribution line: "On 3/1/25, Trevor Blackwood wrote:",
        "... AM Trevor Blackwood <t@x.com> wrote:", "Am 03.03.2025 schrieb Jana Novak:"."""
        for m in _WROTE.finditer(text):
            s = text.rfind("\n", 0, m.start()) + 1
            if text[m.start() : m.start() + 1] in "sS":
                n = self.lex.more["wrote_after"].match(text, m.start(), timeout=self.timeout)
                if n is not None and self._shaped(text[n.start("n") : n.end("n")].split(), False, 4):
                    yield n.start("n"), n.end("n"), "wrote"
            head = text[s : m.start()].rstrip()
            # An address or a quoted display name before the verb: <t@x.com>, "Trevor".
            if head.endswith(">") and "<" in head:
                head = head[: head.rfind("<")].rstrip()
            head = head.rstrip("\"'").rstrip()
            taken: list[str] = []
            for word in reversed(head.split()):
                if word in self.lex.particles and taken:
                    taken.append(word)
                    continue
                if (
                    len(taken) >= 4
                    or word.lower() in self.lex.no_name
                    or (_CASED_WORD.fullmatch(word.strip("\"'")) is None and _INITIAL.fullmatch(word) is None)
                ):
                    break
                taken.append(word)
            while taken and (taken[-1] in self.lex.particles or _INITIAL.fullmatch(taken[-1])):
                taken.pop()
            if taken:
                end = s + len(head)
                pos = len(head)
                for word in taken:
                    pos = head.rfind(word, 0, pos)
                yield s + pos + (head[pos] in "\"'"), end, "wrote"

    def _list_rest(self, text: str, found: list[tuple[int, int, str]]) -> Iterator[tuple[int, int, str]]:
        """The rest of a list after a found name: "Anya Petrova (lead), Kenji Watanabe, Olumide
        Bakare, and Zoë Hartmann-Klein". Full names only, and only a list that ends in "and"
        or has two names more ("Jane Roe, San Francisco, CA" is no list)."""
        for _s, e, how in found:
            if how == "recurring" or not _list_goes_on(text, e):
                continue
            rest: list[tuple[int, int]] = []
            ended = False
            pos = e
            while len(rest) < 12:
                m = self.lex.list_rest.match(text, pos, timeout=self.timeout)
                if m is None or not self._shaped(text[m.start("n") : m.end("n")].split(), False, 4):
                    break
                if self._trim(text, m.start("n"), m.end("n")) != m.end("n"):
                    break
                rest.append(m.span("n"))
                ended = "and" in m.group("and") or "&" in m.group("and")
                pos = m.end()
                if ended:
                    break
            if rest and (ended or len(rest) >= 2):
                for a, b in rest:
                    yield a, b, "list"

    def _not_person(self, text: str, s: int, e: int, how: str) -> bool:
        """Whether "named" follows an animal's or a thing's word: "a cat named Biscuit"."""
        if how != "intro":
            return False
        head = text[max(0, s - 60) : s].lower().replace('"', " ").replace("“", " ").split()
        # A form's label ("Please enter your full name\nSubmit") names no one on the next line.
        if head and head[-1].rstrip(",") in _LABEL_NOUNS:
            j = s
            while j > 0 and text[j - 1] in ' \t\r\n"“':
                j -= 1
            if "\n" in text[j:s]:
                return True
        if len(head) < 2 or head[-1] not in ("named", "called"):
            return False
        noun = head[-3] if head[-2] in ("is", "was") and len(head) >= 3 else head[-2]
        return noun.strip(",") in self.lex.not_persons

    def _xml_key(self, text: str, s: int, e: int, how: str) -> bool:
        """Whether a field's value is the name of a field in an XML tag: <Data Name="LogonType">."""
        if how != "field" or s < 2 or text[s - 1] not in "\"'" or "=" not in text[s - 2 : s]:
            return False
        tag = text.rfind("<", 0, s)
        if tag < 0 or ">" in text[tag:s] or "\n" in text[tag:s]:
            return False
        value = text[s:e]
        return " " not in value and any(c.isupper() for c in value[1:])

    def _sql(self, text: str) -> Iterator[tuple[int, int, str]]:
        for m in _SQL.finditer(text, timeout=self.timeout):
            cols = [c.strip(" \"`'") for c in m.group("cols").split(",")]
            vals = list(_SQL_VALUE.finditer(text, m.start("vals"), m.end("vals")))
            for col, val in zip(cols, vals, strict=False):
                raw = val.group().strip()
                if self.lex.field_keys.fullmatch(col) and raw.startswith("'") and len(raw) > 2:
                    start = val.start() + val.group().index("'") + 1
                    yield start, start + len(raw) - 2, "sql"

    def _recurring(self, text: str, found: list[Finding]) -> list[Finding]:
        """The words of a found name where they stand alone elsewhere ("Hello Dalbir," ... "Dalbir")."""
        words = {
            word
            for f in found
            for word in text[f.start : f.end].split()
            if len(word) >= 3
            and word[0].isupper()
            and word.lower() not in self.lex.ambiguous
            and word.lower() not in self.lex.not_names
        }
        out: list[Finding] = []
        # A place is taken if a finding covers it: of the findings (in order) that start at or
        # before it, the one that reaches furthest reaches past it.
        starts = [f.start for f in found]
        reach = list(itertools.accumulate((f.end for f in found), max))
        size = len(text)
        for word in words:
            # Non-overlapping whole-word occurrences, left to right (as a regex scan finds them).
            i = text.find(word)
            while i >= 0:
                j = i + len(word)
                if (i == 0 or not _joins(text[i - 1])) and (j == size or not _joins(text[j])):
                    k = bisect.bisect_right(starts, i) - 1
                    if k < 0 or reach[k] <= i:
                        out.append(Finding(i, j, "PERSON", SCORE - 0.1, "names:recurring"))
                    i = text.find(word, j)
                else:
                    i = text.find(word, i + 1)
        return out


# The order the contexts are tried in; where two find the same span, the later names it.
_ORDER = (
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
)
# Contexts of a key and its value: a lower-case name there may be any word ("name: will
# smith"); in the others it must be none of the common words.
_KEYED = frozenset({"field", "list_field", "record"})
# The words after a chat label's colon.
_LOG_REST = regex.compile(r"[\p{L}\d][\p{L}\d'’_-]*")
# A chat speaker's label at the start of a line: "Agent:", "[10:42] Priya Shah:", "> customer:".
_SPEAKER = regex.compile(
    r"[ \t>]*(?:\[[^\]\r\n]{1,26}\][ \t]*)?(?P<who>\p{L}[\p{L}'’.-]*(?:[ \t]\p{L}[\p{L}'’.-]*){0,2})"
    r"[ \t]*:(?:[ \t]+|(?=\r?$))"
)
_QUOTE = regex.compile(r"[ \t>]*")
# Intros that end in a noun: their name is on the same line ("full name Ana Lucía Jiménez").
_LABEL_NOUNS = frozenset({"name", "titular", "nombre", "beneficiary", "holder"})
# Lower-case letters a name may start with after an intro: its particles ("under van der Berg").
_LEADS = ("v", "d", "l")
# "the other driver was Hyun-woo Park".
_IS_WAS = re.compile(r"\s+(?:was|is)\s", re.IGNORECASE)
_TWICE = re.compile(r"(.)\1")
# One name word, capitalised or in lower case; an initial ("P.").
_CASED_WORD = regex.compile(_CASED)
_LOWER_WORD = regex.compile(_LOWER)
_INITIAL = regex.compile(r"\p{Lu}\.")
_CAPS_WORD = regex.compile(_CAPS)
# A line's speaker label in a transcript: "[22:05] henrike schäfer:", "Avi P.:", "João (support):".
_LABEL_LINE = regex.compile(
    r"[ \t>]*(?:\[\d{1,2}:\d\d(?::\d\d)?(?:[ \t]?[AaPp][Mm])?\][ \t]*)?"
    r"(?P<who>\p{L}[\p{L}\p{M}'’._\d-]*(?:[ \t]+\p{L}[\p{L}\p{M}'’._\d-]*){0,3})"
    r"(?:[ \t]*\((?P<role>[\p{L} \t]{1,24})\))?[ \t]*:(?:[ \t]+|\r?$)"
)
# A street line under a name in an address block: "42 Harbour Street", "Flat 3, 27 Abbey Road".
_STREET_LINE = regex.compile(
    r"(?:(?i:flat|apt|apartment|unit|suite|ste)\.?[ \t]*[\w-]{1,5},?[ \t]+)?\d{1,6}[A-Za-z]?,?[ \t]+\p{L}"
)


def _speaker(text: str, s: int, e: int) -> tuple[str | None, int]:
    """The speaker label of the line ``[s, e)`` (None if it has none) and where its words start."""
    m = _SPEAKER.match(text, s, e)
    if m is not None:
        return m.group("who"), m.end()
    q = _QUOTE.match(text, s, e)
    return None, q.end() if q is not None else s


# Endings of English agent nouns that first names and surnames hardly have, with the length a
# word needs: "Preparer", "Pharmacist", "Coordinator", "Applicant", "Adjuster" (not "Peter",
# "Oliver", "Heather", "Vincent", "Victor", "Marian", "Lucian", "Miller", "Meyer", "Sylvester").
_AGENT_ENDINGS = (
    ("rer", 6),
    ("ist", 5),
    ("ator", 6),
    ("itor", 6),
    ("ssor", 6),
    ("eer", 6),
    ("uster", 7),
    ("ee", 7),
    ("cian", 7),
    ("ant", 7),
    ("arian", 8),
    ("ent", 8),
    ("ctor", 8),
)
# Words of HTTP and mail headers: "Content-Type:", "Accept-Language:", "X-Request-Id:".
_HEADER_WORDS = frozenset(
    _SEPARATORS.split(
        "content type length encoding accept language request id user agent cache control forwarded "
        "for host origin referer referrer authorization cookie set connection keep alive transfer "
        "range etag modified since match none retry after location vary via server trace "
        "correlation api key token real ip proto frame options security policy strict transport "
        "powered by rate limit remaining reset upgrade expect date expires pragma www authenticate "
        "dnt sec fetch mode site dest disposition message mime version reply return path received "
        "priority mailer spam status tenant session client span parent"
    )
)


def _agent_noun(word: str) -> bool:
    """Whether a one-word label has the ending of an agent noun ("preparer", "adjuster")."""
    return word not in ("desiree", "christ") and any(
        len(word) >= n and word.endswith(end) for end, n in _AGENT_ENDINGS
    )


def _header_key(word: str) -> bool:
    """Whether a hyphenated label is a header's key ("content-type", "x-request-id")."""
    parts = word.split("-")
    if len(parts) < 2:
        return False
    return parts[0] == "x" or len(parts) >= 3 or any(p in _HEADER_WORDS for p in parts)


def _list_goes_on(text: str, e: int) -> bool:
    """Whether a list may go on after a name ending at ``e``: a comma, "and" or "&", maybe
    after a role in brackets (a cheap test before ``list_rest``)."""
    j = e
    if text[j : j + 2] == " (" or text[j : j + 1] == "(":
        close = text.find(")", j, j + 34)
        if close < 0:
            return False
        j = close + 1
    nxt = text[j : j + 5]
    return nxt[:1] == "," or nxt == " and " or nxt[:3] == " & "


def _has_digit(text: str) -> bool:
    return any(d in text for d in "0123456789")


def _has_lower_line(text: str) -> bool:
    """Whether a line of the text is typed without capitals (a speaker's label aside)."""
    lines = text.split("\n")
    if any(line.islower() for line in lines):
        return True
    return ":" in text and any(_is_lower(line) for line in lines if ":" in line)


def _is_lower(line: str) -> bool:
    """Whether a line is typed without capitals, but for a speaker's label ("Customer: ...")."""
    if line.islower():
        return True
    colon = line.find(":", 0, 64)
    if colon < 0 or not line[colon:].islower():
        return False
    m = _SPEAKER.match(line, 0, colon + 2)
    return m is not None and line[m.end() :].islower()


# A list item's number: "1.", "2)".
_LIST_NUMBER = re.compile(r"\d{1,3}[.)]")
_TITLE_HEADS = frozenset(t[:2] for t in _LOWER_TITLES)


def _label_lines(text: str) -> list[int]:
    """Starts of the lines that open with a chat stamp ("[10:42]") or a nick ("<Tom"): where
    the label pattern may match. Log stamps ("[2024-06-01 ...") are ruled out by their third
    or fourth character."""
    out: list[int] = []
    s = 0
    while True:
        i = _skip(text, s, " \t>")
        ch = text[i : i + 1]
        if (ch == "<" and _may_start(text, i + 1, False)) or (
            ch == "[" and text[i + 1 : i + 2].isdigit() and ":" in text[i + 2 : i + 4]
        ):
            out.append(s)
        s = text.find("\n", i) + 1
        if not s:
            return out


# A "Name <local@" in the text: a cheap, linear test before the display-name pattern runs. It
# asks less than that pattern (whitespace may sit between "<" and "@"), so it never hides one.
_DISPLAY_HINT = re.compile(r"<[^<>@]+@")
# The words of a trigger phrase as matched, between the separators the scan allows.
_WORD = re.compile(r"[^\s_-]+")
# A character that joins a name word to its neighbour, as the recurrence pattern had it:
# one character class, so no backtracking.
_JOINER = regex.compile(r"[\p{L}\d'’-]")


# The phrases inside a trigger phrase worth a look, by what follows it: whether a blank does
# (blanks, "_" and "-"), and the next character after it lower-cased ("" at the end of the
# text; None beyond ASCII, where every phrase of that kind is looked at).
_ByNext = dict[tuple[bool, str | None], tuple[_Inner, ...]]


def _by_next(entries: tuple[_Inner, ...]) -> _ByNext:
    """``entries`` by what must follow the phrase for each to be there (see ``_continues``).

    One that needs nothing is always kept. One that runs on with " word" needs a blank and
    then the word's first letter; one that runs on within the word ("'s") needs no blank and
    its first character at once (never a blank: phrases are split at blanks). An ASCII
    character is that letter when lower-cased, or the first of the case-folded piece. Entries
    keep their order (records are noted in the order of their places).
    """

    def firsts(nxt: str) -> set[str]:
        piece = nxt[1:] if nxt[0] == " " else nxt
        return {piece[0], piece.casefold()[:1]}

    def kept(nxt: str, blank: bool, c: str | None) -> bool:
        return not nxt or ((nxt[0] == " ") == blank and (c is None or c in firsts(nxt)))

    keys: set[tuple[bool, str | None]] = {(b, c) for b in (False, True) for c in ("", None)}
    keys |= {(nxt[0] == " ", c) for *_, nxt in entries if nxt for c in firsts(nxt)}
    return {(blank, c): tuple(x for x in entries if kept(x[3], blank, c)) for blank, c in keys}


def _continues(text: str, i: int, nxt: str) -> bool:
    """Whether the text at ``i`` goes on as a phrase does: " word" after blanks, or "'s" at once."""
    if nxt[0] == " ":
        j = _skip_space(text, i, "_-")
        if j == i:
            return False
        i, nxt = j, nxt[1:]
    piece = text[i : i + len(nxt)]
    return piece.lower() == nxt or piece.casefold() == nxt.casefold()


def _place(where: list[tuple[int, int]], x: int) -> int:
    """The text offset of offset ``x`` of a phrase, given where each word starts in both."""
    for n, a in reversed(where):
        if n <= x:
            return a + x - n
    return x


def _run_starts(text: str, i: int) -> bool:
    """Whether a run of letters or digits starts at ``i`` (where a context's phrase may start)."""
    return text[i].isalnum() and (i == 0 or not text[i - 1].isalnum())


def _joins(ch: str) -> bool:
    if ch.isascii():
        return ch.isalnum() or ch in "'-"
    return _JOINER.match(ch) is not None


def _may_start(text: str, i: int, lower: bool) -> bool:
    """Whether a name may start at ``i``: a capital (or "al-", "d'" ...), any letter on a lower line.

    Never false where the pattern would match; beyond ASCII it says yes to all but lower-case
    letters, because the regex module knows letters newer than this Python's Unicode tables.
    """
    if i >= len(text):
        return False
    ch = text[i]
    if ch.isascii():
        return ch.isalpha() if lower else (ch.isupper() or ch in "aeud")
    return lower or not ch.islower()


def _skip(text: str, i: int, chars: str) -> int:
    n = len(text)
    while i < n and text[i] in chars:
        i += 1
    return i


def _skip_space(text: str, i: int, extra: str = "") -> int:
    n = len(text)
    while i < n and (text[i].isspace() or text[i] in extra):
        i += 1
    return i


def _name_index(how: str, text: str, end: int) -> int:
    """Where the name may start after a context's phrase ending at ``end``; -1 if nowhere."""
    if how == "greeting":  # "Hi Jane", "Hello, Jane"
        i = _skip(text, end, " \t,")
    elif how in ("intro", "loose_intro"):  # "my name is Jane", "this is\nJane", 'signed by "Jane"'
        i = _skip_space(text, end, '"“')
    elif how == "bare_field":  # "name Colin Thorne dob ..."
        i = _skip(text, end, " \t")
    elif how == "relation":  # "my mother, Jane", "the other driver was Jane Roe"
        was = _IS_WAS.match(text, end)
        i = _skip_space(text, end, ",") if was is None else _skip_space(text, was.end())
    elif how == "title":  # "Mr. van der Berg"
        i = _skip(text, end, ". \t")
    elif how in ("talk", "speaker"):  # "speak with owen", "Agent Rebecca:"
        i = _skip(text, end, " \t")
    elif how == "field":  # 'name: Jane', 'name="Jane"', '"name": "Jane"'
        i = _skip_space(text, end, "\"'")
        if i >= len(text) or text[i] not in ":=":
            return -1
        return _skip_space(text, i + 1, "\"'[>")
    elif how == "list_field":  # "cc: Jane"
        i = _skip(text, end, " \t")
        if i >= len(text) or text[i] != ":":
            return -1
        return _skip(text, i + 1, " \t")
    else:
        return end
    return i if i > end else -1


def _file(starts: dict[str, list[int]], how: str, start: int) -> None:
    """Adds a start to a context's list (without making a list for every call)."""
    if how in starts:
        starts[how].append(start)
    else:
        starts[how] = [start]


def _possessive(text: str, p: int) -> int:
    """Start of the "my", "our", "his", "her", "their" or "the" before the phrase at ``p``, or -1.

    One of ``_KIN_ADJECTIVES`` may stand between ("my late father"); "and" and "additional"
    stand alone ("and grandpa Tariq Ahmed").
    """
    start = _possessive_word(text, p)
    if start >= 0:
        return start
    w = _word_before(text, p)
    if w < 0:
        return -1
    word = text[w:p].strip().lower()
    if word in _KIN_JOINERS:
        return w
    if word in _KIN_ADJECTIVES:
        return _possessive_word(text, w)
    return -1


def _word_before(text: str, p: int) -> int:
    """Start of the word right before ``p`` (blanks between), or -1."""
    j = p
    while j > 0 and text[j - 1].isspace():
        j -= 1
    if j == p:
        return -1
    k = j
    while k > 0 and text[k - 1].isalpha():
        k -= 1
    return k if k < j and (k == 0 or not text[k - 1].isalnum()) else -1


def _possessive_word(text: str, p: int) -> int:
    j = p
    while j > 0 and text[j - 1].isspace():
        j -= 1
    if j >= 3 and text[j - 1] in "eE" and text[j - 3 : j].casefold() == "the":
        return j - 3
    # All of them end in "y", "r" or "s" (or the long s, which the pattern takes for an "s"):
    # one look rules out most words.
    if j == p or text[j - 1] not in "yrsYRS\u017f":
        return -1
    for word in _POSSESSIVES:
        k = j - len(word)
        if k >= 0 and text[k:j].casefold() == word and (k == 0 or not text[k - 1].isalnum()):
            return k
    return -1


def _label_start(text: str, p: int) -> int:
    """Start of the line of ``p`` if only blanks, ">" or a bracketed stamp come before it, else -1."""
    s = text.rfind("\n", 0, p) + 1
    head = text[s:p].strip(" \t>")
    if head and not (head[0] == "[" and head[-1] == "]" and len(head) <= 26):
        return -1
    return s


def _line_opened_by(text: str, p: int) -> int:
    """Start of the line of ``p`` if nothing but spaces and ">" come before ``p`` on it, else -1."""
    k = p - 1
    while k >= 0:
        ch = text[k]
        if ch == "\n":
            break
        if ch != ">" and not ch.isspace():
            return -1
        k -= 1
    return k + 1


def _signed(text: str, end: int) -> bool:
    """After a closing, a comma or a dash and a name on the same line ("Thanks, Ana")."""
    i = _skip(text, end, " \t")
    if i >= len(text) or text[i] not in ",-–—":
        return False
    return _may_start(text, _skip(text, i + 1, " \t-–—"), False)


def _closing_line(text: str, p: int, end: int) -> int:
    """Start of the line of a closing at ``p`` if the closing is all there is on it, else -1."""
    s = _line_opened_by(text, p)
    if s < 0 or end < 0:
        return s
    i = _skip(text, end, " \t,.!\r")
    return s if i == len(text) or text[i] == "\n" else -1


def _dash_line(text: str, pos: int) -> int:
    """Start of the line of a dash at ``pos`` if the line may be a signature delimiter, else -1."""
    s = _line_opened_by(text, pos)
    if s < 0:
        return -1
    i = _skip(text, _skip(text, pos, "-–—"), " \t\r")
    return s if i == len(text) or text[i] == "\n" else -1


def _record_lines(
    text: str, points: list[int], particles: frozenset[str], commas: list[int] | None = None
) -> tuple[list[int], list[int]]:
    """The lines where a record ("Lee Huang, SSN ...") may stand, given its cues (in order).

    The starts of those lines, for a capitalised name and for one in lower case (which needs
    its comma: "lee huang, ssn ..."). The commas right before a cue go to ``commas``: a name
    may end there in running text ("requested for Igor Lebedev, ssn ...").
    """
    cased: list[int] = []
    lower: list[int] = []
    line = -1  # start of the line of the last cue looked at
    seen = 0  # where the search for that line's start began
    for p in points:
        k = text.rfind("\n", seen, p)
        seen = p
        if k >= 0 or line < 0:
            line = k + 1 if k >= 0 else 0
        # A name, and a comma or blanks, right before the cue: "Lee Huang, SSN", "Lee Huang SSN".
        i = p
        while i > line and text[i - 1] in " \t":
            i -= 1
        if i in (p, line):
            continue
        comma = text[i - 1] == ","
        if comma:
            i -= 1
            if commas is not None:
                commas.append(i)
            if i == line:
                continue
        elif text[i - 1] in "-–—:" and i - 1 > line and text[i - 2] in " \t":
            # "1. Henrike Vogt - passport ...": a dash between the name and the cue.
            i -= 1
            while i > line and text[i - 1] in " \t":
                i -= 1
            if i == line:
                continue
        if not _ends_name(text[i - 1]):
            continue
        if comma and (not lower or lower[-1] != line):
            lower.append(line)
        if (not cased or cased[-1] != line) and _capitalised(text[line:i], comma, particles):
            cased.append(line)
    return cased, lower


def _ends_name(ch: str) -> bool:
    return ch.isalpha() or ch in "'’" or not ch.isascii()


def _capitalised(head: str, comma: bool, particles: frozenset[str]) -> bool:
    """Whether the start of a line up to a record's cue can be a capitalised name.

    An optional "Key:" and then name words, particles or initials only: "Customer: Lee Huang".
    Without a comma the name has two words or more. A long head is let through untested.
    """
    if len(head) > 80:
        return True
    words = head.lstrip("> \t").split()
    if words and (words[0].endswith(":") or words[0] in ("-", "*", "•") or _LIST_NUMBER.fullmatch(words[0])):
        words = words[1:]
    named = 0
    for word in words:
        if word.lower() in particles:
            continue
        if not _may_start(word, 0, False):
            return False
        named += 1
    return named >= (1 if comma else 2)


def _line(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start : end if end >= 0 else len(text)]


def _next_line(text: str, pos: int) -> tuple[int, int] | None:
    """The next non-blank line after the one ending at ``pos``, as (start, end)."""
    while pos < len(text):
        start = text.find("\n", pos)
        if start < 0:
            return None
        start += 1
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if text[start:end].strip(" \t\r>"):
            return start, end
        pos = end
    return None
