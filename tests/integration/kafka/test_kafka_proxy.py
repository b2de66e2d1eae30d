"""The Kafka proxy against a real Kafka-protocol broker (Tansu): scrub, route, quarantine, commit."""

from __future__ import annotations

import json

from aiokafka import AIOKafkaConsumer, TopicPartition
from kafka_helpers import create_topics, produce, read, running, settings, unique

from scrubber.dial import Policy
from scrubber.engine import Scrubber

SSN = "524-59-3318"
EMAIL = "jane.roe@example.com"
PHONE = "(415) 555-0172"
IP = "10.1.2.3"
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
