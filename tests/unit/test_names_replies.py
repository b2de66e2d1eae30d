"""PERSON in replies to a question that asks for a name ("Agent: Who am I speaking with?" /
"Customer: Beatriz Souza"), after a relation with no comma on a line typed without capitals
("my husband donald will call you"); and chat labels that are a log's words ("[14:22]
Connection Reset: retrying"). With the look-alikes that must stay unmasked."""

from __future__ import annotations

import random
import re

import pytest

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.names import NameDetector, load_names, replies
from scrubber.detectors.names.lines import lines_holding


@pytest.fixture(scope="module")
def detector() -> NameDetector:
    return NameDetector(load_names(rulefile.grammar_dir() / "names.yaml"))


def _found(detector: NameDetector, marked: str) -> tuple[list[str], list[str]]:
    text = re.sub(r"\[\[(.+?)\]\]", r"\1", marked)
    want = sorted(set(re.findall(r"\[\[(.+?)\]\]", marked)))
    return sorted({text[f.start : f.end] for f in detector.detect(text, MessageContext())}), want


REPLIES = [
    "Agent: Who am I speaking with?\nCustomer: [[Beatriz Souza]]",
    "Agent: can I get your full name please?\nCustomer: it's [[marco de luca]]",
    "Agent: And the name on the account?\nCustomer: [[Priya Raman]].",
    "What name is the reservation under?\n> [[Okafor]]",
    "agent: who is this?\ncustomer: [[tomás ferreira]]",
    "[10:42] Agent: May I have your first and last name?\n[10:43] Customer: Sure, [[Hana Kobayashi]]",
    "Agent: Please confirm your full name.\nCustomer: yes, it's [[ingrid nilsen]]",
    "Agent: Who's calling?\nCustomer: Dr. [[Amit Patel]] here",
    "Agent: Whose name is the policy in?\nCustomer: [[Nakamura, Kenji]]",
    "Agent: What's the name on the card?\nCustomer: [[OLUWASEUN ADEBAYO]]",
    "Agent: Can I take your name?\nCustomer: under [[Lindqvist]] :)",
    # A reply that says no name leaves the next line to look at; the asker's lines are skipped.
    "Agent: Who am I speaking with?\nCustomer: one sec\nCustomer: [[Beatriz]]",
    "Agent: What's your full name?\nAgent: It is for verification.\nCustomer: [[Rui Costa]]",
    # CRLF line ends.
    "Agent: your name please?\r\nCustomer: [[Siobhan Kelly]]\r\n",
]

NOT_REPLIES = [
    "Agent: Who am I speaking with?\nCustomer: I don't remember",
    "Agent: Who am I speaking with?\nCustomer: Why do you need it?",
    "agent: what's your full name?\ncustomer: the account is under my company",
    "agent: what's your full name?\ncustomer: why?",
    "Agent: What name is the account under?\nCustomer: Acme Corp",
    "Agent: What name is the account under?\nCustomer: 48213377",
    "Agent: Can I get your name?\nCustomer: hold on",
    "Agent: Can I get your name?\nCustomer: Sure thing",
    "Agent: Can I get your name?\nCustomer: Sorry?",
    "agent: can i get your name?\ncustomer: not sure",
    "agent: can i get your name?\ncustomer: same as before",
    # The asker's own next line, a third line, a line without a label in a transcript.
    "Agent: Who am I speaking with?\nAgent: Nadia",
    "Agent: What's your name?\nCustomer: hmm\nCustomer: wait\nCustomer: Beatriz",
    "Agent: What's your name?\nBeatriz",
    # Lines that do not ask for a name.
    "Agent: What's the name of the product?\nCustomer: Galaxy",
    "Agent: I updated your name on file.\nCustomer: Thanks",
    "Agent: Your full name is on the invoice.\nCustomer: Great",
    "Please enter your full name\nSubmit",
    "Customer: which plan is this?\nAgent: Premium",
]

KIN = [
    "my husband [[donald]] will call you",
    "my daughter [[emma]] needs a refill",
    "customer: my son [[tyler]] is locked out of the account",
    "Customer: my wife [[mei lin]] has the card",
    "our grandma [[rosa]] wasn't home when it arrived",
    "my best friend [[kofi]] ordered it for me",
]

NOT_KIN = [
    "my husband just called",
    "my husband and i will call",
    "my husband who is on the account will call",
    "my son phone is broken",
    "my wife actually has the card",
    "my husband usually is home by six",
    "my daughter teacher is asking",
    "my mom also has an account",
    "my husband works from home",
    "my husband called yesterday",
    "my son never got the email",
    "my husband's card was declined",
    "my daughter recently had surgery",
    "my husband always pays the bill",
    "my friend code is 1234",
    "my driver license is expired",
    "my doctor appointment was moved",
    "my husband set it up",
    "My husband will call you",
]

# Lower-case text after a capitalised speaker label counts as a line without capitals; a name in
# running text found without capitals is none of the common words.
LOWER = [
    "Customer: my name is [[marco de luca]]",
    "Customer: can i speak with [[owen rahman]]?",
    "Customer: my mother, [[katie garcia]], is the account holder",
    "can i talk to [[marisol]] please",
]

NOT_LOWER = [
    "my name is on the account",
    "Customer: my name is on the account",
    "agent: my name is not showing",
    "my name is spelled wrong on the card",
    "Customer: i was talking to my husband about it",
]

LABELS = [
    "[09:15] [[Ahmed Raza]]: is anyone there?",
    "[10:42] [[Priya Shah]]: hi, my order is late",
    "[3:07 PM] [[Julia Becker]]: the connection keeps dropping",
]

NOT_LABELS = [
    "[14:22] Connection Reset: retrying",
    "[09:00] Nightly Backup: completed",
    "[14:23] Cache Warmup: started",
    "[11:02] Health Check: ok",
    "[08:30] Kafka Consumer: lagging",
    "[16:45] Disk Quota: exceeded",
    "[14:22] Upstream Timeout: retrying in 5s",
]


@pytest.mark.parametrize("marked", REPLIES + KIN + LOWER + LABELS)
def test_finds_the_name(detector: NameDetector, marked: str) -> None:
    got, want = _found(detector, marked)
    assert got == want


@pytest.mark.parametrize("text", NOT_REPLIES + NOT_KIN + NOT_LOWER + NOT_LABELS)
def test_finds_no_name(detector: NameDetector, text: str) -> None:
    assert [text[f.start : f.end] for f in detector.detect(text, MessageContext())] == []


def test_questions_and_attributions_are_found_line_by_line_as_over_the_whole_text(
    detector: NameDetector,
) -> None:
    # Only the lines with a piece of a question or of an attribution verb are searched: every
    # one must still be found, in the same order.
    lex = detector.lex
    rnd = random.Random(29)
    parts = ["what is your full name?", "WHO AM I SPEAKING WITH", "Name on file", "who's\tcalling"]
    parts += ["name", "who", "your", "\n", "\r\n", " ", "\t", "?", "'", "İ", "x", "Agent: ", "surname"]
    parts += ["Trevor Blackwood wrote:", "wrote", "schrieb", " a écrit :", "ha scritto:", ":", "escribió"]
    texts = ["".join(rnd.choice(parts) for _ in range(rnd.randint(1, 14))) for _ in range(3000)]
    for text in texts:
        whole = [m.span() for m in lex.asks.finditer(text)]
        assert [m.span() for m in replies._asked(lex, text, 5)] == whole, text
        whole = [m.span() for m in lex.wrote.finditer(text)]
        lined = [
            m.span() for a, b in lines_holding(text, lex.wrote_gate) for m in lex.wrote.finditer(text, a, b)
        ]
        assert lined == whole, text
        # The lines holding a piece are those a plain reading of every line finds.
        plain: list[tuple[int, int]] = []
        pos = 0
        for line in text.split("\n"):
            if any(p in line for p in lex.wrote_gate):
                plain.append((pos, pos + len(line)))
            pos += len(line) + 1
        assert lines_holding(text, lex.wrote_gate) == plain, text
