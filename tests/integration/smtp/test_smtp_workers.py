"""`scrubber run --workers 2` with the SMTP relay: both workers serve the one listening port."""

from __future__ import annotations

import smtplib
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import yaml

from tests.conftest import free_port, stop_process, wait_for_port


def test_two_workers_share_the_smtp_port_and_deliver_every_message(tmp_path: Path) -> None:
    smtp_port, admin_port = free_port(), free_port()
    mailbox = tmp_path / "mailbox"
    cfg = tmp_path / "scrubber.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "level": 2,
                "admin": {"listen": f"127.0.0.1:{admin_port}"},
                "smtp": {
                    "listen": f"127.0.0.1:{smtp_port}",
                    "mailbox_dir": str(mailbox),
                    "scrub_processes": 0,
                },
            }
        )
    )
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "scrubber"), "run", "--config", str(cfg), "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(smtp_port, proc, timeout=60)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{admin_port}/readyz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            time.sleep(0.3)
        else:
            raise AssertionError("not ready with two workers within 60 s")
        for i in range(8):
            with smtplib.SMTP("127.0.0.1", smtp_port, timeout=30) as client:
                client.sendmail("a@example.com", ["b@example.org"], f"Subject: {i}\n\nSSN 524-59-3318 #{i}\n")
        delivered = sorted(mailbox.glob("*.eml"))
        assert len(delivered) == 8
        bodies = b"".join(p.read_bytes() for p in delivered)
        assert b"524-59-3318" not in bodies and bodies.count(b"[US_SSN]") == 8
        assert proc.poll() is None
    finally:
        stop_process(proc, grace=30)
    assert proc.returncode == 0
