"""Pattern rules that read the context of a value: placeholders that are no secrets, secrets
given in prose or on a command line, national passport and state licence shapes, the last digits
of a phone number, message ids that are no e-mail addresses, AAMVA barcode fields, IP cues."""

from __future__ import annotations

import pytest

from scrubber.detectors.patterns import PatternDetector
from scrubber.detectors.registry import build_detectors
from scrubber.detectors.validators import secrets
from scrubber.detectors.validators.base import Memo
from scrubber.dial import ENTITIES, Policy
from scrubber.engine import Scrubber

DETECTOR = next(d for d in build_detectors(frozenset(ENTITIES)) if isinstance(d, PatternDetector))
ENGINE = Scrubber(Policy(level=7), detectors=[DETECTOR])

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def found(text: str) -> list[tuple[str, str]]:
    return [(f.entity, text[f.start : f.end]) for f in ENGINE.scrub(text).findings]


# (entity, text, values): exactly these values of that entity are found.
POSITIVE = [
    # SECRET: a user's password on curl's command line.
    ("SECRET", 'curl -u "deploy:Falcon.05ginger" https://api.example.com', ["Falcon.05ginger"]),
    ("SECRET", "curl -u deploy:pass https://x.example.com/v1", ["pass"]),
    ("SECRET", "curl --user admin:S3cr3t!x -X POST https://x.example.com", ["S3cr3t!x"]),
    ("SECRET", "curl --user=ops:Tide.42lumen https://x.example.com", ["Tide.42lumen"]),
    # ... other command lines' password flags, and server directives.
    ("SECRET", "mysql -h 10.8.0.14 -u etl -pHarvest2024$$ warehouse", ["Harvest2024$$"]),
    ("SECRET", "mysqldump --password=Hunter2x shop > shop.sql", ["Hunter2x"]),
    ("SECRET", "redis-cli -h cache -a Tr0ub4dor flushall", ["Tr0ub4dor"]),
    ("SECRET", "sshpass -p Kite9sky ssh ops@host", ["Kite9sky"]),
    ("SECRET", "# WARNING config rewrite: requirepass HNxbyvuz9EPp4sknqajK", ["HNxbyvuz9EPp4sknqajK"]),
    ("SECRET", "wpa_passphrase=fjord-otter-71", ["fjord-otter-71"]),
    # ... "pw" in prose, and a key longer than any password after a key word and its purpose.
    ("SECRET", 'wifi at the cabin: network "Fjellhytta", pw tyttebær-2019', ["tyttebær-2019"]),
    (
        "SECRET",
        "storage account key for the backups container: "
        + "nb0Vs5wXva6acQZPVsNZCop0XMM9qoJx" * 2
        + "k6UcPmaVaX7fk/7fbgfsSXUlNg==",
        ["nb0Vs5wXva6acQZPVsNZCop0XMM9qoJx" * 2 + "k6UcPmaVaX7fk/7fbgfsSXUlNg=="],
    ),
    # ... a Kubernetes Secret's data (base64) and stringData values, whatever their keys.
    (
        "SECRET",
        "kind: Secret\nmetadata:\n  name: billing-db\ndata:\n  auth: c3ZjOmxhbnRlcm4tOTE=\n"
        "stringData:\n  api-token: tok_9f8e7d6c5b4a\n",
        ["c3ZjOmxhbnRlcm4tOTE=", "tok_9f8e7d6c5b4a"],
    ),
    # ... a quoted key and value given as a pair.
    ("SECRET", "define( 'DB_PASSWORD', 'violet_0136copp' );", ["violet_0136copp"]),
    ("SECRET", 'config.set("db_password", "Quartz#7719")', ["Quartz#7719"]),
    # ... an AWS secret access key after its key id.
    (
        "SECRET",
        f"AKIAIOSFODNN7EXAMPLE / {AWS_SECRET}",
        ["AKIAIOSFODNN7EXAMPLE", AWS_SECRET],
    ),
    (
        "SECRET",
        f"key AKIAIOSFODNN7EXAMPLE, secret {AWS_SECRET} (rotated)",
        ["AKIAIOSFODNN7EXAMPLE", AWS_SECRET],
    ),
    # ... but not a 40-character git SHA after a key id.
    (
        "SECRET",
        "AKIAIOSFODNN7EXAMPLE rotated in 3f786850e387550fdab836ed7e6dc881de23001b",
        ["AKIAIOSFODNN7EXAMPLE"],
    ),
    # ... a password in prose.
    ("SECRET", "the wifi password is maple!336nimbu", ["maple!336nimbu"]),
    ("SECRET", 'network "Lakeside", password maple!336nimbu', ["maple!336nimbu"]),
    ("SECRET", "I reset my email password to Nimbus-33nimb yesterday", ["Nimbus-33nimb"]),
    ("SECRET", "the wifi password is P3pp3r82?", ["P3pp3r82?"]),
    ("SECRET", "my new password is now Harbor_77tern.", ["Harbor_77tern"]),
    # ... as a reply that starts its line; a Kubernetes container's variable and its value.
    ("SECRET", "guest wifi pw?\nTeal_Harbor_8812", ["Teal_Harbor_8812"]),
    (
        "SECRET",
        "env:\n  - name: REDIS_PASSWORD\n    value: ivy-lantern-77\n  - name: PORT\n    value: '6379'",
        ["ivy-lantern-77"],
    ),
    ("SECRET", '- name: "GITHUB_TOKEN"\n  value: "gh-tok-Walnut99"', ["gh-tok-Walnut99"]),
    # PASSPORT: national shapes, several values after one cue, a cue earlier on the line.
    ("PASSPORT", "I have an Indian passport, number J6603679", ["J6603679"]),
    ("PASSPORT", "their passports are 05IH84676 and 54EU80383", ["05IH84676", "54EU80383"]),
    (
        "PASSPORT",
        "my passport expired, my new number is J4702281 and the old one was K4410972",
        ["J4702281", "K4410972"],
    ),
    ("PASSPORT", "passport renewed last spring; the document reads GB123456 now", ["GB123456"]),
    # DRIVER_LICENSE: state formats after "license", digits one by one, WA anywhere.
    ("DRIVER_LICENSE", "WA license WDL1T20NR1TI", ["WDL1T20NR1TI"]),
    ("DRIVER_LICENSE", "scanned WDL1T20NR1TI at the desk", ["WDL1T20NR1TI"]),
    ("DRIVER_LICENSE", "Michigan license W 614 278 286 189", ["W 614 278 286 189"]),
    ("DRIVER_LICENSE", "my license expired, the new one is V4334286", ["V4334286"]),
    ("DRIVER_LICENSE", "driver's license TX 1 2 3 4 0 9 8 7", ["1 2 3 4 0 9 8 7"]),
    ("DRIVER_LICENSE", "DAQD12345678\nDCSSMITH\nDACJOHN", ["D12345678"]),
    ("DRIVER_LICENSE", "DAQ=D12345678 DCS=SMITH", ["D12345678"]),
    # PHONE_NUMBER: key names, a URL-encoded "+", the last digits after a phone noun.
    ("PHONE_NUMBER", "event=hangup callee=2133964093", ["2133964093"]),
    ("PHONE_NUMBER", 'event=ring caller="2133964093"', ["2133964093"]),
    ("PHONE_NUMBER", "from_number=2133964093 status=ok", ["2133964093"]),
    (
        "PHONE_NUMBER",
        "POST /sms From=%2B447708854971&To=%2B14155550142",
        ["%2B447708854971", "%2B14155550142"],
    ),
    ("PHONE_NUMBER", "my phone number changed, the old one (ending 3371) is gone", ["3371"]),
    ("PHONE_NUMBER", "text my cell, the one ending in 0458", ["0458"]),
    # CREDIT_CARD: a dash before the last digits.
    ("CREDIT_CARD", "Visa ending -0817", ["0817"]),
    ("CREDIT_CARD", "card ends in #4242, exp 09/27", ["4242"]),
    # EMAIL_ADDRESS: obfuscated with a country domain; addresses near message ids.
    ("EMAIL_ADDRESS", "write to hanna[dot]lindqvist[at]telia[dot]se please", None),
    ("EMAIL_ADDRESS", "To: <alice@example.com>, <bob@example.org>", ["alice@example.com", "bob@example.org"]),
    ("EMAIL_ADDRESS", "Apple ID: bob@icloud.com", ["bob@icloud.com"]),
    ("EMAIL_ADDRESS", "user id: carol@example.com", ["carol@example.com"]),
    (
        "EMAIL_ADDRESS",
        "1uMM-000abc-XY <= sender@example.com H=mx id=CAF8x@mail.gmail.com",
        ["sender@example.com"],
    ),
    # DATE_OF_BIRTH: AAMVA's DBB field; ZIP_CODE: its DAK field.
    ("DATE_OF_BIRTH", "DAQ=D12345678 DCS=SMITH DBB=19760514", ["19760514"]),
    ("DATE_OF_BIRTH", "DCSSMITH\nDBB05141976\nDBA05142030", ["05141976"]),
    ("ZIP_CODE", "DAG123 MAIN ST\nDAK941100000", ["941100000"]),
    # IP_ADDRESS: the client of a JSON log, the source of a firewall log.
    ("IP_ADDRESS", '{"x_forwarded_for": "81.2.69.160", "status": 200}', ["81.2.69.160"]),
    ("IP_ADDRESS", "IN=eth0 OUT= SRC=81.2.69.160 DST=81.2.69.161 LEN=60", ["81.2.69.160"]),
    ("IP_ADDRESS", "login failed for 10.2.3.4 after 3 attempts", ["10.2.3.4"]),
    # SECRET: a password typed further on in a sentence that speaks of one.
    (
        "SECRET",
        "it says wrong password but I keep typing Wren#4417dusk exactly as set",
        ["Wren#4417dusk"],
    ),
    ("SECRET", "Since the password change I cannot log in. I tried Heron_2208! twice.", ["Heron_2208!"]),
    # ... Basic credentials wherever they stand: base64 of "user:password".
    ("SECRET", "is Basic bWFyYTpmZXJuITIy still accepted by the old API?", ["bWFyYTpmZXJuITIy"]),
    # ... a token named by what it does, in prose.
    (
        "SECRET",
        "Your password was reset and the refresh token 5f0c2e9ab71d44c3be80f9a6d2c1e7b3 revoked.",
        ["5f0c2e9ab71d44c3be80f9a6d2c1e7b3"],
    ),
    # EMAIL_ADDRESS: URL-encoded, a "+" in the mailbox too.
    (
        "EMAIL_ADDRESS",
        '"GET /label?order=12&email=ines.vaal%2Bshop%40example.com HTTP/1.1" 200',
        ["ines.vaal%2Bshop%40example.com"],
    ),
    # A key with a value of its own spends its cue on it: the id's "id" says nothing of the
    # number after the next key.
    ("PHONE_NUMBER", "ivr call_id=7f3a90c2e18b4d55 caller_ani=+14155552671 lang=en", ["+14155552671"]),
    # DRIVER_LICENSE: a letter and digits in groups of four or five after "licence".
    ("DRIVER_LICENSE", "Her licence is K0412 77305 19248, valid to 2030.", ["K0412 77305 19248"]),
    # ... a GitHub token shorter than GitHub's own (test fixtures and other generators).
    (
        "SECRET",
        "the deploy key is github_pat_Q7mWz2Lp0aXv9Rk3Tn8Yc4Bd, keep it",
        ["github_pat_Q7mWz2Lp0aXv9Rk3Tn8Yc4Bd"],
    ),
]


@pytest.mark.parametrize(("entity", "text", "values"), POSITIVE, ids=[p[1][:50] for p in POSITIVE])
def test_found(entity: str, text: str, values: list[str] | None) -> None:
    got = [v for e, v in found(text) if e == entity]
    if values is None:
        assert got, text
    else:
        assert got == values


# Look-alikes: nothing of that entity is found.
NEGATIVE = [
    # Placeholders are not secrets.
    ("SECRET", "password = (sensitive value)"),
    ("SECRET", "  + db_password = (sensitive)"),
    ("SECRET", "NPM_TOKEN=$NPM_TOKEN"),
    ("SECRET", "password=$db_pass"),
    ("SECRET", "token: ${{ secrets.GITHUB_TOKEN }}"),
    ("SECRET", "set password=%DB_PASS%"),
    ("SECRET", "STRIPE_KEY=sk_test_XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("SECRET", "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX"),
    ("SECRET", "key AKIA0000000000000000 in the template"),
    ("SECRET", "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("SECRET", "api_key: <your-token-here>"),
    ("SECRET", "password: changeme"),
    ("SECRET", "password=[FILTERED]"),
    ("SECRET", "dsn postgres://app:xxxxxxxx@db.internal:5432/x"),
    ("SECRET", "SLACK_TOKEN=xoxb-REPLACE-ME NODE_ENV=production"),
    ("SECRET", "STRIPE_KEY=sk_live_YOUR_KEY_HERE"),
    # sudo's log: PWD is the working directory.
    ("SECRET", "sudo: ops : TTY=pts/1 ; PWD=/home/ops-admin2 ; USER=root ; COMMAND=/usr/bin/id"),
    # ... nor command lines without a password, nor group ids.
    ("SECRET", "curl -u $USER:$PASS https://x.example.com"),
    ("SECRET", "docker run -u 1000:1000 image"),
    ("SECRET", "sudo -u postgres psql"),
    ("SECRET", "pip install --user requests"),
    ("SECRET", "mysql -u root -p warehouse"),
    ("SECRET", "psql --password --host db"),
    ("SECRET", "requirepass is set in redis.conf"),
    ("SECRET", "the pw reset link expired"),
    # ... nor the words after "password" in a sentence.
    ("SECRET", "I got a password reset link"),
    ("SECRET", "my password to expire soon"),
    ("SECRET", "the password is wrong"),
    ("SECRET", "password self-service portal is down"),
    ("SECRET", "the password expires in 30 days"),
    ("SECRET", "password must be 8+ chars"),
    ("SECRET", "password for user bob was changed"),
    ("SECRET", "can you reset my password please?"),
    ("SECRET", "what is the wifi password?? thanks!!"),
    # A variable whose value is a reference or a placeholder, or whose name says no secret.
    ("SECRET", "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: pw}"),
    ("SECRET", '- name: API_TOKEN\n  value: "${API_TOKEN}"'),
    ("SECRET", "- name: LOG_LEVEL\n  value: debug-verbose-2"),
    # A ConfigMap's data, alone or beside a Secret: plain words, no base64.
    ("SECRET", "kind: ConfigMap\ndata:\n  FEATURE_FLAGS: search,checkout-v2\n  REGION: eu-west-1\n"),
    (
        "SECRET",
        "kind: Secret\ndata: {}\n---\nkind: ConfigMap\ndata:\n  LOG_LEVEL: debug\n  REGION: eu-west\n",
    ),
    # Keys of a Secret that name a user, a host or a port.
    ("SECRET", "kind: Secret\nstringData:\n  username: svc_app\n  DB_HOST: ZGIuaW50ZXJuYWw=\n"),
    ("SECRET", "what's the wifi pw?\nno idea, ask Sam"),
    # PASSPORT: a reference nearer than the passport cue; digits alone far from the cue.
    ("PASSPORT", "passport office visit, order number A1234567"),
    ("PASSPORT", "passport photos ready, pick up with ticket AB123456"),
    ("PASSPORT", "my passport expired, call 415 555 0142 or ref 123456789"),
    # DRIVER_LICENSE: licences that are not a driver's.
    ("DRIVER_LICENSE", "license plate 7ABC123 and license key X1234567"),
    ("DRIVER_LICENSE", "software license renewal, invoice A12345678"),
    ("DRIVER_LICENSE", "DAQUIRI night 2024"),
    # PHONE_NUMBER: references, meters, loyalty numbers; endings of other things.
    ("PHONE_NUMBER", "my loyalty number is 8800 2291 4410"),
    ("PHONE_NUMBER", "meter number 0049 2213 88"),
    ("PHONE_NUMBER", "order number ending 3371 shipped"),
    ("PHONE_NUMBER", "call me about the contract ending 2025"),
    ("PHONE_NUMBER", "my card number ending 4242"),
    ("PHONE_NUMBER", "Rep: Caller, your account ending 5521?"),
    ("PHONE_NUMBER", "From=%2B1234&To=%2B0000000000"),
    # CREDIT_CARD: a gift card is not a payment card.
    ("CREDIT_CARD", "the gift card ending 31007 has no balance"),
    # EMAIL_ADDRESS: message ids.
    ("EMAIL_ADDRESS", "postfix/cleanup: message-id=<20250603084117.AB12@mailer.example.com>"),
    ("EMAIL_ADDRESS", "Message-ID: <CAF8xabc123@mail.gmail.com>"),
    ("EMAIL_ADDRESS", "2025-06-03 08:41:17 1uMM id=CAF8xabc@mail.gmail.com"),
    ("EMAIL_ADDRESS", "In-Reply-To: <CAF8xabc123@mail.gmail.com>"),
    ("EMAIL_ADDRESS", "References: <abc.def@mail.gmail.com> <ghi@mx.example.org>"),
    ("EMAIL_ADDRESS", "References: <abc.def@mail.gmail.com>\r\n <ghi@mx.example.org>"),
    # IP_ADDRESS: destinations and upstreams are servers.
    ("IP_ADDRESS", "conn dst=81.2.69.161 dest=81.2.69.162"),
    ("IP_ADDRESS", 'upstream_host="81.2.69.163:8080"'),
    ("IP_ADDRESS", '[2025-06-03T08:41:17Z] "GET /v1 HTTP/2" 200 "payments:50051" "81.2.69.164:50051"'),
    # ... as are a cluster's nodes, a balancer's targets, health probes, network boxes and
    # where a service runs.
    ("IP_ADDRESS", "kubelet: node 10.40.2.7 NotReady"),
    ("IP_ADDRESS", "lb: target 10.40.3.9:8443 healthy, checked from probe 10.40.9.1"),
    ("IP_ADDRESS", "Tonight the firewall 172.20.0.1 and the VPN concentrator 172.20.0.2 restart."),
    ("IP_ADDRESS", "Cut-over done: billing now runs on 172.20.4.15 and is hosted on 172.20.4.16."),
    # SECRET: ids, builds and versions in a sentence about a password are no password.
    ("SECRET", "password reset for build-2024a done, ticket HD-56136, user jdoe42"),
    ("SECRET", "Password policy v2.3.1 applies from release_3b onwards"),
    # ... an id's own key still lowers a number given as its value.
    ("PHONE_NUMBER", "ticket_id=4155552671 status=open"),
    # ... nor is a token's name without a token.
    ("SECRET", "the access token expired yesterday, please renew it"),
    # ... nor is "Basic" before base64 that is no "user:password".
    ("SECRET", "Basic aGVsbG8gd29ybGQ= plan"),
    # DATE_OF_BIRTH: other AAMVA dates.
    ("DATE_OF_BIRTH", "DBA05142030\nDBD05142022"),
]


@pytest.mark.parametrize(("entity", "text"), NEGATIVE, ids=[n[1][:50] for n in NEGATIVE])
def test_not_found(entity: str, text: str) -> None:
    assert [v for e, v in found(text) if e == entity] == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("maple!336nimbu", True),
        ("Nimbus-33nimb", True),
        ("hunter22", True),
        ("reset", False),
        ("self-service", False),
        ("123456", False),
        ("https://x.example.com/reset", False),
        ("bob@example.com", False),
        ("(sensitive", False),
        ("$NPM_TOKEN", False),
    ],
)
def test_prose_password(value: str, expected: bool) -> None:
    assert bool(secrets.prose_password(value, Memo())) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Wren#4417dusk", True),
        ("Heron_2208!", True),
        ("Lantern88moss", True),
        ("build-2024a", False),  # an id's joiner is no password's symbol
        ("jdoe4217", False),  # no capital, no symbol
        ("HD-56136X", False),  # no small letter
        ("v2.3.1-rc1", False),
        ("Ab1!", False),  # too short
        ("/srv/App2024!", False),  # a path
        ("ip=136.27.10.40", False),  # a key and its value
        ("date=2025-05-30T08:19:44", False),
    ],
)
def test_typed_password(value: str, expected: bool) -> None:
    assert bool(secrets.typed_password(value, Memo())) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("bWFyYTpmZXJuITIy", True),  # mara:fern!22
        ("bWFyYTpmZXJuITIy.", True),
        ("aGVsbG8gd29ybGQ=", False),  # "hello world": no colon
        ("Ondersteuning", False),  # not base64 of text
        ("OmZvbw==", False),  # ":foo": no user
    ],
)
def test_basic_credentials(value: str, expected: bool) -> None:
    assert bool(secrets.basic_credentials(value, Memo())) is expected
