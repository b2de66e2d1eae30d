"""The regular expressions of the name contexts, built from the word lists of grammar/names.yaml.

Every pattern that finds a name has a group ``n`` (or several) that is the name. ``contexts``
builds one pattern per context for capitalised names and one for lines typed without capitals,
each led by the phrases of the context's lists (names.yaml, ``contexts``); the others are the
closing line, the reply to a question, the chat label, the signature's name line, the rest of
a list, the shapes with no phrase of the lists (``more_shapes``), and the small patterns and
cheap hints of the layout, made from their word lists too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import regex

from scrubber.detectors.names.shapes import CAPS, CASED, EOL, LOWER, STAMP, Namer

# A signature block's delimiter line ("-- ") stands where a closing would.
SIG_DASHES = ("--", "—", "–")
_EMAIL_OR_PHONE = r"(?:[\w.+-]+@[\w-]+\.\w|\+?\(?\d[\d ().-]{7,}\d(?!\d))"
# The word lists of names.yaml by name (all in lower case), and a context's lists.
Words = Mapping[str, list[str]]
Table = Mapping[str, tuple[str, ...]]


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


def literal(
    phrases: Sequence[str], blank: str = r"[ \t]+", escape: Callable[[str], str] = regex.escape
) -> str:
    """Phrases as written, longest first, with ``blank`` between their words (no word bounds)."""
    ordered = sorted(set(phrases), key=lambda p: (-len(p), p))
    return "(?:" + "|".join(blank.join(map(escape, p.split())) for p in ordered) + ")"


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


def leads(w: Words, table: Table) -> dict[str, list[str]]:
    """The phrases that start each context: the words of its lists."""
    return {ctx: [p for key in lists for p in w[key]] for ctx, lists in table.items()}


def contexts(namer: Namer, w: Words, table: Table) -> Contexts:
    """The contexts of the word lists ``w`` (as written, or with their slips)."""
    lead = leads(w, table)
    dashes = "|".join(regex.escape(d) for d in SIG_DASHES)
    return Contexts(
        cased=_build(namer, CASED, False, w, lead),
        lower=_build(namer, LOWER, True, w, lead),
        closing=regex.compile(
            rf"^[>\s]*(?:(?i:{alternation(lead['closing'])})[ \t]*[,.!]*|(?:{dashes})[ \t]?){EOL}",
            regex.MULTILINE,
        ),
    )


def name_of(w: Words) -> str:
    """What may stand between a relation and the name: "my husband's name, Yuting Liu"."""
    return rf"['’]s[ \t]+{literal(w['names_of'])}(?:[ \t]+is)?"


def _intros(words: list[str], loose: list[str], lower_line: bool) -> str:
    return alternation([x for x in words if x not in loose and (not lower_line or "name" in x)])


def _build(
    namer: Namer, word: str, lower_line: bool, w: Words, lead: Mapping[str, list[str]]
) -> dict[str, regex.Pattern[str]]:
    name, titled, title_ = namer.name, namer.titled, namer.title
    alt = {k: alternation(v) for k, v in w.items()}
    end = r"(?![\p{L}'’-])"
    # More names in the same slot: "cc: Hiroshi Tanaka, Maria Lopez", "Hi Jane and Tom,".
    also = rf"[ \t]+(?:and|&)[ \t]+{name(word)}"
    mine = "|".join(map(regex.escape, w["possessives"]))
    adj = rf"(?:(?:{'|'.join(map(regex.escape, w['kin_adjectives']))})\s+)?"
    joiners = "|".join(map(regex.escape, w["kin_joiners"]))
    relations = alternation(lead["relation"])
    listed = rf"(?:[ \t]*[,;][ \t]*(?:and[ \t]+)?{name(word)}{end}|{also}{end}){{0,8}}"
    # "Hernandez, Maria" where the field's line ends: a surname, a comma and given names.
    last_first = rf"(?P<n>{word},[ \t]*{word}(?:[ \t]+{word})?)(?={EOL})"
    if not lower_line:
        last_first = rf"(?:{last_first}|(?P<n>{CAPS},[ \t]*{CAPS}(?:[ \t]+{CAPS})?)(?=[\"']?{EOL}))"
    sep = r"[\"']?\s*(?:=>|[:=])\s*\[?[\"']?"
    keys = rf"(?i:(?<![\w.])(?:{alternation(lead['field'])}))"
    if lower_line:
        # One word in lower case only for a part of a name ("first_name=maria"); after any
        # other key it is a service account ("reporter: jenkins").
        parts = alternation([f for f in lead["field"] if any(k in f for k in w["name_part_keys"])])
        field = (
            rf"(?:(?i:(?<![\w.])(?:{parts})){sep}{name(word)}{end}"
            rf"|{keys}{sep}(?:{last_first}|{name(word, 4, 2)}{end}))"
        )
    else:
        field = rf"{keys}{sep}(?:{last_first}|{name(word)}{end}|{name(CAPS, 4, 2)}{end})"
    comma = "," if lower_line else ",?"
    found = {
        "field": field,
        "list_field": rf"(?i:(?<![\w.-])(?:{alternation(lead['list_field'])}))[ \t]*:[ \t]*{name(word)}{end}"
        + listed,
        # "signed by \"Luana Albuquerque\"", "account holder is Castañeda, Joaquín (my mother)".
        "intro": rf"(?i:(?<![\w'])(?:{_intros(lead['intro'], lead['loose_intro'], lower_line)}))\s+[\"“]?"
        rf"(?:(?P<n>{word}(?:,[ \t]*{word}(?:[ \t]+{word})?|[ \t]+{word},[ \t]*{word}))"
        r"(?=[ \t]*(?:[(.;]|\r?$))"
        rf"|{title_}{name(word, lead=True)}{end}(?:{also}{end})?"
        rf"|{name(word, lead=True)}{end}(?:{also}{end})?)",
        # "the" only with the name set off by commas: "The technician, Luis, said ...".
        # On a line without capitals only after a comma ("my husband was late" says no name).
        # "my husband's name, Yuting Liu".
        # "my late father Desmond Achterberg", "the other driver, Peter Nakagawa,"; after
        # "and" or "additional" a full name: "and grandpa Tariq Ahmed".
        "relation": rf"(?:(?i:\b(?:{mine})\s+{adj}(?:{relations})(?:{name_of(w)})?)"
        rf"\s*{comma}\s+{name(word)}{end}"
        rf"|(?i:\b(?:{joiners})\s+(?:{relations}))\s*{comma}\s+{name(word, 4, 2)}{end}"
        rf"|(?i:\bthe\s+{adj}(?:{relations}))[ \t]*,[ \t]*{name(word)}(?=[ \t]*[,;)])"
        # "the other driver was Hyun-woo Park": a full name.
        + (
            ""
            if lower_line
            else rf"|(?i:\b(?:{mine}|the)\s+{adj}(?:{relations})\s+(?:was|is)\s+)"
            rf"{name(word, 4, 2)}{end}"
        )
        + ")",
        # "1. Henrike Vogt - passport U6104875": a list's number or bullet, a dash after the name.
        "record": rf"^[> \t]*(?:\w+:[ \t]+|\d{{1,3}}[.)][ \t]+|[-*•][ \t]+)?(?:{name(word)},"
        + ("" if lower_line else rf"|{name(word, 4, 2)}")
        + r")[ \t]+(?:[-–—:][ \t]+)?"
        rf"(?i:{alternation(lead['record'])})\b",
        # "name Colin Thorne dob 20/7/1968": a key without a colon, a name and a record's cue.
        "bare_field": rf"(?i:(?<![\w.])(?:{alternation(lead['bare_field'])}))[ \t]+{name(word, 4, 2)}[ \t]+"
        rf"(?i:{alt['record_cues']}|{alt['person_cues']})\b",
    }
    if lower_line:
        # "my husband donald will call you": a relation, no comma, a name and a verb.
        found["kin"] = (
            rf"(?i:\b(?:{mine})\s+(?:{alt['lower_relations']}))[ \t]+{name(word, 2)}"
            rf"[ \t]+(?:{alt['relation_followers']})"
        )
        brk = rf"(?=[ \t]*(?:[?.!,;:]|\r?$)|[ \t]+(?:{alt['talk_followers']})\b)"
        found["talk"] = rf"(?<![\w'])(?:{alternation(lead['talk'])})[ \t]+{name(word, 2)}" + brk
        # "hello mr. okafor", "thanks ms lee": two words only before a break.
        # "dr. karagiannis's office": one word before a possessive.
        titled_lower = rf"(?:{name(word, 1)}(?=['’]s\b)|{name(word, 2, 2)}{brk}|{name(word, 1)}{end})"
        low_titles = "|".join(map(regex.escape, w["lower_titles"]))
        found["greeting"] = (
            rf"(?:{alternation(lead['greeting'])})[ \t]*,?[ \t]+(?:{low_titles})\.?[ \t]+{titled_lower}"
        )
        # "dr." not after a house number and a street ("12 oak dr. apt 3").
        dotted = "|".join(map(regex.escape, w["dotted_lower_titles"]))
        found["title"] = (
            rf"(?<![\w.])(?<!\d[ \t]+(?:\p{{L}}+[ \t]+){{1,3}})(?:{dotted})\.[ \t]+{titled_lower}"
        )
        # "sir i am dwayne brennan, my birth date is ...", "this is joão from the accounts team".
        found["loose_intro"] = (
            rf"(?<![\w'’])(?:{alternation(lead['loose_intro'])})[ \t]+{name(word, 3)}"
            rf"(?=[ \t]*(?:[,.!;]|\r?$)|[ \t]+(?:{alt['lower_intro_followers']})\b)"
        )
    else:
        found |= {
            "greeting": rf"(?i:(?<![\w'])(?:{alternation(lead['greeting'])}))[ \t]*,?[ \t]+"
            rf"{titled(word, 3)}(?:[ \t]*,[ \t]*{name(word, 3)}{end}){{0,4}}(?:{also})?"
            rf"(?=[ \t]*(?:[,!:\r\n.]|$)|[ \t]+(?:[-–—]|(?i:{alt['greeting_followers']})\b))",
            "title": rf"(?<![\w.]){title_}{name(word, 2, lead=True)}{end}",
            "loose_intro": rf"(?i:(?<![\w'])(?:{alternation(lead['loose_intro'])}))\s+{titled(word, 3)}"
            rf"(?=\s*(?:[,.!;)]|$|(?i:{alt['intro_followers']})(?:\s|$)))",
            "sign_same_line": rf"^[>\s]*(?i:{alternation(lead['sign_same_line'])})[ \t]*"
            rf"(?:,|[ \t][-–—]{{1,2}})[ \t]*{name(word, 3)}[.!]?{EOL}",
            # A chat speaker with a role: "Agent Rebecca: ..." (the line start is checked).
            "speaker": r"(?<=^[ \t>]*(?:\[[^\]\r\n]{1,24}\][ \t]*)?)"
            rf"(?i:{alternation(lead['speaker'])})[ \t]+{name(word, 3)}[ \t]*:(?=[ \t]|{EOL})",
        }
    return {k: regex.compile(v, regex.MULTILINE) for k, v in found.items()}


def display(namer: Namer) -> regex.Pattern[str]:
    """An e-mail display name: "Chloe Hanna <chloe@...>", '"Oyelaran, Tunde" <t.oyelaran@...>'."""
    name = namer.name
    return regex.compile(
        rf"(?:^|(?<=[\s:,\"']))\"?(?:{name(CASED)},[ \t]*)?{name(CASED)}\"?[ \t]*<[^<>\s@]+@",
        regex.MULTILINE,
    )


def replies(namer: Namer, w: Words) -> tuple[regex.Pattern[str], regex.Pattern[str]]:
    """The reply to a question for a name, capitalised and typed without capitals.

    Up to two openers ("yes, it's"), the name, maybe "here", then the end of the line or a
    sign that is no letter, digit or "?" ("Priya Raman.", "Priya :)").
    """
    name = namer.name
    openers = rf"[ \t]*(?:{loose_alternation(w['reply_openers'], ignore_case=True)}[ \t]*[,:]?[ \t]*){{0,2}}"
    reply_end = r"(?:[ \t]+(?i:here))?(?=[ \t]*(?:[^\w\s?'’]|\r?$))"
    low_titles = "|".join(map(regex.escape, w["lower_titles"]))
    cased = regex.compile(
        rf"{openers}(?:(?P<n>{CASED},[ \t]*{CASED}(?:[ \t]+{CASED})?)(?={EOL})"
        rf"|{namer.titled(CASED)}|{name(CAPS, 4, 2)}){reply_end}"
    )
    lower = regex.compile(
        rf"{openers}(?:(?P<n>{LOWER},[ \t]*{LOWER}(?:[ \t]+{LOWER})?)(?={EOL})"
        rf"|(?:(?:{low_titles})\.?[ \t]+)?{name(LOWER)}){reply_end}"
    )
    return cased, lower


def name_line(namer: Namer, w: Words) -> regex.Pattern[str]:
    """A signature line: the name, maybe "Jr." or "III", maybe a title or company after a
    separator ("Ruth Gordon | Acme", "Ruth Gordon, CPA", "Ruth Gordon - Sales")."""
    suffixes = "|".join(regex.escape(s.upper()) for s in w["generation_suffixes"])
    return regex.compile(
        rf"[>\s]*{namer.name(CASED)}\.?(?:[ \t]+(?:{suffixes}))?"
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


def _xml_name_keys(w: Words) -> str:
    """Tags and keys of a name's parts in XML: <FirstName>Ana</FirstName>, Name="DisplayName"."""
    words = "|".join(regex.escape(x) for x in sorted(w["xml_name_words"], key=len, reverse=True))
    whole = "|".join(regex.escape(x) for x in sorted(w["xml_name_elements"], key=len, reverse=True))
    return rf"(?i:(?:{words})[_-]?name|{whole})"


def xml_hint(w: Words) -> re.Pattern[str]:
    """Where a name's XML element may be: a tag or attribute value that ends like one, or a Name
    attribute (a plain ``re`` scan). Tags are read with a capital or not ("<payee>", "<Payee>"),
    and in capitals when they end in "NAME"."""
    tails = {"name", *w["xml_name_elements"]}
    tails = {t for t in tails if not any(t != u and t.endswith(u) for u in tails)}
    ends = "|".join(f"[{t[0].upper()}{t[0]}]{re.escape(t[1:])}" for t in sorted(tails)) + "|NAME"
    return re.compile(rf"<(?=[\w:.-]*(?:{ends})\b|[^<>]*\b[Nn]ame=)")


def _born(w: Words, escape: Callable[[str], str]) -> str:
    """A bracket and one of the words that make the name before it a person's: "(DOB", "(born"."""
    return rf"\((?i:{literal(w['born_cues'], escape(' '), escape)})\b"


def born_hint(w: Words) -> re.Pattern[str]:
    return re.compile(_born(w, re.escape))


def bracket_hint(w: Words) -> re.Pattern[str]:
    """A role, a relation or pronouns alone in brackets: "(clerk)", "(mum)", "(they/them)"."""
    return re.compile(rf"\((?i:{literal(w['bracket_roles'], ' ', re.escape)})\)")


def wrote(w: Words) -> re.Pattern[str]:
    """A reply's attribution verb: the name before it ("... Trevor Blackwood wrote:"), or after
    it (group ``after``: "Am 03.03.2025 schrieb Jana Novak:"). Matched as written."""
    before = literal(w["wrote_before"], " ", re.escape)
    after = literal(w["wrote_after"], " ", re.escape)
    return re.compile(rf"\b{before}[ \t]*:|(?P<after>\b{after}\b)")


def sig_contact(w: Words) -> re.Pattern[str]:
    """A signature's contact line: a phone number or an e-mail address, maybe after "Tel:", "M:".
    Bounded classes on one line: linear."""
    labels = literal(w["contact_labels"], " ", re.escape)
    return re.compile(
        rf"[ \t]*(?:{labels}[ \t]*[:.][ \t]*)?"
        r"(?:\+?[\d(][\d ()./-]{6,24}\d(?:[ \t]*(?:ext\.?|x)[ \t]*\d{1,6})?"
        r"|[^\s@]{1,64}@[^\s@]{1,255}\.[A-Za-z]{2,24})"
        r"[ \t\r]*",
        re.IGNORECASE,
    )


def street_line(w: Words) -> regex.Pattern[str]:
    """A street line under a name in an address block: "42 Harbour Street", "Flat 3, 27 Abbey Road"."""
    units = literal(w["address_units"])
    return regex.compile(rf"(?:(?i:{units})\.?[ \t]*[\w-]{{1,5}},?[ \t]+)?\d{{1,6}}[A-Za-z]?,?[ \t]+\p{{L}}")


def more_shapes(namer: Namer, w: Words) -> dict[str, regex.Pattern[str]]:
    """Names in shapes with no phrase of the lists (``records.more``)."""
    name = namer.name
    kin = alternation(w["lower_relations"])
    people = alternation(sorted(w["people_keys"]))
    keys = _xml_name_keys(w)
    after = literal(w["wrote_after"], " ")
    shapes = {
        # "<FirstName>Ana</FirstName>", '<Data Name="DisplayName">Rosalind Villanueva</Data>'.
        "xml": rf"<(?P<t>{keys})>[ \t]*(?P<n>[^<>\r\n]{{1,80}}?)[ \t]*</(?P=t)>"
        rf"|<(?P<e>[\w:.-]+)[^<>]*?\b(?i:name)=[\"']{keys}[\"'][^<>]*>[ \t]*"
        rf"(?P<n>[^<>\r\n]{{1,80}}?)[ \t]*</(?P=e)>",
        # "Customer: Dmitri Volkov, dvolkov@...", "me> Kwame, 901-706-7709", "1. me, Meera
        # Bakshi-Rao 978.218.7032": a name at a line's start or after a colon, then contact data.
        "contact": rf"[ \t>]*(?:\d{{1,2}}[.)][ \t]+)?(?:(?i:me)[ \t]*[,:][ \t]*)?"
        rf"(?:{name(CASED, 3, 2)}[ \t]*[,;]?|{name(CASED, 1)}[ \t]*[,;])[ \t]*[(<]?(?={_EMAIL_OR_PHONE})",
        # "Is this Mateo's mom?"
        "kin_of": rf"(?<![\w'’.-])(?P<n>{CASED})['’]s[ \t]+(?i:{kin})(?![\w'’-])",
        # "referral for Kateryna Bondarenko (DOB 1990-...)".
        "born": rf"(?<![\w'’.-]){name(CASED, 4, 2)}[ \t]*{_born(w, regex.escape)}",
        # "Present: Cllr Krammer, Will (clerk)", "Sam Okoro (they/them)": a name before a role
        # in brackets.
        "bracket": rf"(?<![\w'’.-]){name(CASED, 3)}[ \t]+\((?i:{literal(w['bracket_roles'], ' ')})\)",
        # "Nguyen, Bao<TAB>254425800<TAB>...": "Last, First" as a line's first cell.
        "cell": rf"[ \t]*(?P<n>{CASED}(?:[ \t]+{CASED})?,[ \t]*{CASED}(?:[ \t]+{CASED})?)\t",
        # "Our team: Anya Petrova (lead), ...", "Driver: Beatriz Santos, additional driver ...".
        "people": rf"(?i:(?<![\w.-])(?:{people}))[ \t]*:[ \t]*{name(CASED, 3, 2)}"
        r"(?=[ \t]*(?:[,(;]|and\b|&|\r?$))",
        "role_key": rf"[ \t>]*[\w-]+[ \t]*:[ \t]*{name(CASED, 3, 2)}(?=[ \t]*(?:[,(]|\r?$))",
        # "—Benedikt" as a mail's last line.
        "dash_sign": rf"[ \t>]*(?:—|–|--?)[ \t]?{name(CASED, 3)}[ \t]*\r?\n?\Z",
        # A name after a reply's verb: "Am 03.03.2025 schrieb Jana Novak:".
        "wrote_after": rf"(?i:\b{after})[ \t]+{name(CASED, 4)}[ \t]*(?:<[^<>\r\n]*>[ \t]*)?:",
    }
    return {k: regex.compile(v, regex.MULTILINE) for k, v in shapes.items()}


def kin_hint(lower_relations: Sequence[str]) -> re.Pattern[str]:
    """ "Mateo's mom": a possessive and a kin word (a plain ``re`` scan from the "'s")."""
    return re.compile(
        r"['’]s[ \t]+(?i:" + "|".join(sorted(map(re.escape, lower_relations), key=len, reverse=True)) + r")\b"
    )
