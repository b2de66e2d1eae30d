"""The regular expressions of the name contexts, built from the word lists of grammar/names.yaml.

Every pattern has a group ``n`` (or several) that is the name. ``context_patterns`` builds one
pattern per context for capitalised names and one for lines typed without capitals; the others
are the closing line, the reply to a question, the chat label, the signature's name line, the
rest of a list, and the shapes with no phrase of the lists (``more_shapes``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import regex

from scrubber.detectors.names.shapes import CAPS, CASED, EOL, LOWER, STAMP, Namer

# The words before a relation: "my mother, Katie Garcia".
POSSESSIVES = ("my", "our", "his", "her", "their")
# Words between them: "my late father", "the other driver", "my two kids".
KIN_ADJECTIVES = (
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
KIN_JOINERS = ("and", "additional")
# Lower-case titles, only right after a greeting or with their dot ("hello mr. okafor").
LOWER_TITLES = ("mr", "mrs", "ms", "miss", "dr", "prof")
DOTTED_LOWER_TITLES = ("mr", "mrs", "dr")
# What may stand between a relation and the name: "my husband's name, Yuting Liu".
_NAME_OF = r"['’]s[ \t]+(?:(?:full|legal)[ \t]+)?name(?:[ \t]+is)?"
NAME_OF_RE = regex.compile(_NAME_OF, regex.IGNORECASE)
# Keys whose value may be one word in lower case ("first_name=maria"); after any other key
# a single lower-case word is a service account ("reporter: jenkins").
_PART_KEYS = ("first", "last", "given", "surname", "family", "middle", "maiden")
# A signature block's delimiter line ("-- ") stands where a closing would.
SIG_DASHES = ("--", "—", "–")
_EMAIL_OR_PHONE = r"(?:[\w.+-]+@[\w-]+\.\w|\+?\(?\d[\d ().-]{7,}\d(?!\d))"
# Tags and keys of a name's parts in XML: <FirstName>Ana</FirstName>, Name="DisplayName".
_XML_NAME_KEYS = (
    r"(?i:(?:first|last|given|family|full|display|middle|maiden|legal|sur|customer|client|contact"
    r"|holder|account|patient|employee|person|recipient|sender|beneficiary|payee|cardholder|owner"
    r"|guest|passenger)[_-]?name|surname|fullname|beneficiary|payee|recipient|cardholder|holder)"
)
# Lists of people after a key: "Our team: Anya Petrova (lead), Kenji Watanabe, ...".
PEOPLE_KEYS = frozenset(
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


@dataclass(frozen=True)
class Contexts:
    """Compiled contexts: each pattern has a group ``n`` (or several) that is the name."""

    cased: Mapping[str, regex.Pattern[str]]
    lower: Mapping[str, regex.Pattern[str]]
    closing: regex.Pattern[str]


def alternation(words: Sequence[str]) -> str:
    """Phrases as whole words, longest first; blanks, "_" or "-" between their words."""
    parts = []
    for w in sorted(set(words), key=len, reverse=True):
        body = r"[\s_-]+".join(regex.escape(p) for p in w.split())
        parts.append(body + (r"\b" if w[-1].isalnum() else ""))
    return "(?:" + "|".join(parts) + ")"


def loose_alternation(words: Sequence[str], *, ignore_case: bool = False) -> str:
    """Phrases as whole words, blanks between words, either apostrophe ("who's this")."""
    parts = []
    for w in sorted(set(words), key=len, reverse=True):
        body = r"[ \t]+".join("['’]".join(map(regex.escape, p.split("'"))) for p in w.split())
        head = r"(?<![\w'’])" if w[0].isalnum() else ""
        parts.append(head + body + (r"(?![\w'’])" if w[-1].isalnum() else ""))
    return ("(?i:" if ignore_case else "(?:") + "|".join(parts) + ")"


def title(titles: list[str]) -> str:
    """A title and the blanks after it. Titles are matched capitalised only: "Dr. Lee", not
    "dr" inside a sentence."""
    words = "|".join(regex.escape(t.capitalize()) for t in sorted(titles, key=len, reverse=True))
    return rf"(?:{words})\.?[ \t]+"


def contexts(namer: Namer, w: Mapping[str, list[str]]) -> Contexts:
    """The contexts of the word lists ``w`` (as written, or with their slips)."""
    dashes = "|".join(regex.escape(d) for d in SIG_DASHES)
    return Contexts(
        cased=_build(namer, CASED, False, w),
        lower=_build(namer, LOWER, True, w),
        closing=regex.compile(
            rf"^[>\s]*(?:(?i:{alternation(w['closings'])})[ \t]*[,.!]*|(?:{dashes})[ \t]?){EOL}",
            regex.MULTILINE,
        ),
    )


def _intros(words: list[str], loose: list[str], lower_line: bool) -> str:
    return alternation([x for x in words if x not in loose and (not lower_line or "name" in x)])


def _build(
    namer: Namer, word: str, lower_line: bool, w: Mapping[str, list[str]]
) -> dict[str, regex.Pattern[str]]:
    name, titled, title_ = namer.name, namer.titled, namer.title
    alt = {k: alternation(v) for k, v in w.items()}
    end = r"(?![\p{L}'’-])"
    # More names in the same slot: "cc: Hiroshi Tanaka, Maria Lopez", "Hi Jane and Tom,".
    also = rf"[ \t]+(?:and|&)[ \t]+{name(word)}"
    mine = "|".join(POSSESSIVES)
    adj = rf"(?:(?:{'|'.join(KIN_ADJECTIVES)})\s+)?"
    listed = rf"(?:[ \t]*[,;][ \t]*(?:and[ \t]+)?{name(word)}{end}|{also}{end}){{0,8}}"
    # "Hernandez, Maria" where the field's line ends: a surname, a comma and given names.
    last_first = rf"(?P<n>{word},[ \t]*{word}(?:[ \t]+{word})?)(?={EOL})"
    if not lower_line:
        last_first = rf"(?:{last_first}|(?P<n>{CAPS},[ \t]*{CAPS}(?:[ \t]+{CAPS})?)(?=[\"']?{EOL}))"
    sep = r"[\"']?\s*(?:=>|[:=])\s*\[?[\"']?"
    keys = rf"(?i:(?<![\w.])(?:{alt['fields']}))"
    if lower_line:
        # One word in lower case only for a part of a name ("first_name=maria"); after any
        # other key it is a service account ("reporter: jenkins").
        parts = alternation([f for f in w["fields"] if any(k in f for k in _PART_KEYS)])
        field = (
            rf"(?:(?i:(?<![\w.])(?:{parts})){sep}{name(word)}{end}"
            rf"|{keys}{sep}(?:{last_first}|{name(word, 4, 2)}{end}))"
        )
    else:
        field = rf"{keys}{sep}(?:{last_first}|{name(word)}{end}|{name(CAPS, 4, 2)}{end})"
    comma = "," if lower_line else ",?"
    found = {
        "field": field,
        "list_field": rf"(?i:(?<![\w.-])(?:{alt['list_fields']}))[ \t]*:[ \t]*{name(word)}{end}" + listed,
        # "signed by \"Luana Albuquerque\"", "account holder is Castañeda, Joaquín (my mother)".
        "intro": rf"(?i:(?<![\w'])(?:{_intros(w['intros'], w['loose_intros'], lower_line)}))\s+[\"“]?"
        rf"(?:(?P<n>{word}(?:,[ \t]*{word}(?:[ \t]+{word})?|[ \t]+{word},[ \t]*{word}))"
        r"(?=[ \t]*(?:[(.;]|\r?$))"
        rf"|{title_}{name(word, lead=True)}{end}(?:{also}{end})?"
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
        found["kin"] = (
            rf"(?i:\b(?:{mine})\s+(?:{alt['lower_relations']}))[ \t]+{name(word, 2)}"
            rf"[ \t]+(?:{alt['relation_followers']})"
        )
        brk = rf"(?=[ \t]*(?:[?.!,;:]|\r?$)|[ \t]+(?:for|{alt['talk_followers']})\b)"
        found["talk"] = rf"(?<![\w'])(?:{alt['talk_intros']})[ \t]+{name(word, 2)}" + brk
        # "hello mr. okafor", "thanks ms lee": two words only before a break.
        # "dr. karagiannis's office": one word before a possessive.
        titled_lower = rf"(?:{name(word, 1)}(?=['’]s\b)|{name(word, 2, 2)}{brk}|{name(word, 1)}{end})"
        low_titles = "|".join(LOWER_TITLES)
        found["greeting"] = rf"(?:{alt['greetings']})[ \t]*,?[ \t]+(?:{low_titles})\.?[ \t]+{titled_lower}"
        # "dr." not after a house number and a street ("12 oak dr. apt 3").
        found["title"] = (
            rf"(?<![\w.])(?<!\d[ \t]+(?:\p{{L}}+[ \t]+){{1,3}})(?:{'|'.join(DOTTED_LOWER_TITLES)})\."
            rf"[ \t]+{titled_lower}"
        )
        # "sir i am dwayne brennan, my birth date is ...", "this is joão from the accounts team".
        found["loose_intro"] = (
            rf"(?<![\w'’])(?:{alt['loose_intros']})[ \t]+{name(word, 3)}"
            rf"(?=[ \t]*(?:[,.!;]|\r?$)|[ \t]+(?:from|here|speaking|calling)\b)"
        )
    else:
        found |= {
            "greeting": rf"(?i:(?<![\w'])(?:{alt['greetings']}))[ \t]*,?[ \t]+"
            rf"{titled(word, 3)}(?:[ \t]*,[ \t]*{name(word, 3)}{end}){{0,4}}(?:{also})?"
            rf"(?=[ \t]*(?:[,!:\r\n.]|$)|[ \t]+(?:[-–—]|(?i:this|it's|here)\b))",
            "title": rf"(?<![\w.]){title_}{name(word, 2, lead=True)}{end}",
            "loose_intro": rf"(?i:(?<![\w'])(?:{alt['loose_intros']}))\s+{titled(word, 3)}"
            rf"(?=\s*(?:[,.!;)]|$|(?i:{alt['intro_followers']})(?:\s|$)))",
            # "Chloe Hanna <chloe@...>", '"Oyelaran, Tunde" <t.oyelaran@...>'
            "display": rf"(?:^|(?<=[\s:,\"']))\"?(?:{name(word)},[ \t]*)?{name(word)}\"?"
            r"[ \t]*<[^<>\s@]+@",
            "sign_same_line": rf"^[>\s]*(?i:{alt['closings']})[ \t]*(?:,|[ \t][-–—]{{1,2}})[ \t]*"
            rf"{name(word, 3)}[.!]?{EOL}",
            # A chat speaker with a role: "Agent Rebecca: ..." (the line start is checked).
            "speaker": r"(?<=^[ \t>]*(?:\[[^\]\r\n]{1,24}\][ \t]*)?)"
            rf"(?i:{alt['speaker_roles']})[ \t]+{name(word, 3)}[ \t]*:(?=[ \t]|{EOL})",
        }
    return {k: regex.compile(v, regex.MULTILINE) for k, v in found.items()}


def replies(namer: Namer, w: Mapping[str, list[str]]) -> tuple[regex.Pattern[str], regex.Pattern[str]]:
    """The reply to a question for a name, capitalised and typed without capitals.

    Up to two openers ("yes, it's"), the name, maybe "here", then the end of the line or a
    sign that is no letter, digit or "?" ("Priya Raman.", "Priya :)").
    """
    name = namer.name
    openers = rf"[ \t]*(?:{loose_alternation(w['reply_openers'], ignore_case=True)}[ \t]*[,:]?[ \t]*){{0,2}}"
    reply_end = r"(?:[ \t]+(?i:here))?(?=[ \t]*(?:[^\w\s?'’]|\r?$))"
    low_titles = "|".join(LOWER_TITLES)
    cased = regex.compile(
        rf"{openers}(?:(?P<n>{CASED},[ \t]*{CASED}(?:[ \t]+{CASED})?)(?={EOL})"
        rf"|{namer.titled(CASED)}|{name(CAPS, 4, 2)}){reply_end}"
    )
    lower = regex.compile(
        rf"{openers}(?:(?P<n>{LOWER},[ \t]*{LOWER}(?:[ \t]+{LOWER})?)(?={EOL})"
        rf"|(?:(?:{low_titles})\.?[ \t]+)?{name(LOWER)}){reply_end}"
    )
    return cased, lower


def name_line(namer: Namer) -> regex.Pattern[str]:
    """A signature line: the name, maybe "Jr." or "III", maybe a title or company after a
    separator ("Ruth Gordon | Acme", "Ruth Gordon, CPA", "Ruth Gordon - Sales")."""
    return regex.compile(
        rf"[>\s]*{namer.name(CASED)}\.?(?:[ \t]+(?:II|III|IV))?"
        rf"(?:[ \t]*(?:[,|(]|[ \t][-–—])[^\r\n]*)?[ \t\r]*"
    )


def label(namer: Namer) -> regex.Pattern[str]:
    """A chat label: "[10:42] Priya Shah: ...", "<Tom Becker> hi there"."""
    name = namer.name
    return regex.compile(
        rf"[ \t>]*(?:{STAMP}[ \t]+(?:<{name(CASED, 3)}>[ \t]"
        rf"|{name(CASED, 3)}[ \t]*:(?=[ \t]|\r?$))|<{name(CASED, 3, 2)}>[ \t])",
        regex.MULTILINE,
    )


def list_rest(namer: Namer) -> regex.Pattern[str]:
    """The rest of a list after a name: ", Kenji Watanabe, Olumide Bakare, and Zoë Hartmann"."""
    return regex.compile(
        rf"(?:[ \t]*\([^()\r\n]{{1,30}}\))?(?P<and>[ \t]*,[ \t]*(?:and[ \t]+)?|[ \t]+(?:and|&)[ \t]+)"
        rf"(?P<n>{namer.name(CASED, 4, 2)})(?:[ \t]*\([^()\r\n]{{1,30}}\))?"
        r"(?=[ \t]*(?:[,.;:!)]|and\b|&|\r?$)|$)"
    )


def more_shapes(namer: Namer, w: Mapping[str, list[str]]) -> dict[str, regex.Pattern[str]]:
    """Names in shapes with no phrase of the lists (``records.more``)."""
    name = namer.name
    kin = alternation(w["lower_relations"])
    people = alternation(sorted(PEOPLE_KEYS))
    shapes = {
        # "<FirstName>Ana</FirstName>", '<Data Name="DisplayName">Rosalind Villanueva</Data>'.
        "xml": rf"<(?P<t>{_XML_NAME_KEYS})>[ \t]*(?P<n>[^<>\r\n]{{1,80}}?)[ \t]*</(?P=t)>"
        rf"|<(?P<e>[\w:.-]+)[^<>]*?\b(?i:name)=[\"']{_XML_NAME_KEYS}[\"'][^<>]*>[ \t]*"
        rf"(?P<n>[^<>\r\n]{{1,80}}?)[ \t]*</(?P=e)>",
        # "Customer: Dmitri Volkov, dvolkov@...", "me> Kwame, 901-706-7709", "1. me, Meera
        # Bakshi-Rao 978.218.7032": a name at a line's start or after a colon, then contact data.
        "contact": rf"[ \t>]*(?:\d{{1,2}}[.)][ \t]+)?(?:(?i:me)[ \t]*[,:][ \t]*)?"
        rf"(?:{name(CASED, 3, 2)}[ \t]*[,;]?|{name(CASED, 1)}[ \t]*[,;])[ \t]*[(<]?(?={_EMAIL_OR_PHONE})",
        # "Is this Mateo's mom?"
        "kin_of": rf"(?<![\w'’.-])(?P<n>{CASED})['’]s[ \t]+(?i:{kin})(?![\w'’-])",
        # "referral for Kateryna Bondarenko (DOB 1990-...)".
        "born": rf"(?<![\w'’.-]){name(CASED, 4, 2)}[ \t]*\((?i:dob|d\.o\.b|born|b\.|date of birth|aged?)\b",
        # "Nguyen, Bao<TAB>254425800<TAB>...": "Last, First" as a line's first cell.
        "cell": rf"[ \t]*(?P<n>{CASED}(?:[ \t]+{CASED})?,[ \t]*{CASED}(?:[ \t]+{CASED})?)\t",
        # "Our team: Anya Petrova (lead), ...", "Driver: Beatriz Santos, additional driver ...".
        "people": rf"(?i:(?<![\w.-])(?:{people}))[ \t]*:[ \t]*{name(CASED, 3, 2)}"
        r"(?=[ \t]*(?:[,(;]|and\b|&|\r?$))",
        "role_key": rf"[ \t>]*[\w-]+[ \t]*:[ \t]*{name(CASED, 3, 2)}(?=[ \t]*(?:[,(]|\r?$))",
        # "—Benedikt" as a mail's last line.
        "dash_sign": rf"[ \t>]*(?:—|–|--?)[ \t]?{name(CASED, 3)}[ \t]*\r?\n?\Z",
        # A name after a reply's verb: "Am 03.03.2025 schrieb Jana Novak:".
        "wrote_after": rf"(?i:\bschrieb)[ \t]+{name(CASED, 4)}[ \t]*(?:<[^<>\r\n]*>[ \t]*)?:",
    }
    return {k: regex.compile(v, regex.MULTILINE) for k, v in shapes.items()}


def kin_hint(lower_relations: Sequence[str]) -> re.Pattern[str]:
    """ "Mateo's mom": a possessive and a kin word (a plain ``re`` scan from the "'s")."""
    return re.compile(
        r"['’]s[ \t]+(?i:" + "|".join(sorted(map(re.escape, lower_relations), key=len, reverse=True)) + r")\b"
    )
