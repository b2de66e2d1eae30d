"""The name model: names without an announcing phrase, and the look-alikes it must leave alone."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
import yaml

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.names import build
from scrubber.detectors.names import model as model_module
from scrubber.detectors.names.model import (
    Candidate,
    Lexeme,
    NameModel,
    NameModelDetector,
    load_model,
    pack,
    read_lexicon,
    unpack_many,
)
from scrubber.engine import Scrubber
from scrubber.findings import Finding

CORPORA = Path(__file__).resolve().parent.parent / "data" / "corpora"


@pytest.fixture(scope="module")
def detector() -> NameModelDetector:
    return NameModelDetector(load_model())


def names(detector: NameModelDetector, text: str) -> list[str]:
    return [text[f.start : f.end] for f in detector.detect(text, MessageContext())]


# Written for these tests, in shapes the rules do not announce.
FOUND = [
    ("Customer John Smith called about his refund.", ["John Smith"]),
    ("user Jane Doe logged in from the new laptop", ["Jane Doe"]),
    ("I met Maria Gonzalez at the store yesterday", ["Maria Gonzalez"]),
    ("Okafor, Lindqvist and Brandt founded the company in 2009", ["Okafor", "Lindqvist", "Brandt"]),
    ("Have you read Yefremova's new novel?", ["Yefremova"]),
    ("follow up with patricia desrosiers next month", ["patricia desrosiers"]),
    ("wow emma and chloe are so funny tonight", ["emma", "chloe"]),
    ("Siobhan Gallagher listed her favourite albums of the year", ["Siobhan Gallagher"]),
    ("The report was reviewed by Mr. Adeyemi last week", ["Adeyemi"]),
]


@pytest.mark.parametrize(("text", "expected"), FOUND)
def test_names_without_a_cue(detector: NameModelDetector, text: str, expected: list[str]) -> None:
    assert names(detector, text) == expected


LEFT_ALONE = [
    "May I ask when the parcel ships?",
    "Will you bill me later or now?",
    "Grace period ends on Monday, June 3",
    "ERROR UserService: connection refused by PaymentGateway",
    "We flew to Paris in April and stayed near the Louvre",
    "Apple released a new iPhone and the Samsung Galaxy sold out",
    "The parade goes down Martin Luther King Jr Blvd at noon",
    "The parade goes down Martin Luther King Jr Blvd, expect closures from 9 to 2",
    "I live at 12 Elm Street, Raleigh, NC 27601",
    "We're moving the office to San Francisco next spring",
    "Thu Mar 14 10:22:31 UTC 2024 kernel: eth0 link up",
    "mail sofia.duarte@example.com or see /home/omar/notes for the key",
    "Don't forget: she'd said they'll call back",
    "Eid falls on a Tuesday, so Diwali cover is the week after",
    # words drawn out for emphasis
    "Awwww that is so sweet, Sooooo happy for you",
    "NOOOOO WAYYYY this is real",
    "honestly Yessss, Beyoooond excited for the tour",
    "YASSSS the new season is out",
    # a company named in the possessive
    "McDonald's in the station is open 24/7 now btw",
    "Trader Joe's had the good hummus again",
]


@pytest.mark.parametrize("text", LEFT_ALONE)
def test_look_alikes_are_left_alone(detector: NameModelDetector, text: str) -> None:
    assert names(detector, text) == []


def exhaustive(detector: NameModelDetector, text: str) -> list[Finding]:
    """Every word scored, no shortcut: what ``detect`` must find (with a word read in one sense
    through the message, as ``find`` reads it)."""
    scored = [(c, detector.model.score(c.features)) for c in detector.candidates(text)]
    return model_module._one_sense(text, list(detector._runs(text, scored)), detector.model)


@pytest.mark.parametrize("corpus", ["inhouse-a", "inhouse-b", "inhouse-c", "inhouse-d"])
def test_shortcuts_find_what_scoring_every_word_finds(detector: NameModelDetector, corpus: str) -> None:
    with (CORPORA / f"{corpus}.jsonl").open(encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()]
    differ = [t for t in texts if detector.find(t) != exhaustive(detector, t)]
    assert differ == []


def test_what_the_detector_remembers_of_words_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # A small memory, filled and emptied many times over, and messages longer than it.
    with (CORPORA / "inhouse-a.jsonl").open(encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()]
    texts.append(" ".join(texts[:40]))
    fresh = [NameModelDetector(load_model()).find(t) for t in texts]
    monkeypatch.setattr(model_module, "WORDS_MAX", 64)
    remembering = NameModelDetector(load_model())
    for _ in range(2):
        assert [remembering.find(t) for t in texts] == fresh
    assert len(remembering._seed_words) + len(remembering._other_words) <= 64
    assert len(remembering._shapes) <= 64 and len(remembering._lexicals) <= 64


def test_a_name_never_spans_lines(detector: NameModelDetector) -> None:
    text = "Regards,\nPriya\nRaman Industries"
    for f in detector.find(text):
        assert "\n" not in text[f.start : f.end]


# A word mostly written in lower case ends no capitalised name: "von" after a German noun
# that opens a subject; a surname typed in lower case still does.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Rückruf von anna@example.com", []),
        ("Termin von Anna Weber", ["Anna Weber"]),
        ("ask Kwame mensah about it", ["Kwame mensah"]),
        # nor starts one when no list knows it (a slip), and what is left stands
        ("The account is undre Sarah Kirk.", ["Sarah Kirk"]),
        ("every reunion, tita Bituin asks about my love life", ["Bituin"]),
    ],
)
def test_a_lower_case_word_ends_no_name(detector: NameModelDetector, text: str, expected: list[str]) -> None:
    assert names(detector, text) == expected


# A word means one thing in one message: a town's name that stands after "in" elsewhere in
# it is the town there too, and so is one joined to it by "or"; "to" and "from" go before
# people as well and say nothing; nor does a possessive.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Leeds or Bristol for the new depot? Parking is cheaper in Bristol", []),
        ("Lincoln has the lowest rents, and we already have staff in Lincoln.", []),
        ("send the deck to Austin and Priya before noon", ["Austin", "Priya"]),
        ("Austin called twice, the forms are in Austin's tray", ["Austin"]),
        # a state code typed in lower case, before its ZIP code
        ("customer: i live at 39 lake terrace, atlanta, ga 30362.", []),
        # "into", and the "in" of other languages, go before places only
        ("we're flying into Victoria, then Victoria to Vancouver by ferry", []),
        ("llámame mañana, estoy en Valencia y Valencia tiene buen tiempo", []),
    ],
)
def test_a_place_named_as_one_elsewhere_is_no_person(
    detector: NameModelDetector, text: str, expected: list[str]
) -> None:
    assert names(detector, text) == expected


# Ordinary words and single letters joined by hyphens, or an ordinary word written with one,
# are ordinary words; names joined by a hyphen are no such thing.
@pytest.mark.parametrize(
    ("word", "ordinary"),
    [
        ("Wi-Fi", True),
        ("USB-C", True),
        ("E-Mail", True),
        ("Back-off", True),
        ("Mary-Kate", False),
        ("Jean-Luc", False),
    ],
)
def test_hyphened_words(word: str, ordinary: bool) -> None:
    model = load_model()
    f = model_module.lexical(word, "cap", model.lexicon, model.words)
    assert ("ordinary" in f) is ordinary


# Words run together in camel case are ordinary when every part is mostly written in lower
# case: class and product names, not "McDonald" or "DeShawn".
@pytest.mark.parametrize(
    ("word", "ordinary"),
    [
        ("PaymentGateway", True),
        ("UsersController", True),
        ("StatusPage", True),
        # a type or product that ends in an ordinary word, whatever its first part
        ("KafkaConsumer", True),
        ("RedisClient", True),
        ("McDonald", False),
        ("MacKenzie", False),
        ("DeShawn", False),
        ("LaToya", False),
    ],
)
def test_camel_case_words(word: str, ordinary: bool) -> None:
    model = load_model()
    f = model_module.lexical(word, "cap", model.lexicon, model.words)
    assert ("ordinary" in f) is ordinary


# A short word in capitals that no list knows is an acronym on a line written in both cases;
# on a line that shouts, and when a list knows it, it may still be a name.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("can I pay with JCB? the card ends in 4471", []),
        ("in line with CPI + 3.9% from April", []),
        ("SIRET and VAT are on the attached invoice", []),
        ("Processing by UsersController#create as HTML", []),
        ("Billing::InvoicesController was called by Webhooks::Stripe", []),
        # an acronym after a capitalised part, and three capitals a list knows as a name
        ("Started OpenBSD Secure Shell server.", []),
        ("switched from MySQL to Postgres last week", []),
        ("my console shows NAT type 3 and the SHA of the build", []),
        ("THANK YOU NGOZI FOR THE RECIPE", ["NGOZI"]),
        ("Well, THANKS OKAFOR! you saved the day", ["OKAFOR"]),
    ],
)
def test_acronyms_and_code_are_no_names(detector: NameModelDetector, text: str, expected: list[str]) -> None:
    assert names(detector, text) == expected


def test_doubled_letters_are_a_names_own(detector: NameModelDetector) -> None:
    # Two letters running are a spelling ("Aaron", "Llewellyn"); three are emphasis.
    assert names(detector, "thanks Aaron and Llewellyn for the lift") == ["Aaron", "Llewellyn"]


def test_a_capital_inside_a_sentence_is_no_typing_slip(detector: NameModelDetector) -> None:
    # "Shima" is "shim" with a letter too many, but a slip is not capitalised mid-sentence;
    # at a line's start it may be ("Custmer: ...").
    assert names(detector, "honestly the best bit was when Shima showed up late") == ["Shima"]
    assert names(detector, "Custmer says the parcel never came") == []


def test_a_sentence_start_needs_more(detector: NameModelDetector) -> None:
    # A capital opening a sentence is no mark of a name: "Sydney" scores over the threshold
    # there, but under the start's.
    model = detector.model
    assert model.threshold < model.threshold_at_start
    text = "Sydney is two hours ahead of Perth"
    (sydney,) = [c for c in detector.candidates(text) if text[c.start : c.end] == "Sydney"]
    assert model.threshold <= model.score(sydney.features) < model.threshold_at_start
    assert names(detector, text) == []


def test_a_typing_slip_of_a_lower_case_word_is_no_name(detector: NameModelDetector) -> None:
    # "graant" is "grant" mistyped; "grant" is a name too, but mostly written in lower case.
    assert names(detector, "can you graant me access to the shaared folder") == []
    assert names(detector, "can you gratn me access to the folder") == []


# Particles between a known name word and a capitalised one join them in one name; "y" and
# "e" mean "and".
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mateus da Silva Pereira asked for a copy", ["Mateus da Silva Pereira"]),
        ("Ana y Pedro Okafor llegaron tarde", ["Pedro Okafor"]),
        ("we played Ludwig van Beethoven all night", ["Ludwig van Beethoven"]),
        ("Rückruf von Anna Weber", ["Anna Weber"]),
    ],
)
def test_particles_join_two_names(text: str, expected: list[str]) -> None:
    found = Scrubber().scrub(text).findings
    assert [text[f.start : f.end] for f in found if f.entity == "PERSON"] == expected


def test_a_greeting_does_not_join_the_name() -> None:
    text = "Hallo Jörg Müller, bitte rufen Sie an"
    found = Scrubber().scrub(text).findings
    assert [text[f.start : f.end] for f in found if f.entity == "PERSON"] == ["Jörg Müller"]


def test_a_run_over_another_value_is_dropped(detector: NameModelDetector) -> None:
    text = "Customer Maria Okafor called"
    email = [Finding(9, 21, "EMAIL_ADDRESS", 0.95, "pattern:email")]
    assert detector.detect(text, MessageContext(kept=email)) == []
    rule = [Finding(15, 21, "PERSON", 0.85, "names:recurring")]
    assert [text[f.start : f.end] for f in detector.detect(text, MessageContext(kept=rule))] == [
        "Maria Okafor"
    ]


def test_possessive_and_contractions(detector: NameModelDetector) -> None:
    assert names(detector, "I think Okonkwo's goal was the best of the night") == ["Okonkwo"]
    assert names(detector, "dont worry, i'm sure it'll be fine, we've got time") == []


def test_the_weights_are_those_their_corpora_give() -> None:
    # name_weights.yaml is generated: fitting again on the corpora its header names gives it
    # back, so that a change of features or corpora without a refit shows here.
    root = rulefile.grammar_dir()
    text = (root / "name_weights.yaml").read_text(encoding="utf-8")
    header = next(line for line in text.splitlines() if "tests/data/corpora/" in line)
    repo = root.parent
    corpora = [repo / m for m in re.findall(r"tests/data/corpora/[\w.-]+\.jsonl", header)]
    assert len(corpora) >= 4
    weights, _, _ = build.refit(root, corpora)
    committed = yaml.safe_load(text)["weights"]
    assert weights.keys() == committed.keys()
    assert all(abs(weights[k] - committed[k]) < 2e-4 for k in weights), [
        (k, weights[k], committed[k]) for k in weights if abs(weights[k] - committed[k]) >= 2e-4
    ]


def test_scores_stay_under_the_rules() -> None:
    found = NameModelDetector(load_model()).find("Customer John Smith called about his refund.")
    assert found and all(0.6 <= f.score <= 0.8 for f in found)


def test_scrubbing_twice_changes_nothing() -> None:
    s = Scrubber()
    once = s.scrub("Customer John Smith called, then Maria Gonzalez wrote back").text
    assert "John" not in once and "Maria" not in once
    assert s.scrub(once).text == once


def test_packed_statistics_read_back() -> None:
    import numpy as np

    columns = {
        "proper": np.array([2.7, -3.6, 0.0]),
        "given": np.array([1.0, 1.0, 0.0]),
        "surname": np.array([0.0, 1.0, 1.0]),
        "cluster": np.array([1.2, -3.6, np.nan]),
        "common": np.array([0.58, 1.48, 0.0]),
        "mixed_cluster": np.array([0.0, 1.0, 0.0]),
    }
    codes = pack(columns)
    back = unpack_many(codes)
    for name, values in columns.items():
        assert np.allclose(np.nan_to_num(back[name], nan=-99), np.nan_to_num(values, nan=-99), atol=0.051)
    one = Lexeme.unpack(int(codes[2]))
    assert one.cluster is None and one.surname and not one.given


def test_lexical_bound_matches_the_features() -> None:
    """The array formula that marks which words can be scored equals the per-word features."""
    model = load_model()
    import numpy as np

    words = sorted(model.lexicon.names)[::997]
    codes = np.array([model.lexicon.names[w] & ((1 << 27) - 1) for w in words], dtype=np.int64)
    from scrubber.detectors.names.model import lexical

    for kind, shape in (("cap", str.capitalize), ("upper", str.upper), ("low", str.lower)):
        fast = model.lexical_scores(words, codes, kind)
        slow = [
            model.linear(lexical(shape(w), kind, model.lexicon, model.words, model.famous, model.places))
            for w in words
        ]
        extra = max(0.0, model.weights.get("inner_capital", 0.0)) if kind == "cap" else 0.0
        assert np.allclose(fast, np.array(slow) + extra)


def test_missing_context_is_a_rule_error(tmp_path: Path) -> None:
    (tmp_path / "name_model.yaml").write_text(
        "threshold: 0.6\nextend: 0.3\nlone_word_context: 0.5\ncontext: {titles: [mr]}\n"
    )
    with pytest.raises(rulefile.RuleError, match="place_before"):
        load_model(tmp_path)


def test_bad_model_files_are_rule_errors(tmp_path: Path) -> None:
    root = tmp_path
    context = "context: {titles: [], place_before: [], person_before: [], dates: [], place_words: [],"
    context += " place_starts: [], companies: [], bare_contractions: [], second_person: []}\n"
    (root / "name_weights.yaml").write_text("weights: {bias: 0.0}\n")
    (root / "name_model.yaml").write_text("threshold: 0.2\nextend: 0.5\nlone_word_context: 0.5\n" + context)
    with gzip.open(root / "name_lexicon.tsv.gz", "wt") as f:
        f.write("emma\t2.7\t1\t0\t1.2\t0.58\t0\n")
    with pytest.raises(rulefile.RuleError, match="extend <= threshold"):
        load_model(root)
    # a sentence's start needs at least what the rest of it needs
    (root / "name_model.yaml").write_text(
        "threshold: 0.6\nthreshold_at_start: 0.5\nextend: 0.3\nlone_word_context: 0.5\n" + context
    )
    with pytest.raises(rulefile.RuleError, match="threshold <= threshold_at_start"):
        load_model(root)
    (root / "name_model.yaml").write_text("threshold: 0.6\nextend: 0.3\nlone_word_context: 0.5\n" + context)
    with gzip.open(root / "name_lexicon.tsv.gz", "wt") as f:
        f.write("emma\t2.7\t1\n")
    with pytest.raises(rulefile.RuleError, match="name lexicon"):
        load_model(root)
    with gzip.open(root / "name_lexicon.tsv.gz", "wt") as f:
        f.write("emma\t2.7\t1\t0\t1.2\t0.58\t0\n")
    with pytest.raises(rulefile.RuleError, match="famous names"):
        load_model(root)  # no name_famous.txt.gz
    with gzip.open(root / "name_famous.txt.gz", "wt") as f:
        f.write("# words\nobama\n")
    with pytest.raises(rulefile.RuleError, match="place names"):
        load_model(root)  # no name_places.txt.gz
    with gzip.open(root / "name_places.txt.gz", "wt") as f:
        f.write("# words\nvalencia\n")
    with gzip.open(root / "name_classes.tsv.gz", "wt") as f:
        f.write("# word\tclass\nsaid\tfifty-two\n")
    with pytest.raises(rulefile.RuleError, match="word classes"):
        load_model(root)


def test_ordinary_and_unknown_words(tmp_path: Path) -> None:
    with gzip.open(tmp_path / "lex.tsv.gz", "wt") as f:
        f.write("# word\tstatistics\nemma\t2.7\t1\t0\t1.2\t0.58\t0\n# ordinary\ntable\nwindow\n")
    lex = read_lexicon(tmp_path / "lex.tsv.gz")
    assert lex.get("emma") is not None and lex.get("table") is None
    assert lex.ordinary("table") and lex.ordinary("window") and not lex.ordinary("kaite")
    model = NameModel(lex, load_model().words, {"bias": 0.0}, threshold=0.6, extend=0.3)
    cands: list[Candidate] = NameModelDetector(model).candidates("Table Emma Kaite")
    assert [("ordinary" in c.features, "unknown" in c.features) for c in cands] == [
        (True, False),
        (False, False),
        (False, True),
    ]


def test_a_town_before_its_postcode_is_no_name(detector: NameModelDetector) -> None:
    # The postcode as another detector found it, as the label scrubbing wrote, as a pseudonym.
    text = "the booklet goes to Flat 6, 14 Clarendon Road, Cheltenham GL52 2LQ."
    zip_code = Finding(text.index("GL52"), text.index("GL52") + 8, "ZIP_CODE", 0.9, "pattern:postcode")
    ctx = MessageContext(kept=[zip_code])
    assert [f for f in detector.detect(text, ctx) if text[f.start : f.end] == "Cheltenham"] == []
    for scrubbed in (
        "the booklet goes to [STREET_ADDRESS], Cheltenham [ZIP_CODE].",
        "the booklet goes to <STREET_ADDRESS:0a1b2c3d>, Cheltenham <ZIP_CODE:4e5f6a7b>.",
        "ship it to [STREET_ADDRESS], Ravensworth, IL [ZIP_CODE] please",
    ):
        assert names(detector, scrubbed) == []
    # A name before anything else stays a name.
    assert names(detector, "the booklet goes to Siobhan Gallagher [PHONE_NUMBER].") == ["Siobhan Gallagher"]


def test_scrubbing_an_address_twice_leaves_the_town() -> None:
    engine = Scrubber()
    once = engine.scrub("the booklet goes to Flat 6, 14 Clarendon Road, Cheltenham GL52 2LQ.").text
    assert once == "the booklet goes to [STREET_ADDRESS], Cheltenham [ZIP_CODE]."
    assert engine.scrub(once).text == once


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a legal form or partners after names make a firm
        ("Lindblom Lindberg AB just renewed for 109 seats", []),
        ("the invoice from Nilsson & Strandberg AB is overdue", []),
        ("Mendoza and Sons moved the demo to Sunday", []),
        ('lead created company="Colletti, Liverotti e Antelami e figli"', []),
        ("the quote for Carter, Powell and Reeves LLP went out", []),
        ("the card was the one from Remigio Mir Montesinos S.L.", []),
        # a person at a firm, a person and her sons, a shouted line: persons
        ("Regards, Ingrid Holmqvist, Acme Ltd", ["Ingrid Holmqvist"]),
        ("Marisol and her sons are visiting", ["Marisol"]),
        ("DAVIDE YOU OWE ME PIZZA", ["DAVIDE"]),
    ],
)
def test_firms_named_after_people(detector: NameModelDetector, text: str, expected: list[str]) -> None:
    assert names(detector, text) == expected


@pytest.mark.parametrize(
    ("text", "scrubbed"),
    [
        # a capitalised noun that is no name after a surname: a company, in a sentence or as a
        # mail's last line
        ("If Pemberton Energy calls about your meter, hang up.", None),
        ("The flat is listed with Okonjo Property Group, viewing on Friday.", None),
        ("Welcome to Fairbanks Analytics, Tomas!", "Welcome to Fairbanks Analytics, [PERSON]!"),
        ("Your policy renews next week.\n\nHalvorsen Mutual", None),
        ("Read it and call us.\n\nLindqvist Telecom", None),
        # a field's label with its value after the name is no company's word; a cue's context
        # (a record, a key) outweighs the word after the name
        ("Customer: Maria Lopez Account 4411 closed", "Customer: [PERSON] Account 4411 closed"),
        ("Name: John Smith Address: 12 Oak Street", "Name: [PERSON] Address: [STREET_ADDRESS]"),
        # capitalised words of other kinds, and surnames that are nouns too, leave the name
        ("Thanks Dmitri Great work on the release", "Thanks [PERSON] Great work on the release"),
        ("Lunch with Maria Tomorrow at noon?", "Lunch with [PERSON] Tomorrow at noon?"),
        ("Canelo Vs Golovkin tonight, who wins?", "[PERSON] Vs [PERSON] tonight, who wins?"),
        ("I spoke to Linda White about the invoice", "I spoke to [PERSON] about the invoice"),
        ("See you then.\n\nMartin King", "See you then.\n\n[PERSON]"),
        # a last line with the writer's team after a comma; an ordinary word there is no name
        (
            "Her refund went out this morning.\n\nTore, Billing",
            "Her refund went out this morning.\n\n[PERSON], Billing",
        ),
        ("See the attached figures for Q3.\n\nRevenue, Finance", None),
        # ... and needs no blank line above it; a team's acronym counts.
        ("Your payslip is attached.\nTore Berg, HR", "Your payslip is attached.\n[PERSON], HR"),
        ("The ticket is closed.\nNele, IT Service Desk", "The ticket is closed.\n[PERSON], IT Service Desk"),
        # what comes right after "my", "our" is a thing one has; a kin word between keeps a name
        ("Hi, our Skoda Octavia was booked in at the garage", None),
        ("Our Breville kettle arrived cracked", None),
        ("the finale had my tía Ofelia screaming", "the finale had my [PERSON] screaming"),
    ],
)
def test_the_words_after_a_name_say_whether_it_is_a_person_or_a_company(
    text: str, scrubbed: str | None
) -> None:
    assert Scrubber().scrub(text).text == (text if scrubbed is None else scrubbed)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # German capitalises every noun; there a capital alone says nothing
        ("Meine neue Telefonnummer lautet 06872 965290, bitte im Kundenkonto ändern.", []),
        ("Die Sendungsverfolgung zeigt seit Montag keinen Fortschritt.", []),
        # an unknown word in lower case in another language is no name
        ("Dzień dobry,\n\nprosimy o kontakt w sprawie zamówienia.\n\nPozdrawiamy,\nzespół", []),
        # names the lists know, or after a title, are still found there
        ("Hallo, hier ist Monja Anders. Bitte rufen Sie mich an.", ["Monja Anders"]),
        ("Sehr geehrte Frau Pärtzelt, vielen Dank für Ihre Nachricht.", ["Pärtzelt"]),
        ("Gentile Sig.ra Winther, la sua richiesta è stata ricevuta e grazie per la pazienza.", ["Winther"]),
        # an English line with a German word or two is English
        ("Thanks, I told Okonkwo the Kundenkonto page is down", ["Okonkwo"]),
    ],
)
def test_lines_in_other_languages(detector: NameModelDetector, text: str, expected: list[str]) -> None:
    assert names(detector, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # a trade's or a site's word after the name
        "Thanks for being with Fairbairn Telecom.",
        "An engineer from Whitfield Plumbing & Heating will need access.",
        "Accounts Receivable, Moreau Recruitment",
        "1. Lift repair quote from Thibodeau Brothers: $2327.97. Approved.",
        "Your parcel is held at our Nelson depot.",
        # streets whose type comes first, and holidays
        "omw! stuck behind a bin lorry on Avenida da Liberdade",
        "We're on Via del Corso now, parking is a nightmare",
        "Our surgery on Nevsky Prospekt will be closed on Corpus Christi.",
        "the helpdesk is closed on Whit Monday and reopens on Wednesday",
        # a program's words
        "2026-07-14T04:27:57.480Z DEBUG TrackingPoller - carrier=royalmail state=OUT",
        "WARN  PaymentReconciler - reference matched no card transaction",
        "user_id,plan,seats,mrr,renewal",
    ],
)
def test_businesses_sites_streets_and_code_words_are_no_persons(
    detector: NameModelDetector, text: str
) -> None:
    assert names(detector, text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call Ronald McDonald or DeShawn Jackson today", ["Ronald McDonald", "DeShawn Jackson"]),
        ("spoke to Tomasz Nowak from Nowak Plumbing today", ["Tomasz Nowak"]),
        ("lol glyn and lynn are here", ["glyn", "lynn"]),
        ("Sarah Hill and Tom Green joined", ["Sarah Hill", "Tom Green"]),
        ("Anna Finance asked for the invoice", ["Anna"]),  # "Finance" is not in firm_words
    ],
)
def test_names_beside_those_words_stay_names(
    detector: NameModelDetector, text: str, expected: list[str]
) -> None:
    assert names(detector, text) == expected


def test_readme_firms_and_other_languages(detector: NameModelDetector) -> None:
    # README, "Names no phrase announces": its examples of firms and of lines in other languages
    for text in (
        "The contract with Nilsson & Strandberg AB ends in May.",
        "the retainer for Carter, Powell and Reeves LLP is due",
        "Mendoza and Sons moved the demo to Sunday.",
        "Meine neue Telefonnummer lautet 0176 5550123, bitte ändern.",
    ):
        assert names(detector, text) == [], text
    assert names(detector, "Sehr geehrte Frau Pärtzelt, vielen Dank für Ihre Nachricht.") == ["Pärtzelt"]


@pytest.mark.parametrize(
    ("text", "town"),
    [
        ("Kvarngatan 8\nWest Andreaberg", "West Andreaberg"),  # the town on the line after a street
        ("Ship to:\nSevican Arslan\n7 Shane Viaduct\nWest Dale\nW17 1NE", "West Dale"),
        ("ship to Studio 28, Nicholson Forge, West Mauriceland, N6J 5AB", "West Mauriceland"),
        # ... and after its label, scrubbed again
        ("[STREET_ADDRESS]\nWest Andreaberg\n[ZIP_CODE]", "West Andreaberg"),
        ("[STREET_ADDRESS], Andreaberg, [ZIP_CODE]", "Andreaberg"),
    ],
)
def test_the_town_after_a_street_is_no_person(text: str, town: str) -> None:
    scrubbed = Scrubber().scrub(text).text
    assert town in scrubbed and "[STREET_ADDRESS]" in scrubbed, scrubbed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the value of a label or a key that names a thing holds a firm's or a place's name
        (
            "Name: Ogooluwa Olusanya\nCompany: Carter, Powell and Reeves\nTitle: Scientist",
            ["Ogooluwa Olusanya"],
        ),
        ('lead created name="Mairead Foley" company="Gabinety Brzykcy" phone=+55 54', ["Mairead Foley"]),
        ('shipment status=IN_TRANSIT location="Lugo" eta=2027-04-27', []),
        # a person's label after it is a person's again
        ("Company: Brzykcy Ltd, Contact: Maria Lopez", ["Maria Lopez"]),
        ("  - Employer: Wilson Haulage", []),
        ("name: Lena Park | company: Carter Powell", ["Lena Park"]),
        # a sentence's word before a colon labels nothing
        (
            "The seating plan: Esther Olsson and Jonatan Karlsson at table 4.",
            ["Esther Olsson", "Jonatan Karlsson"],
        ),
        ("A word from the warehouse: the box for Umaarah Saajid came back.", ["Umaarah Saajid"]),
    ],
)
def test_the_value_of_a_things_field_is_no_person(text: str, expected: list[str]) -> None:
    assert [
        text[f.start : f.end] for f in Scrubber().scrub(text).findings if f.entity == "PERSON"
    ] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Feb 23 05:51:54 dhcpd[26571]: DHCPACK on 172.18.231.38 via eth0", []),
        ("Received: from mail.example.org by mx.example.net with ESMTPS", []),
        # a name in capitals has vowels
        ("Name as in passport: WÓJCIK, AGNIESZKA", ["WÓJCIK", "AGNIESZKA"]),
    ],
)
def test_long_words_in_capitals_without_vowels(
    detector: NameModelDetector, text: str, expected: list[str]
) -> None:
    assert names(detector, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a given name in lower case after a greeting that opens a line, in text with capitals
        (
            "Hi alex,\n\nthanks for registering. Your contact on file is Filippa Maccanelli.",
            ["alex", "Filippa Maccanelli"],
        ),
        ("Thank you priya!", ["priya"]),
        # not an ordinary word, a name mostly written in lower case, or a month
        ("Hi all,\nplease see below", []),
        ("Hey buddy!", []),
        ("Hi june, Hi bill, thanks", []),
    ],
)
def test_a_given_name_in_lower_case_after_a_greeting(
    detector: NameModelDetector, text: str, expected: list[str]
) -> None:
    assert names(detector, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a part of a name found in full names the same person where it stands alone
        (
            "Meeting w/ Yuki Hashimoto and Tomas Brink moved to 2027-01-15. Hashimoto's team wants it first.",
            ["Yuki Hashimoto", "Tomas Brink", "Hashimoto"],
        ),
        (
            "Lunch with Odile Marchetti on Friday. Marchetti said the budget is fine.",
            ["Odile Marchetti", "Marchetti"],
        ),
        # ... not a part written in lower case more often ("green"), a month, or one before a
        # company's word
        ("I met Harriet Green at the fair; the Green button works now", ["Harriet Green"]),
        ("Ines Vaal\nVaal Property Mgmt", ["Ines Vaal"]),
        # ... nor inside an e-mail address or a file name's stem in lower case
        ("Met Ilse Vermaelen today: ilse.vermaelen@example.com", ["Ilse Vermaelen"]),
    ],
)
def test_a_part_of_a_found_name_alone_elsewhere(
    detector: NameModelDetector, text: str, expected: list[str]
) -> None:
    assert names(detector, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an item of a list of names is a name if the lexicon knows its words as names
        (
            "Present: Ilse Vermaelen, Tomas Brink, Chi. Apologies: none.",
            ["Ilse Vermaelen", "Tomas Brink", "Chi"],
        ),
        # ... not a job, a team or a firm beside the names
        ("new starter: Okoro, Chidinma, Chiropodist, desk 12", ["Okoro", "Chidinma"]),
        ("Thanks to Ilse Vermaelen, Tomas Brink, Marketing and Google", ["Ilse Vermaelen", "Tomas Brink"]),
    ],
)
def test_an_item_of_a_list_of_names(text: str, expected: list[str]) -> None:
    assert [
        text[f.start : f.end] for f in Scrubber().scrub(text).findings if f.entity == "PERSON"
    ] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a run between a determiner and a noun names a make or a product
        ("Does the Hollis Bramwell watch come with a spare strap?", []),
        ("I returned the Anneliese Dorn handbag last week", []),
        ("we tried a new Quentin Marlowe mattress", []),
        # ... not before a noun a person's name goes before, nor before a verb or "who"
        ("the new Ishiguro novel is slower than I hoped", ["Ishiguro"]),
        ("We borrowed the Okonkwo family's ladder again", ["Okonkwo"]),
        ("I think the Marguerite Dufresne who rang is the tenant", ["Marguerite Dufresne"]),
        # ... and not without the determiner
        ("Hollis Bramwell called about the watch", ["Hollis Bramwell"]),
    ],
)
def test_a_run_between_a_determiner_and_a_noun(text: str, expected: list[str]) -> None:
    assert [
        text[f.start : f.end] for f in Scrubber().scrub(text).findings if f.entity == "PERSON"
    ] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a place's name where someone goes or comes from is the place
        ("The school trip to Niagara Falls moves to May.", []),
        ("Our flight to Adelaide leaves from gate 12.", []),
        ("We're moving from Austin in the spring.", []),
        # ... not a person one sends a thing to
        ("I sent the slides to Florence yesterday.", ["Florence"]),
        # a street named after a person, hyphens between, as German writes it
        ("Parking is on Anne-Frank-Weg behind the hall.", []),
        # a company named in the possessive with a second word
        ("Does the shop price-match Victoria's Secret on bras?", []),
    ],
)
def test_places_streets_and_companies_named_after_people(text: str, expected: list[str]) -> None:
    assert [
        text[f.start : f.end] for f in Scrubber().scrub(text).findings if f.entity == "PERSON"
    ] == expected


def test_a_ticket_handed_to_a_person_keeps_the_name() -> None:
    text = "Can I transfer my ticket to Savannah Okafor instead?"
    assert [text[f.start : f.end] for f in Scrubber().scrub(text).findings if f.entity == "PERSON"] == [
        "Savannah Okafor"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # where one paid is a shop or a firm
        ("A transaction of $276.20 at Hollis Bramwell was declined.", []),
        ("you spent £12 at Quentin Marlowe yesterday", []),
        # ... not a person's home, nor a person met later
        ("I'll pay you back, see you at Priya's party", ["Priya"]),
        ("We paid 12.50 for lunch. Later we met Odile Marchetti at noon.", ["Odile Marchetti"]),
    ],
)
def test_where_one_paid_is_no_person(text: str, expected: list[str]) -> None:
    assert [
        text[f.start : f.end] for f in Scrubber().scrub(text).findings if f.entity == "PERSON"
    ] == expected
