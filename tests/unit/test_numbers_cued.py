"""Numbers a cue announces in formats no validator knows (phones of any country after a phone
label) and IP addresses of every range; with the look-alikes beside the same words."""

from __future__ import annotations

import pytest

from scrubber.detectors.patterns import PatternDetector
from scrubber.detectors.registry import build_detectors
from scrubber.detectors.validators import VALIDATORS
from scrubber.detectors.validators.base import Memo
from scrubber.dial import ENTITIES, Policy
from scrubber.engine import Scrubber

DETECTOR = next(d for d in build_detectors(frozenset(ENTITIES)) if isinstance(d, PatternDetector))
ENGINE = Scrubber(Policy(level=7), detectors=[DETECTOR])


def found(text: str, entity: str) -> list[str]:
    return [text[f.start : f.end] for f in ENGINE.scrub(text).findings if f.entity == entity]


PHONES = [
    ("Phone: 60-56-85-91", "60-56-85-91"),
    ("Mobile: (37) 788-063", "(37) 788-063"),
    ("Desk: +41 (0)96 471 07 95", "+41 (0)96 471 07 95"),
    ("call me on 9472 7916 after six", "9472 7916"),
    ("reach me at 0412 555 019 if it is late", "0412 555 019"),
    ("Fax: 089 2345 6789", "089 2345 6789"),
    ("Tel. +31 20 794 3318 (front desk)", "+31 20 794 3318"),
    ("Phone (mobile): 98 231 64 77", "98 231 64 77"),
    ("ring me back on ( 0 7 ) 3 8 2 7 3 7 3 0", "( 0 7 ) 3 8 2 7 3 7 3 0"),
    ('contact.updated phone="+852 9123 4410" user=5531', "+852 9123 4410"),
    ("Téléphone : 04 78 92 15 66", "04 78 92 15 66"),
    ("my number is 555-0186, text first", "555-0186"),
    ("for urgent issues dial (492)232-0376", "(492)232-0376"),
    ("new number is 1-082-326-0951, save it", "1-082-326-0951"),
    # libphonenumber knows this plan: it says where the number ends.
    ("Phone: (415) 555-2671 12 items", "(415) 555-2671"),
    # "reach us at" as people write it, in English and other languages
    ("the appointment moved; reachable on 0221086623.", "0221086623"),
    ("Bei Fragen erreichen Sie uns unter +49(0)2003 869233.", "+49(0)2003 869233"),
    ("Dúvidas? Ligue 77 2228-8804.", "77 2228-8804"),
    ("prosimy o kontakt pod numerem 662 463 506 w sprawie zamówienia", "662 463 506"),
    # other ways of asking to be called
    ("Please reach out to me at 394-387-5749 when convenient.", "394-387-5749"),
    ("get in touch on 0412 555 019 after lunch", "0412 555 019"),
    ("ping me at 962.952.7601x8955 if the build breaks", "962.952.7601x8955"),
]


@pytest.mark.parametrize(("text", "value"), PHONES)
def test_a_number_after_a_phone_label_is_a_phone_in_any_grouping(text: str, value: str) -> None:
    assert value in found(text, "PHONE_NUMBER")


PHONE_LOOK_ALIKES = [
    "phone order #55102938 was shipped on Monday",
    "Phone: iPhone 15 Pro, iOS 17.4.1",
    "call me on 2024-05-06 at 10:30",
    "call me at 9:45 or 10:15",
    "Phone: 192.168.10.12",
    "phone: 1979 06 12",
    "Mobile: 1234.5678",
    "Desk 14 on floor 3, room 3.204",
    "Tel: +999 123 456 789",  # no such country code
    "fax: 000 000 0000",
    "my phone died, ticket 4410 2298 is still open",
    "the API is reachable at version 2 2024 release",
    "I will reach out to the team at 10 tomorrow",
    "ping me at 9:45 if the build fails",
    "get in touch by 17.30 on Friday",
]


@pytest.mark.parametrize("text", PHONE_LOOK_ALIKES)
def test_look_alikes_after_a_phone_word_are_no_phone(text: str) -> None:
    assert found(text, "PHONE_NUMBER") == []


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("31-47-92-08", True),
        ("+41 (0)96 471 07 95", True),
        ("0086 10 6532 8890", True),
        ("123456", False),  # too short
        ("1234567890123456", False),  # too long
        ("+0 123 4567", False),  # no country code 0
        ("11-11-11-11", False),  # too few different digits
        ("12.06.1979", False),  # a date
        ("10.20.30.40", False),  # a dotted quad
        ("(37 788-063", False),  # brackets that do not close
    ],
)
def test_phone_grouped_judges_length_and_structure(value: str, valid: bool) -> None:
    assert (VALIDATORS["phone_grouped"](value, Memo()) == len(value)) is valid


ADDRESSES = [
    ("sshd: Accepted publickey for deploy from 10.14.3.77 port 50122", "10.14.3.77"),
    ('{"client_ip":"192.168.4.31","status":401}', "192.168.4.31"),
    ("src=5.6.7.8 dst_port=443 action=allow", "5.6.7.8"),
    ("my IP is 2.3.4.5 I think", "2.3.4.5"),
    ("X-Forwarded-For: 198.51.100.23", "198.51.100.23"),
    ("remote_addr=fe80::a1b2:33ff:fe9c:4d01 method=GET", "fe80::a1b2:33ff:fe9c:4d01"),
    ("client=fd00:4a2b::17 user=ml", "fd00:4a2b::17"),
    ("the laptop only gets 169.254.12.9 on the office wifi", "169.254.12.9"),
    ("audit: addr=88.14.201.6 terminal=ssh res=failed", "88.14.201.6"),
    ("connection received: host=91.203.5.17 port=50812", "91.203.5.17"),
    ("inet 192.168.1.23/24 scope global wlan0", "192.168.1.23"),
    ("multicast join from 224.0.0.251", "224.0.0.251"),
    ("[client 2001:db8:1b04:d5fb::e8f4:30876] AH01630: client denied", "2001:db8:1b04:d5fb::e8f4"),
    ("it says my address 31.0.147.212 is blocked by the build server", "31.0.147.212"),
    # OpenVPN's "common name/real address:port": a port after it, so no version after "word/"
    ("nour@example.fr/31.66.217.103:26062 MULTI_sva: pool returned", "31.66.217.103"),
    # A server's word in a syslog header's host name ("gw-02") is the machine that logs.
    ("Mar  3 08:11:52 gw-02 dhcpd[4411]: DHCPACK on 192.168.40.17 to 3c:22:fb:10:aa:01", "192.168.40.17"),
    # A machine's name that says nothing of serving: a person's ("laptop-42", "my pc").
    ("vpn login user=ivo host=laptop-42 ip=10.61.2.3", "10.61.2.3"),
    ("my pc (192.168.7.22) keeps dropping off the wifi", "192.168.7.22"),
    # A client's address first, then a server named right before its own.
    ("my ip is 10.3.3.3, the box I hit is web-1 (10.2.2.2)", "10.3.3.3"),
]


@pytest.mark.parametrize(("text", "value"), ADDRESSES)
def test_every_address_is_found(text: str, value: str) -> None:
    assert value in found(text, "IP_ADDRESS")


NOT_CLIENTS = [
    "server listening on 0.0.0.0:8080 and [::]:8080",
    "ping 127.0.0.1 works, ::1 too",
    "GET /status HTTP/1.1 Host: ::1:8080",
    "upstream=10.20.3.4:9000 status=502",
    "upgraded the firmware to 4.1.0.12 and rebooted",
    "proxy_pass http://10.1.2.3:8000;",
    "route add -net 10.8.0.0/16 gw 10.8.0.1",
    "nameserver 10.96.0.10",
    "bind_address=192.168.50.2 listen_port=5432",
    "dhcp pool 172.16.0.0/12 exhausted, prefix 2001:db8:5::/48",
    "AMQP_URL=amqp://orders:xXpn9wZm@10.0.4.12:5672/",
    "ssh deploy@10.0.9.8 uptime",
    "Mozilla/5.0 (X11) Chrome/124.0.0.0 Safari/537.36",
    "connected to postgres at 172.22.218.19:5432 (pool=27)",
    "anyone know why the staging db at 10.40.2.17:5432 keeps dropping",
    "relay=mx.provider.example[172.20.0.20]:25, delay=0.4",
    '{"destination":{"ip":"172.31.8.40","port":443}}',
    "gw-01 at 10.0.0.1 rebooted after the update",
    "Mar  3 08:11:52 gw-02 kernel[0]: upstream 10.9.9.9 unreachable",
    # A server named by what it serves, right before its address.
    "checkout errors after a config change on app-01 (172.30.9.6), rolled back",
    "latency p99=812 host=cache-a ip=10.22.7.100 region=eu-west-1",
    "web-03: 10.0.3.16 is down again",
    "moved the queue to worker-b7 at 10.4.4.21",
    "app-01 (10.0.3.16)",  # README
]


@pytest.mark.parametrize("text", NOT_CLIENTS)
def test_servers_versions_and_networks_are_no_client_address(text: str) -> None:
    assert found(text, "IP_ADDRESS") == []


def test_a_server_named_right_before_its_address_spares_that_one_only() -> None:
    assert found("my ip is 10.3.3.3, the box I hit is web-1 (10.2.2.2)", "IP_ADDRESS") == ["10.3.3.3"]
