"""The chart's alerting rules and Grafana dashboard against promtool and the metrics that exist."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import helm_python as helm
import pytest
import yaml
from prometheus_client import REGISTRY
from prometheus_client.metrics_core import Metric

from scrubber import config, observability
from scrubber.supervisor import Supervisor, SupervisorCollector

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "deploy" / "helm" / "scrubber"
DASHBOARD = CHART / "files" / "dashboard.json"
# Labels Prometheus (and the Prometheus Operator) put on every scraped series.
TARGET_LABELS = {"namespace", "job", "pod", "instance", "service", "le"}
SELECTOR = 'namespace="pii", job="demo-scrubber-kafka-metrics"'

_SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "summary": ("_count", "_sum", "_created"),
    "gauge": ("",),
    "info": ("_info",),
    "unknown": ("",),
}


def _families() -> list[Metric]:
    supervisor = Supervisor(config.parse({}), 1)
    return [*REGISTRY.collect(), *SupervisorCollector(supervisor).collect()]


def exposed() -> dict[str, set[str]]:
    """Every series name a scrubber exposes (single process or supervisor), with its label names."""
    out: dict[str, set[str]] = {"up": set()}
    for fam in _families():
        labels = {label for s in fam.samples for label in s.labels}
        if fam.name.startswith("scrubber_"):
            metric = next(
                (m for m in vars(observability).values() if getattr(m, "_name", None) == fam.name), None
            )
            labels |= set(getattr(metric, "_labelnames", ()))
        for suffix in _SUFFIXES[fam.type]:
            out[fam.name + suffix] = labels
    return out


def referenced(expr: str) -> set[str]:
    """Metric names in a PromQL expression (or a Grafana ``label_values(metric, label)`` query)."""
    names = set(re.findall(r"\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{", expr))
    return names | set(re.findall(r"label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,", expr))


def grouping_labels(expr: str) -> set[str]:
    return {
        label.strip()
        for group in re.findall(r"\b(?:by|without)\s*\(([^)]*)\)", expr)
        for label in group.split(",")
        if label.strip()
    }


def dashboard_exprs() -> list[str]:
    dash = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
    exprs += [v["query"]["query"] for v in dash["templating"]["list"] if v["type"] == "query"]
    return exprs


def rendered_rules(values: dict[str, Any] | None = None) -> dict[str, Any]:
    chart = helm.Chart.load(str(CHART))
    try:
        values = {"image": {"repository": "registry.example.com/platform/scrubber"}, **(values or {})}
        values.setdefault("prometheusRule", {"enabled": True})
        out = chart.render(values, name="demo", namespace="pii")
    finally:
        chart.close()
    (rule,) = [d for d in yaml.safe_load_all(out["scrubber/templates/prometheusrule.yaml"]) if d]
    return dict(rule["spec"])


def rule_exprs() -> list[str]:
    return [r["expr"] for g in rendered_rules()["groups"] for r in g["rules"]]


def test_dashboard_and_alerts_reference_only_metrics_and_labels_that_exist() -> None:
    names = exposed()
    exprs = dashboard_exprs() + rule_exprs()
    assert len(exprs) > 25
    used: set[str] = set()
    for expr in exprs:
        metrics = referenced(expr)
        assert metrics, expr
        unknown = metrics - set(names)
        assert not unknown, f"{expr}: no such metric {sorted(unknown)}"
        used |= metrics
        labels = set().union(*(names[m] for m in metrics)) | TARGET_LABELS
        assert grouping_labels(expr) <= labels, expr
    # Every scrubber metric is shown somewhere.
    families = {n.removesuffix("_total").removesuffix("_bucket") for n in used}
    for metric in vars(observability).values():
        if hasattr(metric, "_name") and hasattr(metric, "_labelnames"):
            assert metric._name in families, f"{metric._name} is on no dashboard panel or alert"


def test_alert_rules_pass_promtool(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(yaml.safe_dump(rendered_rules()))
    proc = subprocess.run(["promtool", "check", "rules", str(rules)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS: 7 rules found" in proc.stdout


def series(metric: str, labels: str, values: str) -> dict[str, str]:
    return {"series": f"{metric}{{{SELECTOR}{labels}}}", "values": values}


ALERT_TESTS = {
    "evaluation_interval": "1m",
    "tests": [
        {
            "interval": "1m",
            "input_series": [
                series(
                    "scrubber_messages_total", ',transport="kafka",route="a",outcome="forwarded"', "0+60x40"
                ),
                series(
                    "scrubber_messages_total", ',transport="kafka",route="a",outcome="quarantined"', "0+10x40"
                ),
                series("scrubber_kafka_consumer_lag", ',topic="a",partition="0"', "0+500x40"),
                series(
                    "scrubber_upstream_errors_total", ',transport="smtp",kind="SMTPConnectError"', "0+30x40"
                ),
                series("up", "", "1x40"),
            ],
            "alert_rule_test": [
                {
                    "eval_time": "30m",
                    "alertname": "ScrubberQuarantineRateHigh",
                    "exp_alerts": [
                        {
                            "exp_labels": {
                                "severity": "warning",
                                "namespace": "pii",
                                "job": "demo-scrubber-kafka-metrics",
                                "transport": "kafka",
                            }
                        }
                    ],
                },
                {
                    "eval_time": "35m",
                    "alertname": "ScrubberKafkaLagGrowing",
                    "exp_alerts": [
                        {
                            "exp_labels": {
                                "severity": "warning",
                                "namespace": "pii",
                                "job": "demo-scrubber-kafka-metrics",
                                "topic": "a",
                            }
                        }
                    ],
                },
                {
                    "eval_time": "30m",
                    "alertname": "ScrubberUpstreamErrors",
                    "exp_alerts": [
                        {
                            "exp_labels": {
                                "severity": "warning",
                                "namespace": "pii",
                                "job": "demo-scrubber-kafka-metrics",
                                "transport": "smtp",
                                "kind": "SMTPConnectError",
                            }
                        }
                    ],
                },
                {"eval_time": "30m", "alertname": "ScrubberNoTraffic", "exp_alerts": []},
                {"eval_time": "30m", "alertname": "ScrubberDown", "exp_alerts": []},
            ],
        },
        {
            # A target that is up but has never handled a message: no series of the counter at all.
            "interval": "1m",
            "input_series": [series("up", "", "1x60")],
            "alert_rule_test": [
                {
                    "eval_time": "50m",
                    "alertname": "ScrubberNoTraffic",
                    "exp_alerts": [
                        {
                            "exp_labels": {
                                "severity": "info",
                                "namespace": "pii",
                                "job": "demo-scrubber-kafka-metrics",
                            }
                        }
                    ],
                },
                {"eval_time": "50m", "alertname": "ScrubberQuarantineRateHigh", "exp_alerts": []},
            ],
        },
    ],
}


@pytest.mark.parametrize("case", [0, 1])
def test_alerts_fire_on_the_series_they_are_about(tmp_path: Path, case: int) -> None:
    rules = rendered_rules()
    # promtool compares annotations too; they are text for people, the expressions are under test.
    for group in rules["groups"]:
        for rule in group["rules"]:
            rule.pop("annotations", None)
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rules))
    test = {**ALERT_TESTS, "rule_files": ["rules.yaml"], "tests": [ALERT_TESTS["tests"][case]]}
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(test))
    proc = subprocess.run(
        ["promtool", "test", "rules", "test.yaml"], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
