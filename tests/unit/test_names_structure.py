"""PERSON from the shape of a name word and the layout of a message: hyphenated given names
with a lower-case part ("Seo-yeon"), particles ("dela Cruz"), chat labels that are roles (never
names) and labels that are names in a transcript, "i am ...," on lower-case lines, records in
running text, vocative first lines, address blocks and signatures without a closing; and the
look-alikes of each that must stay unmasked."""

from __future__ import annotations

import functools
import random
import re

import pytest
from marks import found_values, marked_values

from scrubber import rulefile
from scrubber.detectors.names import NameDetector, layout, load_names, records
from scrubber.detectors.names.anchors import matches
from scrubber.detectors.names.shapes import may_start


@pytest.fixture(scope="module")
def detector() -> NameDetector:
    return NameDetector(load_names(rulefile.grammar_dir() / "names.yaml"))


WORD_SHAPE = [
    "Patient: [[Seo-yeon Kang]]",
    '{"name": "[[Min-jun Park]]"}',
    "Hi [[Hye-jin]],",
    "Name: [[Ji-woo P.]]",
    "Name: [[João Gonçalves]]",
    "my name is [[Łukasz Wiśniewski]]",
    "Dear [[Siobhán Ní Bhriain]],",
    "Hi [[Øyvind]],",
    "Name: [[Emre Aydın]]",
    "Name: [[Ñúñez Ramírez]]",
    "Name: [[Shaun O'Neill]]",
    "Hi [[N'Golo]],",
    "Dear Ms. [[D'Souza]],",
    "Name: [[Patrick McGillicuddy]]",
    "Name: [[Maricel dela Cruz]]",
    "Dear Mr. [[dela Cruz]],",
    "Name: [[Pieter van der Berg]]",
    "Name: [[Ana da Silva]]",
    "Name: [[Mohammed bin Salman]]",
    "Name: [[Khalid al-Farsi]]",
    "Name: [[Rana Al-Masri]]",
    "Name: [[Owen Lloyd-Jones]]",
]

TRANSCRIPTS = [
    "[[Luana Gonçalves]]: social ends in 6750\nAgent: thanks, one moment",
    "[[Avi P.]]: Good evening\nCustomer: hi\n[[Avi P.]]: how can I help?",
    "[[João]] (support): Good evening\nCustomer: hi",
    "[[Maricel V.]] (support): And the ZIP code?\nCustomer: 94110",
    "[[Noa]]: Hello, you're chatting with billing\nCustomer: hi, my card is blocked\n[[Noa]]: Let me check",
    "[[minh nguyen]]: my savings account number is 1234\nagent: ok",
    "[22:05] [[henrike schäfer]]: hello i need help\n[22:06] agent: sure",
    "[[Priya]]: are you there?\n[[Tom]]: yes\n[[Priya]]: great",
]

RUNNING_TEXT = [
    "sir i am [[dwayne brennan]], my birth date is 1/2/1980",
    "customer: this is [[joão]] from the accounts team",
    "it's under my husband's name, [[Yuting Liu]]",
    "account holder is [[Castañeda, Joaquín]] (my mother)",
    "name [[Colin Thorne]] dob 20/7/1968 ssn ends 5518",
    "Bureau pull requested for [[Igor Lebedev]], ssn 600-83-5783",
    'the parcel was signed by "[[Luana Albuquerque]]"',
    "i called dr. [[karagiannis]]'s office",
    "1. [[Henrike Vogt]] - passport U6104875, born 24.08.1974\n"
    "2. [[Tomas Berg]] - passport U6104876, born 24.08.1975",
]

MAIL = [
    "[[Marcus]],\n\nPlease find the invoice attached.",
    "[[Thu Trang]],\r\n\r\nyour order shipped.\r\n",
    "Delivery address:\n[[Ana Beatriz Souza]]\n42 Harbour Street\nLondon",
    "[[Ivo Petrov]]\nFlat 3, 27 Abbey Road\nLondon",
    "Thanks,\n\n[[Ruth Gordon]]",
    "See you then.\n\n[[João Pereira]]",
    "see attached\n\n[[Keiko Sato]]\nSenior Engineer",
    "see attached\n\n[[Keiko Sato]]\n-- \nSent from the Fjord office",
    "> Thanks,\n> [[João]]",
    # A full name over a contact line; closings in other languages.
    "I'd like to dispute a charge.\n\n[[Wanjiru Kamau]]\n+44 20 7183 8750",
    "see below.\n\n[[Jane Roe]]\nM: +1 415 555 0142",
    "Merci,\n[[Chloé Beaumont]]",
    "Bien à vous,\n[[Élodie Vermeulen]]",
    # ... and the warmer closings of friends and family: the closing is no name.
    "Transfer sent via MB WAY.\n\nBeijinhos,\n[[Rafaela]]",
    "New number from Monday.\n\nKlem,\n[[Solveig]]",
    "See you soon!\n\nxoxo,\n[[Maddie]]",
    "Mit freundlichen Grüßen\n[[Jürgen Vogt]]",
    # A last line that names the writer's team or job after a comma.
    "The audit is booked for March.\n\n[[Anneke Vos]], Senior Analyst",
    # A role, a relation or pronouns in brackets after a name; an ambiguous word there is one.
    "Present: Cllr [[Dunmore]], [[Will]] (clerk)\n\n1. The bins were accepted.",
    "Standup with [[Sam Okoro]] (they/them) at ten.",
    "Call [[Nadia]] (mum) when you land.",
    "Approved by: [[Maria Okafor]]\nDeliver to: [[Ana De La Cruz]]",
]


@pytest.mark.parametrize("marked", WORD_SHAPE + TRANSCRIPTS + RUNNING_TEXT + MAIL)
def test_names_by_shape_and_layout(detector: NameDetector, marked: str) -> None:
    text, names = marked_values(marked)
    assert found_values(detector, text) == names


NEGATIVE = [
    # Offices and desks over a contact line; opening hours.
    "see below.\n\nOrder Desk\n+44 20 7183 8750",
    "see below.\n\nOpening Hours\n09:00-17:00",
    # Chat roles, mistyped roles and handles are no names, with or without a time stamp.
    "[15:40] Advisor: Good evening\n[15:41] Customer: hi",
    "[09:15] Assistant: Hi!",
    "[07:43] Cust: hey there",
    "[07:43] Custmer: hey there",
    "Customeer: my card is blocked\nAgent: one moment",
    "[10:00] Operator: hello\n[10:00] Caller: hi\n[10:01] Visitor: hi\n[10:01] Client: hi\n"
    "[10:02] Guest: hi\n[10:02] Concierge: hi\n[10:02] Rep: hi\n[10:02] CSR: hi\n[10:02] Me: hi\n"
    "[10:02] User: hi\n[10:02] Support: hi\n[10:02] Bot: hi\n[10:02] support_bot: hi\n"
    "[10:02] guest_8812: hi",
    # Keys and headers that stand like labels.
    "Customer: Acme Corp\nDelivery Window: 2-4pm\nStatus: open",
    "GET /status HTTP/1.1\nHost: 0.0.0.0:8080\nUser-Agent: curl/8.4.0\nAccept: */*",
    'Traceback (most recent call last):\n  File "app/x.py", line 3',
    "Subject: Weekly Report\nDate: Monday\nPriority: high",
    # "i am ..." and "this is ..." that say no name.
    "I am Happy to help",
    "i am not sure",
    "i am calling about my bill",
    "i am happy, thanks",
    "this is ridiculous.",
    "it's fine.",
    "i'm good, thanks for asking",
    # Look-alikes in running text and streets.
    "Will you send it?",
    "May I ask something",
    "Grant access to the repo",
    "IT Service Desk",
    "I live at 12 oak dr. apt 3",
    "Premium Plan, account 4411 is active",
    # Mails that open or end without a name.
    "Hello,\n\nyour order shipped.",
    "Team,\n\ndeploy today.",
    "All,\n\nthe office is closed.",
    "Folks,\n\nplease update.",
    "Hi there,\n\nwelcome aboard.",
    "Regrads,\nsee you",
    "Ship to:\nHarbourline Shipping\n42 Harbour Street",
    "Order Summary\n2 Items",
    "Thanks for your order.\n\nAcme Support",
    "Thanks for your order.\n\nThe Harbourline Shipping Team",
    "please review.\n\nIT Service Desk\nHelp Center",
    "Call me tomorrow.\n\nOslo, Norway",
    "Agenda (draft) for Monday (chair) review",
    "Bring the Apple Watch (product) and the Dell (owner) manual.",
    # A key's value that names a role or a department.
    "Approved by: Director of Finance",
    "Deliver to: Goods In\nTruro depot",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_look_alikes_of_layout_names_stay_unmasked(detector: NameDetector, text: str) -> None:
    assert found_values(detector, text) == []


def test_a_closing_line_matched_without_slips_ends_where_the_slipped_pattern_ends(
    detector: NameDetector,
) -> None:
    # With a mistyped closing in the message, signatures() tries the exact closing pattern
    # first and keeps its match when the line ends in a mark no closing holds; the slipped
    # pattern alone must give the same matches, also where a closing runs over a line break.
    lex = detector.lex
    rnd = random.Random(31)
    parts = ["Best", "best", "regards", "regads", "Regardss", "Cheers", "yours", "your", "Thanks"]
    parts += ["Kind", "Sincerely", "-- ", "—", " ", "\t", "\n", "\r\n", "\n\n", ",", ".", "!", ">", "Ana"]
    exact, slipped = lex.exact.closing, lex.slipped.closing
    written = ["Best\nregads", "Best\n regads\nAna", "Best,\nregads", "Kind\nregads!\n", "your\n"]
    made = ["".join(rnd.choice(parts) for _ in range(rnd.randint(1, 10))) for _ in range(3000)]
    for text in written + made:
        starts = sorted({0} | {i + 1 for i, c in enumerate(text) if c == "\n"})
        first = (exact, functools.partial(layout._stopped, lex.closing_stops, text))
        alone = [m.span() for m in matches(slipped, text, starts, 5)]
        assert [m.span() for m in matches(slipped, text, starts, 5, first)] == alone, text


def test_the_words_after_me_comma_start_where_a_pattern_with_a_word_boundary_says() -> None:
    # records._after_me searches for "e," and looks back; it must find what the pattern
    # r"\bme,[ \t]*" (either case of "m") finds, left to right.
    pattern = re.compile(r"\b[Mm]e,[ \t]*")
    rnd = random.Random(37)
    parts = ["me,", "Me,", "mE,", "ME,", "e,", "m", " ", "\t", "_", "ç", "x", "1", "time, ", ","]
    for _ in range(5000):
        text = "".join(rnd.choice(parts) for _ in range(rnd.randint(1, 8)))
        assert list(records._after_me(text)) == [m.end() for m in pattern.finditer(text)], text


def test_chat_label_lines_are_those_a_reading_of_every_line_finds() -> None:
    # _label_lines finds the lines that open with "<" or "[" in one scan; a reading of each
    # line in turn must give the same starts.
    rnd = random.Random(41)
    parts = ["<Tom", "<tom", "<", "[10:42]", "[2024-06-01", "[1:", "[x", "\n", "\r\n", " ", "\t", ">", "> "]
    parts += ["hi", "Ana:", "]", "[", "<>"]
    for _ in range(5000):
        text = "".join(rnd.choice(parts) for _ in range(rnd.randint(1, 10)))
        plain: list[int] = []
        pos = 0
        for line in text.split("\n"):
            body = line.lstrip(" \t>")
            i = pos + len(line) - len(body)
            if (body[:1] == "<" and may_start(text, i + 1, False)) or (
                body[:1] == "[" and body[1:2].isdigit() and ":" in body[2:4]
            ):
                plain.append(pos)
            pos += len(line) + 1
        assert layout._label_lines(text) == plain, text
