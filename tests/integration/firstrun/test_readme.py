"""Every command in README.md is exercised: run here, or mirrored by the test named for it."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import helm_python as helm
import pytest
import yaml

from tests.conftest import REPO

README = (REPO / "README.md").read_text()
CHART_README = (REPO / "deploy/helm/scrubber/README.md").read_text()
DEVSET = REPO.parent / "shared" / "devset" / "corpus.jsonl"


def blocks(lang: str, text: str = README) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def commands(text: str = README) -> list[str]:
    out: list[str] = []
    for block in blocks("sh", text):
        for cmd in block.replace("\\\n", " ").splitlines():
            cmd = (
                " ".join(cmd.split("#", 1)[0].split()) if not cmd.lstrip().startswith("echo") else cmd.strip()
            )
            if cmd:
                out.append(cmd)
    return out


def run(cmd: str, cwd: Path = REPO, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, shell=True, cwd=cwd, capture_output=True, text=True, timeout=300, **kw)


# Commands that run a long-lived service or the whole suite: the test that runs each.
MIRRORED = {
    "python3 -m venv .venv && .venv/bin/pip install -e '.[embedded]' && .venv/bin/scrubber run": (
        "tests/integration/firstrun/test_embedded.py",
        '[SCRUBBER, "run"]',
    ),
    "tests/run": (".ci/run", "tests/run"),
    ".venv/bin/scrubber demo --level 5": (
        "tests/integration/firstrun/test_embedded.py",
        '"demo", "--level", "5"',
    ),
    # No container engine here: the Dockerfile is linted and its build stage mirrored by the wheel test.
    "docker build -f deploy/Dockerfile -t registry.example.com/platform/scrubber:0.1.0 .": (
        "tests/deploy/test_dockerfile.py",
        "test_the_readmes_build_and_push_commands_are_the_dockerfiles",
    ),
    "curl -s http://127.0.0.1:9108/metrics | grep ^scrubber_": (
        "tests/integration/observability/test_live.py",
        "test_the_readmes_metrics_command_lists_scrubbers_own_series",
    ),
    # The compiled release build: its test builds it once, with this command, and compares it.
    "SCRUBBER_MYPYC=1 .venv/bin/pip wheel . --no-deps -w dist": (
        "tests/integration/firstrun/test_compiled_wheel.py",
        'RELEASE_BUILD = "SCRUBBER_MYPYC=1 .venv/bin/pip wheel . --no-deps -w dist"',
    ),
    "docker push registry.example.com/platform/scrubber:0.1.0": (
        "tests/deploy/test_dockerfile.py",
        "test_the_readmes_build_and_push_commands_are_the_dockerfiles",
    ),
}


def test_every_readme_command_is_covered() -> None:
    handled = {*MIRRORED, *RUN_HERE}
    for cmd in commands():
        assert cmd in handled or cmd.startswith(("helm install ", "echo ")), (
            f"README command without a test: {cmd}"
        )


@pytest.mark.parametrize("cmd", sorted(MIRRORED))
def test_mirrored_commands_are_run_by_their_tests(cmd: str) -> None:
    assert cmd in commands()
    path, needle = MIRRORED[cmd]
    assert needle in (REPO / path).read_text()


def test_scrub_example_prints_what_the_readme_says() -> None:
    (cmd,) = [c for c in commands() if c.startswith("echo ")]
    said = re.search(r"prints `([^`]*)`", README)
    assert said is not None
    res = run(cmd)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == said.group(1)


def test_scan_and_score_commands(tmp_path: Path) -> None:
    scan, score = (c for c in commands() if "scrubber scan" in c or "score.py" in c)
    assert DEVSET.exists(), "shared/devset must sit beside the checkout"
    res = run(scan.replace("/tmp/pred.jsonl", str(tmp_path / "pred.jsonl")))
    assert res.returncode == 0, res.stderr[-2000:]
    res = run(score.replace("/tmp/pred.jsonl", str(tmp_path / "pred.jsonl")))
    assert res.returncode == 0, res.stderr
    assert "MICRO" in res.stdout


def test_env_override_example(tmp_path: Path) -> None:
    (cmd,) = [c for c in commands() if "check-config scrubber.yaml" in c]
    kafka_example = next(b for b in blocks("yaml") if "kafka:" in b)
    (tmp_path / "scrubber.yaml").write_text(kafka_example)
    res = run(cmd.replace(".venv/bin/scrubber", str(REPO / ".venv/bin/scrubber")), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    effective = yaml.safe_load(res.stdout)
    assert effective["level"] == 4
    assert effective["kafka"]["bootstrap_servers"] == "kafka:9092"
    assert effective["kafka"]["routes"][0]["level"] == 3


def test_smtp_example_parses(tmp_path: Path) -> None:
    smtp_example = next(b for b in blocks("yaml") if b.startswith("smtp:"))
    (tmp_path / "smtp.yaml").write_text(smtp_example)
    res = run(f"{REPO / '.venv/bin/scrubber'} check-config {tmp_path / 'smtp.yaml'}")
    assert res.returncode == 0, res.stderr
    assert yaml.safe_load(res.stdout)["smtp"]["upstream"]["port"] == 2526


@pytest.mark.parametrize(
    "cmd", [c for c in commands() + commands(CHART_README) if c.startswith("helm install ")]
)
def test_helm_install_commands_render(cmd: str) -> None:
    """No cluster here: render the chart with exactly the command's release, namespace and --set values."""
    args = shlex.split(cmd)
    release, chart_dir = args[2], args[3]
    namespace = args[args.index("-n") + 1]
    values: dict[str, Any] = {}
    for i, a in enumerate(args):
        if a == "--set":
            _merge(values, helm.parse_set_string(args[i + 1]))
    chart = helm.Chart.load(str(REPO / chart_dir))
    try:
        out = chart.render(values, name=release, namespace=namespace)
    finally:
        chart.close()
    docs = [d for path, text in out.items() if path.endswith(".yaml") for d in yaml.safe_load_all(text) if d]
    kinds = {d["kind"] for d in docs}
    assert "Deployment" in kinds and "ConfigMap" in kinds
    for doc in docs:
        if doc["kind"] == "ConfigMap" and "scrubber.yaml" in doc.get("data", {}):
            cfg = yaml.safe_load(doc["data"]["scrubber.yaml"])
            if "level=4" in cmd:
                assert cfg["level"] == 4


def _merge(into: dict[str, Any], new: dict[str, Any]) -> None:
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        elif isinstance(v, list) and isinstance(into.get(k), list):
            for i, item in enumerate(v):
                if i < len(into[k]) and isinstance(item, dict):
                    _merge(into[k][i], item)
                elif i >= len(into[k]):
                    into[k].append(item)
        else:
            into[k] = v


RUN_HERE = {
    c for c in commands() if "scrubber scan" in c or "score.py" in c or "check-config scrubber.yaml" in c
}


def test_the_metrics_table_lists_every_metric() -> None:
    from prometheus_client import REGISTRY

    import scrubber.observability  # noqa: F401  (registers the metrics)

    defined = set()
    for family in REGISTRY.collect():
        if family.name.startswith("scrubber_"):
            defined.add(family.name + ("_total" if family.type == "counter" else ""))
    section = README.split("## Observability", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `(scrubber_\w+)`", section, re.M))
    assert listed == defined
