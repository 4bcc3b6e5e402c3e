"""The Helm values for inspect's Kubernetes sandbox (sandboxes/r/k8s-values.yaml): what can be checked offline.

Checked here: the file parses, names the compose file's image, uses only keys of the agent-env chart's
``services`` schema, and carries the compose file's user, work dir and limits where Kubernetes can express them.
With the ``inspect-k8s-sandbox`` package installed, the values are also validated against the chart's own JSON
schema. Not checked here (needs a cluster and helm): rendering the chart, pulling the image, the pod starting.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml

from causalverify_inspect.sandbox.docker import SANDBOX_DIR

VALUES = SANDBOX_DIR / "k8s-values.yaml"
# keys of services.<name> in the agent-env chart's values.schema.json (inspect-k8s-sandbox 0.14; additionalProperties
# is false there, so an unknown key fails `helm install`)
SERVICE_KEYS = {
    "networks",
    "runtimeClassName",
    "image",
    "imagePullPolicy",
    "additionalDnsRecords",
    "ports",
    "dnsRecord",
    "command",
    "args",
    "workingDir",
    "readinessProbe",
    "livenessProbe",
    "env",
    "resources",
    "securityContext",
    "volumeMounts",
    "volumes",
    "tolerations",
    "nodeSelector",
    "networkIsolated",
    "initContainers",
}
TOP_KEYS = {
    "global",
    "allowDomains",
    "allowDomainsPorts",
    "allowEntities",
    "allowCIDR",
    "networks",
    "corednsImage",
    "corednsCommand",
    "imagePullSecrets",
    "services",
    "volumes",
    "additionalResources",
    "annotations",
    "labels",
    "automountServiceAccountToken",
    "serviceAccountName",
}


def _mebibytes(quantity: str) -> int:
    number, unit = re.fullmatch(r"(\d+)([MG])i", quantity).groups()
    return int(number) * (1024 if unit == "G" else 1)


@pytest.fixture
def values() -> dict:
    return yaml.safe_load(VALUES.read_text())


def test_values_use_the_compose_image_user_and_work_dir(values):
    compose = yaml.safe_load((SANDBOX_DIR / "compose.yaml").read_text())["services"]["default"]
    service = values["services"]["default"]
    assert set(values) <= TOP_KEYS and set(service) <= SERVICE_KEYS
    registry, _, image = service["image"].partition("/")
    assert registry == "REGISTRY" and image == compose["image"]
    assert service["workingDir"] == compose["working_dir"]
    assert "--uid 10001" in (SANDBOX_DIR / "Dockerfile").read_text()
    security = service["securityContext"]
    assert security["runAsUser"] == 10001 and security["runAsNonRoot"] and not security["allowPrivilegeEscalation"]
    assert security["readOnlyRootFilesystem"] is compose["read_only"] and security["capabilities"] == {"drop": ["ALL"]}
    assert values["allowDomains"] == []  # the chart's network policy then allows no egress


def test_values_carry_the_compose_limits_kubernetes_can_express(values):
    compose = yaml.safe_load((SANDBOX_DIR / "compose.yaml").read_text())["services"]["default"]
    service = values["services"]["default"]
    assert _mebibytes(service["resources"]["limits"]["memory"]) == 2048 and compose["mem_limit"] == "2g"
    assert float(service["resources"]["limits"]["cpu"]) == compose["cpus"]
    sizes = {v["name"]: _mebibytes(v["emptyDir"]["sizeLimit"]) for v in service["volumes"]}
    mounts = {m["mountPath"]: sizes[m["name"]] for m in service["volumeMounts"]}
    tmpfs = {t.split(":")[0]: int(re.search(r"size=(\d+)m", t).group(1)) for t in compose["tmpfs"]}
    assert mounts == {**tmpfs, "/dev/shm": int(compose["shm_size"].rstrip("m"))}
    assert all(v["emptyDir"]["medium"] == "Memory" for v in service["volumes"])  # counted in the memory limit


def test_values_validate_against_the_chart_schema(values):
    if importlib.util.find_spec("k8s_sandbox") is None:
        pytest.skip("inspect-k8s-sandbox is not installed (pip install inspect-k8s-sandbox to check the chart schema)")
    import jsonschema

    spec = importlib.util.find_spec("k8s_sandbox")
    schema_file = Path(spec.origin).parent / "resources/helm/agent-env/values.schema.json"
    chart_defaults = yaml.safe_load((schema_file.parent / "values.yaml").read_text())
    merged = {
        **chart_defaults,
        **values,
        "services": {"default": {**chart_defaults["services"]["default"], **values["services"]["default"]}},
    }
    jsonschema.validate(merged, json.loads(schema_file.read_text()))
