"""The SMTP transport, along source -> transform -> sink.

- :mod:`~scrubber.smtp.server`: aiosmtpd's protocol and each session's state (the source);
- :mod:`~scrubber.smtp.relay`: the component: who may connect, what each message becomes;
- :mod:`~scrubber.smtp.transform`: the MIME scrub, run in :mod:`scrubber.workers` (the transform);
- :mod:`~scrubber.smtp.delivery`: the upstream MTA or a mailbox directory (the sink);
- :mod:`~scrubber.smtp.auth`: the users file of SMTP AUTH.
"""
