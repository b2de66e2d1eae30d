"""The Kafka transport, along source -> transform -> sink.

- :mod:`~scrubber.kafka.transform`: a route's records in, outcomes out (pure, synchronous);
- :mod:`~scrubber.kafka.session`: fetch, send to the output or quarantine topic, commit;
- :mod:`~scrubber.kafka.proxy`: the component that composes them (``scrubber run``).
"""
