"""The Kafka proxy against a real Kafka-protocol broker (Tansu): scrub, route, quarantine, commit."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import confluent_kafka
from aiokafka import AIOKafkaConsumer, TopicPartition
from kafka_helpers import create_topics, produce, read, running, settings, sleepy_scrubber, unique

from scrubber.dial import Policy
from scrubber.engine import Scrubber

SSN = "524-59-3318"
EMAIL = "jane.roe@example.com"
PHONE = "(415) 555-0172"
IP = "81.2.69.160"
LINE = f"ssn {SSN}, mail {EMAIL}, call {PHONE}, from {IP}"


async def test_scrubs_text_at_the_route_levels_and_keeps_keys_headers_and_order(bootstrap: str) -> None:
    raw2, clean2, raw7, clean7 = (unique(p) for p in ("raw2", "clean2", "raw7", "clean7"))
    await create_topics(bootstrap, [raw2, clean2, raw7, clean7])
    values = [f"{i}: {LINE}".encode() for i in range(30)]
    keys = [f"k{i}".encode() for i in range(30)]
    await produce(bootstrap, raw2, values, keys=keys, headers=[("trace", b"abc")])
    await produce(bootstrap, raw7, values, keys=keys)
    s = settings(
        bootstrap,
        [{"in": raw2, "out": clean2, "level": 2}, {"in": raw7, "out": clean7, "level": 7}],
    )
    async with running(s):
        out2 = await read(bootstrap, clean2, 30)
        out7 = await read(bootstrap, clean7, 30)

    assert len(out2) == len(out7) == 30
    # Order within the partition, keys and input headers carried over.
    assert [r.key for r in out2] == keys
    assert [r.value.split(b":")[0] for r in out2 if r.value] == [str(i).encode() for i in range(30)]
    assert all(r.headers["trace"] == b"abc" for r in out2)
    # Exactly what the engine makes of each line at the route's level; raw values gone.
    for level, out in ((2, out2), (7, out7)):
        engine = Scrubber(Policy(level=level))
        for i, r in enumerate(out):
            want = engine.scrub(values[i].decode())
            assert r.value == want.text.encode()
            assert json.loads(r.headers["scrubber-findings"]) == want.counts()
    assert all(SSN not in r.value.decode() and EMAIL in r.value.decode() for r in out2 if r.value)
    for r in out7:
        assert r.value is not None
        assert not any(raw in r.value.decode() for raw in (SSN, EMAIL, PHONE, IP))


async def test_commits_offsets_after_the_output_is_written(bootstrap: str) -> None:
    raw, clean = unique("raw"), unique("clean")
    await create_topics(bootstrap, [raw, clean], partitions=2)
    await produce(bootstrap, raw, [b"hello"] * 10, partition=0)
    await produce(bootstrap, raw, [b"world"] * 7, partition=1)
    s = settings(bootstrap, [{"in": raw, "out": clean}])
    async with running(s):
        out = await read(bootstrap, clean, 17)
    assert sorted((r.partition, r.value) for r in out) == sorted([(0, b"hello")] * 10 + [(1, b"world")] * 7)
    assert s.kafka is not None
    probe = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=s.kafka.group_id)
    await probe.start()
    try:
        assert await probe.committed(TopicPartition(raw, 0)) == 10
        assert await probe.committed(TopicPartition(raw, 1)) == 7
    finally:
        await probe.stop()


# Values that pass a json route unless each is read with its key (and numbers are scrubbed).
KEYED = [
    ({"customer": {"name": "Maria Gonzalez"}}, {"customer": {"name": "[PERSON]"}}),
    (
        {"user": {"first_name": "Maria", "last_name": "Gonzalez"}},
        {"user": {"first_name": "[PERSON]", "last_name": "[PERSON]"}},
    ),
    ({"requester_name": "Maria Gonzalez"}, {"requester_name": "[PERSON]"}),
    ({"fullName": "Maria Gonzalez"}, {"fullName": "[PERSON]"}),
    (
        {"card": 4111111111111111, "ssn": 524593318, "n": 1234},
        {"card": "[CREDIT_CARD]", "ssn": "[US_SSN]", "n": 1234},
    ),
]


async def test_json_routes_read_each_value_with_its_key_at_levels_5_and_7(bootstrap: str) -> None:
    topics = {level: (unique(f"jk{level}"), unique(f"jk{level}-c")) for level in (5, 7)}
    await create_topics(bootstrap, [t for pair in topics.values() for t in pair])
    for raw, _ in topics.values():
        await produce(bootstrap, raw, [json.dumps(doc).encode() for doc, _ in KEYED])
    routes = [{"in": raw, "out": clean, "format": "json", "level": lv} for lv, (raw, clean) in topics.items()]
    async with running(settings(bootstrap, routes, level=7)):
        for _, clean in topics.values():
            out = await read(bootstrap, clean, len(KEYED))
            assert [json.loads(r.value) for r in out if r.value is not None] == [want for _, want in KEYED]


async def test_json_routes_scrub_all_strings_or_only_the_listed_fields(bootstrap: str) -> None:
    raw_all, clean_all, raw_f, clean_f = (unique(p) for p in ("jall", "jall-c", "jf", "jf-c"))
    await create_topics(bootstrap, [raw_all, clean_all, raw_f, clean_f])
    doc = {
        "ts": 1700000000.25,
        "message": f"user mail {EMAIL}",
        "user": {"email": EMAIL, "ssn": SSN, "id": 42},
        "note": f"ssn {SSN}",
    }
    payload = json.dumps(doc).encode()
    await produce(bootstrap, raw_all, [payload])
    await produce(bootstrap, raw_f, [payload])
    s = settings(
        bootstrap,
        [
            {"in": raw_all, "out": clean_all, "format": "json"},
            {"in": raw_f, "out": clean_f, "format": "json", "fields": ["message", "user.email"]},
        ],
        level=7,
    )
    async with running(s):
        (all_strings,) = await read(bootstrap, clean_all, 1)
        (fields_only,) = await read(bootstrap, clean_f, 1)

    assert all_strings.value is not None and fields_only.value is not None
    got = json.loads(all_strings.value)
    assert list(got) == list(doc)  # key order kept
    assert got["ts"] == 1700000000.25 and got["user"]["id"] == 42  # non-strings untouched
    assert got == {
        "ts": 1700000000.25,
        "message": "user mail [EMAIL_ADDRESS]",
        "user": {"email": "[EMAIL_ADDRESS]", "ssn": "[US_SSN]", "id": 42},
        "note": "ssn [US_SSN]",
    }
    got = json.loads(fields_only.value)
    assert got["message"] == "user mail [EMAIL_ADDRESS]"
    assert got["user"] == {"email": "[EMAIL_ADDRESS]", "ssn": SSN, "id": 42}  # not listed: kept
    assert got["note"] == f"ssn {SSN}"
    assert json.loads(fields_only.headers["scrubber-findings"]) == {"EMAIL_ADDRESS": 2}


async def test_scrub_keys_masks_the_key_too(bootstrap: str) -> None:
    raw, clean = unique("keys"), unique("keys-c")
    await create_topics(bootstrap, [raw, clean])
    await produce(bootstrap, raw, [b"hello", None], keys=[EMAIL.encode(), b"plain-key"])
    s = settings(bootstrap, [{"in": raw, "out": clean, "scrub_keys": True}], level=7)
    async with running(s):
        out = await read(bootstrap, clean, 2)
    assert [(r.key, r.value) for r in out] == [(b"[EMAIL_ADDRESS]", b"hello"), (b"plain-key", None)]
    assert json.loads(out[0].headers["scrubber-findings"]) == {"EMAIL_ADDRESS": 1}


async def test_unscrubbable_records_go_to_quarantine_unchanged_with_reasons(bootstrap: str) -> None:
    text_in, text_out, json_in, json_out = (unique(p) for p in ("qt", "qt-c", "qj", "qj-c"))
    await create_topics(bootstrap, [text_in, text_out, json_in, json_out])
    big = b"x" * 3000
    await produce(
        bootstrap,
        text_in,
        [f"fine {SSN}".encode(), b"bad \xff\xfe bytes", big, b"spoofed"],
        keys=[b"k0", b"k1", b"k2", b"\xff"],
        headers=[("trace", b"t1"), ("scrubber-reason", b"spoofed")],
    )
    await produce(bootstrap, json_in, [b'{"message": "ok"}', b'{"message": "cut', b"[NaN]"])
    s = settings(
        bootstrap,
        [
            {"in": text_in, "out": text_out, "scrub_keys": True},
            {"in": json_in, "out": json_out, "format": "json"},
        ],
        max_message_bytes=2048,
    )
    assert s.kafka is not None
    async with running(s):
        quarantined = await read(bootstrap, s.kafka.quarantine_topic, 5)
        forwarded_text = await read(bootstrap, text_out, 1)
        forwarded_json = await read(bootstrap, json_out, 1)

    assert [r.value for r in forwarded_text] == [b"fine [US_SSN]"]
    assert [r.value for r in forwarded_json] == [b'{"message": "ok"}']
    by_source = {
        (r.headers["scrubber-source-topic"].decode(), int(r.headers["scrubber-source-offset"])): r
        for r in quarantined
    }
    expected = {
        (text_in, 1): ("invalid_utf8", b"bad \xff\xfe bytes", b"k1"),
        (text_in, 2): ("too_large", big, b"k2"),
        (text_in, 3): ("invalid_key", b"spoofed", b"\xff"),
        (json_in, 1): ("invalid_json", b'{"message": "cut', None),
        (json_in, 2): ("invalid_json", b"[NaN]", None),
    }
    assert set(by_source) == set(expected)
    for (topic, _offset), (reason, value, key) in expected.items():
        r = by_source[(topic, _offset)]
        assert (r.headers["scrubber-reason"].decode(), r.value, r.key) == (reason, value, key)
        assert r.headers["scrubber-route"] == topic.encode()
        assert r.headers["scrubber-source-partition"] == b"0"
        assert "scrubber-findings" not in r.headers
    assert by_source[(text_in, 1)].headers["trace"] == b"t1"  # input headers kept, spoofed one replaced


async def test_a_detector_timeout_quarantines_only_that_record(bootstrap: str) -> None:
    raw, clean = unique("rt"), unique("rt-c")
    await create_topics(bootstrap, [raw, clean])
    # An address all along one 900 KB line takes seconds to scrub; small records take well under
    # a millisecond. A 200 ms budget separates the two on any machine within a factor of ten.
    slow = b"1 Main St " * 90_000
    await produce(bootstrap, raw, [f"a {SSN}".encode(), slow, f"b {SSN}".encode()])
    s = settings(bootstrap, [{"in": raw, "out": clean}], level=7, limits={"time_budget_ms": 200})
    assert s.kafka is not None
    async with running(s):
        (q,) = await read(bootstrap, s.kafka.quarantine_topic, 1)
        out = await read(bootstrap, clean, 2)
    assert q.headers["scrubber-reason"] == b"time_budget" and q.value == slow
    assert [r.value for r in out] == [b"a [US_SSN]", b"b [US_SSN]"]


async def test_a_second_client_produces_the_input_and_reads_the_output(bootstrap: str) -> None:
    """confluent-kafka (librdkafka) on both ends: headers, keys and values interoperate."""
    raw, clean = unique("ck"), unique("ck-c")
    await create_topics(bootstrap, [raw, clean])
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for i in range(20):
        producer.produce(raw, f"#{i} write to {EMAIL}".encode(), key=f"k{i}", headers=[("src", b"rdkafka")])
    assert producer.flush(10) == 0
    s = settings(bootstrap, [{"in": raw, "out": clean}], level=3)
    consumer = confluent_kafka.Consumer(
        {"bootstrap.servers": bootstrap, "group.id": unique("reader"), "enable.auto.commit": False}
    )
    got: list[Any] = []
    async with running(s):
        consumer.assign([confluent_kafka.TopicPartition(clean, 0, confluent_kafka.OFFSET_BEGINNING)])
        deadline = time.monotonic() + 30
        while len(got) < 20 and time.monotonic() < deadline:
            msg = await asyncio.to_thread(consumer.poll, 0.2)
            if msg is not None and msg.error() is None:
                got.append(msg)
    consumer.close()
    assert [m.key() for m in got] == [f"k{i}".encode() for i in range(20)]
    assert [m.value() for m in got] == [f"#{i} write to [EMAIL_ADDRESS]".encode() for i in range(20)]
    for m in got:
        headers = dict(m.headers())
        assert headers["src"] == b"rdkafka"
        assert json.loads(headers["scrubber-findings"]) == {"EMAIL_ADDRESS": 1}


async def test_scrubbing_in_a_process_pool_gives_the_same_output(bootstrap: str) -> None:
    raw, clean = unique("pool"), unique("pool-c")
    await create_topics(bootstrap, [raw, clean], partitions=2)
    values = [f"{i}: {LINE}".encode() for i in range(40)]
    await produce(bootstrap, raw, values[:20], partition=0)
    await produce(bootstrap, raw, values[20:], partition=1)
    s = settings(bootstrap, [{"in": raw, "out": clean}], level=7, scrub_processes=1)
    async with running(s):
        out = await read(bootstrap, clean, 40)
    engine = Scrubber(Policy(level=7))
    assert sorted(r.value for r in out if r.value) == sorted(
        engine.scrub(v.decode()).text.encode() for v in values
    )
    assert [r.value for r in out if r.partition == 0] == [
        engine.scrub(v.decode()).text.encode() for v in values[:20]
    ]


async def test_batches_scrubbed_side_by_side_leave_in_partition_order(bootstrap: str) -> None:
    """Two scrub processes and small batches: a slow batch is overtaken by the next one of its
    partition, and still goes out (and is committed) first."""
    raw, clean = unique("side"), unique("side-c")
    await create_topics(bootstrap, [raw, clean], partitions=2)

    def line(i: int, mail: str) -> bytes:
        return f"{i} sleep {30 if i % 10 == 0 else 0} mail {mail}".encode()

    await produce(bootstrap, raw, [line(i, f"u{i}@example.com") for i in range(80)], partition=0)
    await produce(bootstrap, raw, [line(i, f"u{i}@example.com") for i in range(80, 160)], partition=1)
    s = settings(bootstrap, [{"in": raw, "out": clean}], level=3, scrub_processes=2, batch_size=4)
    assert s.kafka is not None
    async with running(s, make_scrubber=sleepy_scrubber):
        out = await read(bootstrap, clean, 160)
    assert len(out) == 160
    for partition, ids in ((0, range(80)), (1, range(80, 160))):
        got = [r.value for r in out if r.partition == partition]
        assert got == [line(i, "[EMAIL_ADDRESS]") for i in ids]
    probe = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=s.kafka.group_id)
    await probe.start()
    try:
        assert await probe.committed(TopicPartition(raw, 0)) == 80
        assert await probe.committed(TopicPartition(raw, 1)) == 80
    finally:
        await probe.stop()


async def test_scrub_headers_masks_header_values_and_holds_back_undecodable_ones(bootstrap: str) -> None:
    every_in, every_out, named_in, named_out = (unique(p) for p in ("hall", "hall-c", "hnamed", "hnamed-c"))
    await create_topics(bootstrap, [every_in, every_out, named_in, named_out])
    ok = [("x-user", EMAIL.encode()), ("trace", b"abc"), ("x-ssn", f"ssn {SSN}".encode())]
    bad = [("x-user", EMAIL.encode()), ("x-bin", b"\xff\xfe")]
    for topic in (every_in, named_in):
        await produce(bootstrap, topic, [b"first"], headers=ok)
        await produce(bootstrap, topic, [b"second"], headers=bad)
        await produce(bootstrap, topic, [b"third"])
    s = settings(
        bootstrap,
        [
            {"in": every_in, "out": every_out, "scrub_headers": True},
            {"in": named_in, "out": named_out, "scrub_headers": ["x-user"]},
        ],
        level=7,
        scrub_processes=1,  # headers cross to the scrub process and back
    )
    assert s.kafka is not None
    async with running(s):
        (held,) = await read(bootstrap, s.kafka.quarantine_topic, 1)
        every = await read(bootstrap, every_out, 2)
        named = await read(bootstrap, named_out, 3)

    assert [r.value for r in every] == [b"first", b"third"]
    assert every[0].headers == {
        "x-user": b"[EMAIL_ADDRESS]",
        "trace": b"abc",
        "x-ssn": b"ssn [US_SSN]",
        "scrubber-findings": b'{"EMAIL_ADDRESS":1,"US_SSN":1}',
    }
    # Only the header that is scrubbed must be text; the record is held back as it came.
    assert (held.value, held.headers["scrubber-reason"]) == (b"second", b"invalid_header")
    assert (held.headers["x-user"], held.headers["x-bin"]) == (EMAIL.encode(), b"\xff\xfe")
    assert held.headers["scrubber-source-topic"] == every_in.encode()
    # A list of names: those are scrubbed, the others pass as they are.
    assert [r.value for r in named] == [b"first", b"second", b"third"]
    assert named[0].headers["x-user"] == b"[EMAIL_ADDRESS]"
    assert named[0].headers["x-ssn"] == f"ssn {SSN}".encode()
    assert (named[1].headers["x-user"], named[1].headers["x-bin"]) == (b"[EMAIL_ADDRESS]", b"\xff\xfe")
    assert json.loads(named[2].headers["scrubber-findings"]) == {}


async def test_records_that_cannot_be_sent_as_they_are_leave_a_stub_in_quarantine(bootstrap: str) -> None:
    raw, clean = unique("big"), unique("big-c")
    await create_topics(bootstrap, [raw, clean])
    huge = b"y" * (3 << 20)  # over max_message_bytes and over what the producer will send
    await produce(bootstrap, raw, [huge], keys=[b"big"], headers=[("trace", b"t")])
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap})
    producer.produce(raw)  # neither key nor value: aiokafka could not send it on
    producer.produce(raw, b"after")
    assert producer.flush(10) == 0
    s = settings(bootstrap, [{"in": raw, "out": clean}], max_message_bytes=1000)
    assert s.kafka is not None
    async with running(s):
        stubs = await read(bootstrap, s.kafka.quarantine_topic, 2)
        (after,) = await read(bootstrap, clean, 1)
    assert after.value == b"after"
    big, null = sorted(stubs, key=lambda r: int(r.headers["scrubber-source-offset"]))
    assert (big.value, big.key, null.value, null.key) == (b"", None, b"", None)
    assert big.headers["scrubber-reason"] == b"too_large" and big.headers["trace"] == b"t"
    assert big.headers["scrubber-value-omitted"] == b"too_large"
    assert null.headers["scrubber-reason"] == b"null_record"
    assert null.headers["scrubber-value-omitted"] == b"null_record"
    assert null.headers["scrubber-source-offset"] == b"1"
