"""The Helm chart, rendered and linted by the real Helm SDK, validated against Kubernetes schemas."""

from __future__ import annotations

import base64
import copy
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import helm_python as helm
import kubernetes_validate
import pytest
import yaml
from kubernetes_validate.utils import all_versions

from scrubber.dial import DEFAULT_LEVEL

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "deploy" / "helm" / "scrubber"
KUBE = max(all_versions(), key=lambda v: tuple(int(x) for x in v.split(".")))
NAMESPACE = "pii"
SCRUBBER = str(Path(sys.executable).parent / "scrubber")

# No public image exists: every install names the registry the image was pushed to.
IMAGE = {"repository": "registry.example.com/platform/scrubber"}
SMTP = {"enabled": True, "upstream": {"host": "mx.example.com", "port": 587}}
EVERYTHING: dict[str, Any] = {
    "image": IMAGE,
    "level": 4,
    "policy": {"operator": "hash", "entities": {"US_SSN": {"operator": "mask", "keep_last": 4}}},
    "hmac": {"enabled": True},
    "workers": 2,
    "limits": {"max_message_bytes": 2097152},
    "secrets": {
        "hmacKey": "k" * 32,
        "kafkaSaslPassword": "sasl-pw",
        "smtpUpstreamPassword": "up-pw",
        "smtpAuthUsers": "relay:$2b$12$abcdefghijklmnopqrstuv",
    },
    "kafka": {
        "enabled": True,
        "routes": [
            {"in": "support.chat.raw", "out": "support.chat.clean", "format": "text"},
            {"in": "app.logs.raw", "out": "app.logs.clean", "format": "json", "fields": ["msg"], "level": 3},
        ],
        "sasl": {"enabled": True, "username": "scrubber"},
        "extraConfig": {"max_in_flight": 500},
    },
    "smtp": {
        "enabled": True,
        "upstream": {"host": "mx.example.com", "port": 587, "username": "relay-user"},
        "tls": {"secretName": "scrubber-smtp-tls"},
        "auth": {"required": True},
        "extraConfig": {"attachments": "strip", "max_recipients": 50},
        "service": {"type": "LoadBalancer", "loadBalancerSourceRanges": ["203.0.113.0/24"]},
    },
    "serviceMonitor": {"enabled": True, "labels": {"release": "prometheus"}},
    "prometheusRule": {"enabled": True},
    "networkPolicy": {
        "enabled": True,
        "metricsFrom": [
            {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}
        ],
        "kafkaTo": [{"ipBlock": {"cidr": "10.20.0.0/16"}}],
    },
    "autoscaling": {"enabled": True},
}
VALUE_SETS: dict[str, dict[str, Any]] = {
    "kafka-only": {"image": IMAGE},
    "smtp-only": {"image": IMAGE, "kafka": {"enabled": False}, "smtp": SMTP},
    "both": {"image": IMAGE, "smtp": SMTP},
    "everything": EVERYTHING,
    "existing-secret": {**EVERYTHING, "secrets": {"existingSecret": "scrubber-credentials"}},
}
# Prometheus Operator kinds: no schema in kubernetes-validate; checked by the tests below instead.
CRD_KINDS = {"ServiceMonitor", "PrometheusRule"}


@pytest.fixture(scope="module")
def chart() -> Iterator[helm.Chart]:
    c = helm.Chart.load(str(CHART))
    yield c
    c.close()


def render(chart: helm.Chart, values: dict[str, Any]) -> list[dict[str, Any]]:
    out = chart.render({"image": IMAGE, **copy.deepcopy(values)}, name="demo", namespace=NAMESPACE)
    docs: list[dict[str, Any]] = []
    for path, text in sorted(out.items()):
        if path.endswith((".yaml", ".yml")):
            docs.extend(d for d in yaml.safe_load_all(text) if d)
    return docs


def by_kind(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


@pytest.mark.parametrize("name", VALUE_SETS)
def test_lint_is_clean_in_strict_mode(name: str) -> None:
    report = helm.lint(
        str(CHART), copy.deepcopy(VALUE_SETS[name]), strict=True, namespace=NAMESPACE, kube_version=f"v{KUBE}"
    )
    assert report["errors"] == []
    assert [m for m in report["messages"] if m["severity"] >= 2] == []


@pytest.mark.parametrize("name", VALUE_SETS)
def test_every_manifest_is_valid_for_kubernetes(chart: helm.Chart, name: str) -> None:
    docs = render(chart, VALUE_SETS[name])
    kinds = set()
    for doc in docs:
        kinds.add(doc["kind"])
        if doc["kind"] in CRD_KINDS:
            assert doc["apiVersion"] == "monitoring.coreos.com/v1"
            continue
        kubernetes_validate.validate(doc, KUBE, strict=True)
    assert {"Deployment", "ConfigMap", "Service", "PodDisruptionBudget", "ServiceAccount"} <= kinds
    optional = {"HorizontalPodAutoscaler", "NetworkPolicy", "ServiceMonitor", "PrometheusRule"}
    assert (kinds & optional == optional) == (name in ("everything", "existing-secret"))


@pytest.mark.parametrize(
    ("name", "modes"),
    [
        ("kafka-only", ["kafka"]),
        ("smtp-only", ["smtp"]),
        ("both", ["kafka", "smtp"]),
        ("everything", ["kafka", "smtp"]),
    ],
)
def test_one_deployment_per_mode_with_probes_on_the_admin_port(
    chart: helm.Chart, name: str, modes: list[str]
) -> None:
    docs = render(chart, VALUE_SETS[name])
    deployments = by_kind(docs, "Deployment")
    assert sorted(deployments) == [f"demo-scrubber-{m}" for m in modes]
    for mode in modes:
        dep = deployments[f"demo-scrubber-{mode}"]
        pod = dep["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        assert container["args"] == ["run", "--config", "/etc/scrubber/config.yaml"]
        assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}
        assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}
        assert container["securityContext"]["readOnlyRootFilesystem"] is True
        assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
        assert {"name": "metrics", "containerPort": 9108, "protocol": "TCP"} in container["ports"]
        assert ("replicas" in dep["spec"]) != (name == "everything")
        assert dep["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"] == mode
        metrics_svc = by_kind(docs, "Service")[f"demo-scrubber-{mode}-metrics"]
        assert metrics_svc["spec"]["selector"] == dep["spec"]["selector"]["matchLabels"]
    assert ("demo-scrubber-smtp" in by_kind(docs, "Service")) == ("smtp" in modes)


def configs(docs: list[dict[str, Any]]) -> dict[str, tuple[str, dict[str, str]]]:
    """Per mode: the rendered config file and the environment its Deployment gives the container."""
    secrets = {
        name: {k: base64.b64decode(v).decode() for k, v in s.get("data", {}).items()}
        for name, s in by_kind(docs, "Secret").items()
    }
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for name, dep in by_kind(docs, "Deployment").items():
        mode = name.rsplit("-", 1)[1]
        text = by_kind(docs, "ConfigMap")[name]["data"]["config.yaml"]
        env: dict[str, str] = {}
        for var in dep["spec"]["template"]["spec"]["containers"][0].get("env", []):
            if "value" in var:
                env[var["name"]] = var["value"]
                continue
            ref = var["valueFrom"]["secretKeyRef"]
            # An existing Secret is not in the manifests; stand in for what the operator put there.
            env[var["name"]] = secrets.get(ref["name"], {}).get(ref["key"], f"external-{ref['key']}")
        out[mode] = (text, env)
    return out


@pytest.mark.parametrize("name", VALUE_SETS)
def test_the_configmap_is_a_config_scrubber_accepts(chart: helm.Chart, name: str, tmp_path: Path) -> None:
    docs = render(chart, VALUE_SETS[name])
    for mode, (text, env) in configs(docs).items():
        path = tmp_path / f"{mode}.yaml"
        path.write_text(text)
        clean = {k: v for k, v in os.environ.items() if not k.startswith("SCRUBBER_")}
        proc = subprocess.run(
            [SCRUBBER, "check-config", str(path)],
            env={**clean, **env},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        effective = yaml.safe_load(proc.stdout)
        assert effective["level"] == VALUE_SETS[name].get("level", DEFAULT_LEVEL)
        assert effective["admin"]["listen"] == "0.0.0.0:9108"
        other = "smtp" if mode == "kafka" else "kafka"
        assert mode in effective and other not in effective
        if mode == "kafka":
            routes = VALUE_SETS[name].get("kafka", {}).get("routes") or [{"in": "support.chat.raw"}]
            assert [r["in"] for r in effective["kafka"]["routes"]] == [r["in"] for r in routes]


def test_credentials_come_from_the_secret_and_never_sit_in_the_configmap(chart: helm.Chart) -> None:
    docs = render(chart, EVERYTHING)
    (secret,) = by_kind(docs, "Secret").values()
    assert sorted(secret["data"]) == [
        "hmac-key",
        "kafka-sasl-password",
        "smtp-auth-users",
        "smtp-upstream-password",
    ]
    for value in EVERYTHING["secrets"].values():
        for cm in by_kind(docs, "ConfigMap").values():
            assert value not in yaml.safe_dump(cm)
    kafka_env = {
        e["name"]
        for e in by_kind(docs, "Deployment")["demo-scrubber-kafka"]["spec"]["template"]["spec"]["containers"][
            0
        ]["env"]
    }
    assert {
        "SCRUBBER_HMAC_KEY",
        "KAFKA_SASL_PASSWORD",
    } <= kafka_env and "SMTP_UPSTREAM_PASSWORD" not in kafka_env
    smtp_pod = by_kind(docs, "Deployment")["demo-scrubber-smtp"]["spec"]["template"]["spec"]
    mounts = {v["name"]: v for v in smtp_pod["volumes"]}
    assert mounts["secrets"]["secret"]["items"] == [{"key": "smtp-auth-users", "path": "smtp-auth-users"}]
    assert mounts["tls"]["secret"]["secretName"] == "scrubber-smtp-tls"


def test_an_existing_secret_is_referenced_instead_of_created(chart: helm.Chart) -> None:
    docs = render(chart, VALUE_SETS["existing-secret"])
    assert by_kind(docs, "Secret") == {}
    for dep in by_kind(docs, "Deployment").values():
        refs = {
            e["valueFrom"]["secretKeyRef"]["name"]
            for e in dep["spec"]["template"]["spec"]["containers"][0]["env"]
            if "valueFrom" in e
        }
        assert refs == {"scrubber-credentials"}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"image": {}}, "image.repository is required: build the image from deploy/Dockerfile"),
        ({"hmac": {"enabled": True}}, "secrets.hmacKey is required"),
        ({"kafka": {"enabled": False}}, "turn on at least one mode"),
        ({"smtp": {"enabled": True}}, "smtp.upstream.host is required"),
        (
            {"smtp": {**SMTP, "auth": {"required": True}}, "secrets": {"smtpAuthUsers": "u:p"}},
            "AUTH is only offered over TLS",
        ),
    ],
)
def test_incomplete_values_fail_with_a_clear_message(
    chart: helm.Chart, values: dict[str, Any], message: str
) -> None:
    with pytest.raises(helm.HelmRenderError, match=message):
        chart.render({"image": IMAGE, **values}, name="demo", namespace=NAMESPACE)


@pytest.mark.parametrize("name", VALUE_SETS)
def test_value_sets_pass_the_schema(chart: helm.Chart, name: str) -> None:
    chart.validate_schema(copy.deepcopy(VALUE_SETS[name]))


@pytest.mark.parametrize(
    ("values", "where"),
    [
        ({"level": 9}, "/level"),
        ({"smtp": {"enabled": True, "upstream": {"port": 70000}}}, "/smtp/upstream/port"),
        ({"kafka": {"enabled": True, "routes": [{"in": "a"}]}}, "/kafka/routes/0"),
        ({"kafka": {"enabled": True, "routes": [{"in": "a", "out": "b", "format": "xml"}]}}, "format"),
        ({"logging": {"format": "yaml"}}, "/logging/format"),
        ({"workers": 0}, "/workers"),
        ({"replicas": 3}, "replicas"),
        ({"smtp": {"enabled": True, "upstream": {"tls": "ssl"}}}, "/smtp/upstream/tls"),
    ],
)
def test_bad_values_are_rejected_by_the_schema(chart: helm.Chart, values: dict[str, Any], where: str) -> None:
    with pytest.raises(helm.HelmValuesError, match=where):
        chart.validate_schema(values)


def test_servicemonitor_selects_the_metrics_services(chart: helm.Chart) -> None:
    docs = render(chart, EVERYTHING)
    (monitor,) = by_kind(docs, "ServiceMonitor").values()
    wanted = monitor["spec"]["selector"]["matchLabels"]
    selected = [
        name
        for name, svc in by_kind(docs, "Service").items()
        if wanted.items() <= svc["metadata"]["labels"].items()
    ]
    assert sorted(selected) == ["demo-scrubber-kafka-metrics", "demo-scrubber-smtp-metrics"]
    assert monitor["spec"]["endpoints"][0]["port"] == "metrics"
    assert monitor["metadata"]["labels"]["release"] == "prometheus"
    assert monitor["spec"]["namespaceSelector"] == {"matchNames": [NAMESPACE]}


def test_dashboard_configmap_carries_the_sidecar_label(chart: helm.Chart) -> None:
    docs = render(chart, {})
    dashboard = by_kind(docs, "ConfigMap")["demo-scrubber-dashboard"]
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert '"uid": "scrubber-overview"' in dashboard["data"]["scrubber.json"]
    assert "demo-scrubber-dashboard" not in by_kind(
        render(chart, {"dashboard": {"enabled": False}}), "ConfigMap"
    )


def test_the_image_runs_as_the_user_the_chart_expects(chart: helm.Chart) -> None:
    dockerfile = (REPO / "deploy" / "Dockerfile").read_text()
    user = dict(
        line.split(None, 1) for line in dockerfile.splitlines() if line.startswith(("USER ", "EXPOSE "))
    )
    pod = by_kind(render(chart, {"smtp": SMTP}), "Deployment")["demo-scrubber-smtp"]["spec"]["template"][
        "spec"
    ]
    security = pod["securityContext"]
    assert user["USER"] == f"{security['runAsUser']}:{security['runAsGroup']}"
    ports = {str(p["containerPort"]) for p in pod["containers"][0]["ports"]}
    assert set(user["EXPOSE"].split()) == ports
    assert re.search(r"^ARG PYTHON_IMAGE=python:[\d.]+-slim", dockerfile, re.M)


def test_notes_say_the_topics_must_exist_first_and_name_the_smtp_service(chart: helm.Chart) -> None:
    def notes(values: dict[str, Any]) -> str:
        out = chart.render({"image": IMAGE, **copy.deepcopy(values)}, name="mail", namespace=NAMESPACE)
        return out["scrubber/templates/NOTES.txt"]

    text = notes({"smtp": SMTP})
    assert "Create every output topic and scrubber.quarantine first" in text
    assert f"relayhost at mail-scrubber-smtp.{NAMESPACE}.svc:25" in text
    assert "grep ^scrubber_" in text
    created = notes({"kafka": {"extraConfig": {"auto_create_topics": True}}})
    assert "Create every output topic" not in created
