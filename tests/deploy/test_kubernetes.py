"""The Kubernetes manifests (deploy/kubernetes): the base and every overlay, rendered by `kubectl kustomize`,
pass a strict schema check for a current Kubernetes version and keep the promises docs/deployment.md makes —
probes on the routes the processes serve, credentials only in the Secret, outside traffic to the backend only,
only settings the hub knows, callers pointed at Services that exist and that the servers answer to."""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from ai_llm.common.settings import Settings
from ai_llm.hub.launcher import SERVICES
from backend.api.routers.auth import PUBLIC_API_PATHS

pytestmark = pytest.mark.integration  # renders with a child process (kubectl)

ROOT = Path(__file__).resolve().parents[2]
KUBE = ROOT / "deploy" / "kubernetes"
OVERLAYS = sorted(p.name for p in (KUBE / "overlays").iterdir() if (p / "kustomization.yaml").exists())
TARGETS = ["base", *(f"overlays/{name}" for name in OVERLAYS)]
#: The Kubernetes version the manifests are checked against (kubernetes-validate's newest schema).
KUBERNETES_VERSION = "1.37.0"
#: What `podman kube play` runs (the podman overlay holds nothing else).
PODMAN_KINDS = {"Pod", "Deployment", "PersistentVolumeClaim", "ConfigMap"}
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "[::1]"}
SETTING_NAMES = {name.upper() for name in Settings.model_fields}
WORKLOADS = ("Deployment", "StatefulSet")


def kubectl() -> str:
    """kubectl on PATH, else the one `make kubectl` installs into the virtual environment (PyPI's wheel)."""
    found = shutil.which("kubectl") or shutil.which("kubectl", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail("kubectl is not installed: run `make kubectl` (it installs the kubectl wheel from PyPI)")
    return found


def render(target: str) -> list[dict[str, Any]]:
    out = subprocess.run([kubectl(), "kustomize", str(KUBE / target)], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "KUBECONFIG": os.devnull})
    assert out.returncode == 0, f"kubectl kustomize {target} failed:\n{out.stderr}"
    return [doc for doc in yaml.safe_load_all(out.stdout) if doc]


@pytest.fixture(scope="module")
def rendered() -> dict[str, list[dict[str, Any]]]:
    return {target: render(target) for target in TARGETS}


def of_kind(docs: list[dict[str, Any]], *kinds: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] in kinds]


def hub_containers(docs: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(workload, container) for every container that runs one of the hub's processes (`python -m …`)."""
    return [(w, c) for w in of_kind(docs, *WORKLOADS) for c in w["spec"]["template"]["spec"]["containers"]
            if "agent-hub" in c["image"] and c.get("command", [])[:2] == ["python", "-m"]]


def module_of(container: dict[str, Any]) -> str:
    command = container["command"]
    return command[command.index("-m") + 1]


def config_data(docs: list[dict[str, Any]], container: dict[str, Any]) -> dict[str, str]:
    """The ConfigMap values a container reads through envFrom, merged."""
    names = {e["configMapRef"]["name"] for e in container.get("envFrom", []) if "configMapRef" in e}
    data: dict[str, str] = {}
    for cm in of_kind(docs, "ConfigMap"):
        if cm["metadata"]["name"] in names:
            data.update(cm.get("data", {}))
    return data


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """Whether a label selector (matchLabels and matchExpressions) selects `labels`."""
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for expr in selector.get("matchExpressions", []):
        value, op = labels.get(expr["key"]), expr["operator"]
        if (op == "In" and value not in expr["values"]) or (op == "NotIn" and value in expr["values"]) \
                or (op == "Exists" and value is None) or (op == "DoesNotExist" and value is not None):
            return False
    return True


def test_there_are_overlays_for_a_cluster_a_database_and_podman() -> None:
    assert {"production", "with-postgres", "podman"} <= set(OVERLAYS)


@pytest.mark.parametrize("target", TARGETS)
def test_every_rendered_object_passes_the_strict_schema_check(rendered: dict[str, Any], target: str) -> None:
    errors = []
    for doc in rendered[target]:
        try:
            kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            errors.append(f"{doc['kind']}/{doc['metadata']['name']}: {exc.message} at {list(exc.path)}")
    assert errors == []


def test_the_schema_check_rejects_a_misspelt_field(rendered: dict[str, Any]) -> None:
    deployment = copy.deepcopy(of_kind(rendered["base"], "Deployment")[0])
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["readinessprobe"] = container.pop("readinessProbe")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)


def test_every_process_of_the_hub_has_a_deployment_and_a_service_on_its_port(rendered: dict[str, Any]) -> None:
    docs = rendered["base"]
    defaults = Settings(_env_file=None)  # type: ignore[call-arg]
    modules = {module_of(c): (w, c) for w, c in hub_containers(docs)}
    assert set(modules) == {s.module for s in SERVICES}
    services = {s["metadata"]["name"]: s for s in of_kind(docs, "Service")}
    for service in SERVICES:
        workload, container = modules[service.module]
        port = getattr(defaults, service.port_setting)
        command = container["command"]
        assert command[command.index("--port") + 1] == str(port), service.name
        assert [p["containerPort"] for p in container["ports"]] == [port]
        svc = services[workload["metadata"]["name"]]
        assert selects({"matchLabels": svc["spec"]["selector"]}, workload["spec"]["template"]["metadata"]["labels"])
        assert [p["port"] for p in svc["spec"]["ports"]] == [port]


@pytest.mark.parametrize("target", [t for t in TARGETS if t != "overlays/podman"])
def test_every_workload_has_readiness_and_liveness_probes_on_a_port_it_exposes(rendered: dict[str, Any],
                                                                             target: str) -> None:
    workloads = of_kind(rendered[target], *WORKLOADS)
    assert workloads
    for workload in workloads:
        for container in workload["spec"]["template"]["spec"]["containers"]:
            ports = {p["containerPort"] for p in container.get("ports", [])} | \
                {p.get("name") for p in container.get("ports", [])}
            for kind in ("readinessProbe", "livenessProbe"):
                probe = container.get(kind)
                where = f"{target}: {workload['metadata']['name']}/{container['name']} {kind}"
                assert probe is not None, where
                if "httpGet" in probe:
                    assert probe["httpGet"]["port"] in ports, where
                else:
                    assert "exec" in probe or probe.get("tcpSocket", {}).get("port") in ports, where


def test_the_hub_probes_ask_routes_the_processes_serve_without_a_token(rendered: dict[str, Any]) -> None:
    a2a_server = (ROOT / "ai_llm/common/a2a/server.py").read_text(encoding="utf-8")
    served_without_token = {
        # every A2A agent: `/healthz` is a route and a public path of build_agent_app
        **{s.module: {"/healthz"} for s in SERVICES if s.health_path.startswith("/.well-known")},
        "ai_llm.embedding_server": {"/healthz"},
        "ai_llm.search_gateway": {"/healthz"},
        "backend": set(PUBLIC_API_PATHS) & {"/api/health"},
    }
    assert 'Route("/healthz"' in a2a_server and 'public_paths=[AGENT_CARD_WELL_KNOWN_PATH, "/healthz"]' in a2a_server
    for target in (t for t in TARGETS if t != "overlays/podman"):
        for _workload, container in hub_containers(rendered[target]):
            module = module_of(container)
            for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
                get = container[kind]["httpGet"]
                assert get["path"] in served_without_token[module], (target, module, kind)
                # A pod IP is no name the Host/Origin guard knows (421); loopback names always pass.
                hosts = [h["value"] for h in get.get("httpHeaders", []) if h["name"].lower() == "host"]
                assert hosts and hosts[0] in LOOPBACK_NAMES, (target, module, kind)


@pytest.mark.parametrize("target", TARGETS)
def test_config_maps_hold_no_credentials(rendered: dict[str, Any], target: str) -> None:
    secret_name = re.compile(r"TOKEN|PASSWORD|SECRET|_KEY$|DATABASE_URL")
    credentials_in_url = re.compile(r"://[^/@\s]+:[^/@\s]+@")
    for cm in of_kind(rendered[target], "ConfigMap"):
        if cm["metadata"].get("annotations", {}).get("agent-hub/test-credentials") == "true":
            assert target == "overlays/podman", "only the podman test run may carry its made-up credentials"
            continue
        for key, value in cm.get("data", {}).items():
            assert not secret_name.search(key), f"{target}: {cm['metadata']['name']} holds {key}"
            assert not credentials_in_url.search(str(value)), f"{target}: {cm['metadata']['name']}.{key}"


@pytest.mark.parametrize("target", [t for t in TARGETS if t != "overlays/podman"])
def test_the_hub_reads_its_credentials_from_the_secret(rendered: dict[str, Any], target: str) -> None:
    for _workload, container in hub_containers(rendered[target]):
        refs = [e["secretRef"]["name"] for e in container.get("envFrom", []) if "secretRef" in e]
        assert refs == ["hub-secrets"], (target, container["name"])
        assert not any("value" in e and secret_like(e["name"]) for e in container.get("env", []))


def secret_like(name: str) -> bool:
    return bool(re.search(r"TOKEN|PASSWORD|SECRET|_KEY$|DATABASE_URL", name))


def example_secret_keys() -> set[str]:
    lines = (KUBE / "secrets.env.example").read_text(encoding="utf-8").splitlines()
    return {line.split("=", 1)[0] for line in lines if "=" in line and not line.startswith("#")}


@pytest.mark.parametrize("target", TARGETS)
def test_every_variable_the_hub_is_given_is_a_setting(rendered: dict[str, Any], target: str) -> None:
    docs = rendered[target]
    for _workload, container in hub_containers(docs):
        names = set(config_data(docs, container)) | {e["name"] for e in container.get("env", [])}
        assert names - SETTING_NAMES == set(), (target, container["name"])
    assert example_secret_keys() - SETTING_NAMES == set()
    assert {"HUB_TOKEN", "DATABASE_URL"} <= example_secret_keys()


@pytest.mark.parametrize("target", TARGETS)
def test_the_settings_accept_the_configuration_and_callers_reach_services_that_answer(rendered: dict[str, Any],
                                                                                        target: str) -> None:
    docs = rendered[target]
    for _workload, container in hub_containers(docs):
        env = {**config_data(docs, container), **{e["name"]: e["value"] for e in container.get("env", [])
                                                  if "value" in e}}
        env.setdefault("HUB_TOKEN", "x" * 32)  # from the Secret
        settings = Settings(_env_file=None, **{k.lower(): v for k, v in env.items()})  # type: ignore[arg-type]
        assert settings.hub_host == "0.0.0.0"
        urls = [settings.agent_url(agent) for agent in ("orchestrator", "web_research", "internal_rag",
                                                         "file_management", "report_writing")]
        urls += [u for agent in ("internal_rag", "web_research") for u in settings.agent_urls(agent)]
        urls += [settings.search_gateway_mcp_url.removesuffix("/mcp"), settings.embedding_base_url.removesuffix("/v1")]
        for url in urls:
            host, port = re.fullmatch(r"http://([^:/]+):(\d+)", url).groups()  # type: ignore[union-attr]
            # The server answers to that name (else 421), and something listens there.
            assert host in settings.allowed_hosts, (target, url)
            assert reachable(docs, host, int(port)), (target, url)


def reachable(docs: list[dict[str, Any]], host: str, port: int) -> bool:
    """A Service named `host` with `port`, or (podman: no Services) a pod of a workload `host` or `<name>-pod-N`."""
    for svc in of_kind(docs, "Service"):
        if svc["metadata"]["name"] == host and port in [p["port"] for p in svc["spec"]["ports"]]:
            return True
    for workload in of_kind(docs, "Deployment", "Pod"):
        name = workload["metadata"]["name"]
        replicas = workload.get("spec", {}).get("replicas", 1) if workload["kind"] == "Deployment" else 1
        pod_names = {name} | {f"{name}-pod-{i}" for i in range(replicas)}
        spec = workload["spec"]["template"]["spec"] if workload["kind"] == "Deployment" else workload["spec"]
        ports = {p["containerPort"] for c in spec["containers"] for p in c.get("ports", [])}
        ports |= {int(c["command"][c["command"].index("--port") + 1]) for c in spec["containers"]
                  if "--port" in c.get("command", [])}
        if host in pod_names and port in ports:
            return True
    return False


@pytest.mark.parametrize("target", [t for t in TARGETS if t != "overlays/podman"])
def test_only_the_backend_admits_traffic_from_outside(rendered: dict[str, Any], target: str) -> None:
    docs = rendered[target]
    pods = {w["metadata"]["name"]: w["spec"]["template"]["metadata"]["labels"] for w in of_kind(docs, *WORKLOADS)}
    policies = of_kind(docs, "NetworkPolicy")
    deny_all = [p for p in policies if p["spec"]["podSelector"] == {} and "Ingress" in p["spec"]["policyTypes"]
                and not p["spec"].get("ingress")]
    assert deny_all, f"{target}: no default-deny policy"
    hub_pods = {name for name, labels in pods.items() if labels.get("app.kubernetes.io/part-of") == "agent-hub"}
    for policy in policies:
        selected = {name for name, labels in pods.items() if selects(policy["spec"]["podSelector"], labels)}
        for rule in policy["spec"].get("ingress", []):
            sources = rule.get("from", [])
            from_outside = not sources or any("ipBlock" in s or "namespaceSelector" in s for s in sources)
            if from_outside:
                assert selected == {"backend"}, f"{target}: {policy['metadata']['name']} admits outside to {selected}"
            else:  # from pods of this namespace: the hub's own
                for source in sources:
                    allowed = {n for n, labels in pods.items() if selects(source["podSelector"], labels)}
                    assert allowed <= hub_pods, f"{target}: {policy['metadata']['name']}"
    for svc in of_kind(docs, "Service"):
        assert svc["spec"].get("type", "ClusterIP") == "ClusterIP", f"{target}: {svc['metadata']['name']}"
    for ingress in of_kind(docs, "Ingress"):
        backends = {p["backend"]["service"]["name"] for r in ingress["spec"]["rules"] for p in r["http"]["paths"]}
        assert backends == {"backend"}, target


@pytest.mark.parametrize("target", TARGETS)
def test_every_hub_container_requests_memory_and_cpu_within_its_limit(rendered: dict[str, Any],
                                                                      target: str) -> None:
    def mebibytes(quantity: str) -> float:
        number, unit = re.fullmatch(r"(\d+(?:\.\d+)?)(Mi|Gi)", quantity).groups()  # type: ignore[union-attr]
        return float(number) * (1024 if unit == "Gi" else 1)

    for _workload, container in hub_containers(rendered[target]):
        resources = container["resources"]
        assert {"cpu", "memory"} <= set(resources["requests"]), container["name"]
        assert mebibytes(resources["requests"]["memory"]) <= mebibytes(resources["limits"]["memory"])


@pytest.mark.parametrize("target", ["base", "overlays/production", "overlays/with-postgres"])
def test_the_web_and_rag_agents_scale_with_an_autoscaler(rendered: dict[str, Any], target: str) -> None:
    docs = rendered[target]
    deployments = {d["metadata"]["name"] for d in of_kind(docs, "Deployment")}
    scaled = {h["spec"]["scaleTargetRef"]["name"] for h in of_kind(docs, "HorizontalPodAutoscaler")}
    assert scaled == {"web-research", "internal-rag"} and scaled <= deployments


@pytest.mark.parametrize("name", ["file-management", "internal-rag"])
def test_the_document_store_is_one_volume_every_replica_that_reads_files_shares(rendered: dict[str, Any],
                                                                                name: str) -> None:
    """The file agent writes the store; the RAG agent reads a stored file by its path when it indexes it."""
    docs = rendered["overlays/production"]
    claims = {c["metadata"]["name"]: c for c in of_kind(docs, "PersistentVolumeClaim")}
    workload = next(d for d in of_kind(docs, "Deployment") if d["metadata"]["name"] == name)
    assert workload["spec"]["replicas"] >= 2
    spec = workload["spec"]["template"]["spec"]
    claim = next(v["persistentVolumeClaim"]["claimName"] for v in spec["volumes"] if "persistentVolumeClaim" in v)
    assert claims[claim]["spec"]["accessModes"] == ["ReadWriteMany"]
    data_dir = Settings(_env_file=None, **{"data_dir": config_data(docs, spec["containers"][0])["DATA_DIR"]})  # type: ignore[arg-type]
    volume = next(v["name"] for v in spec["volumes"] if v.get("persistentVolumeClaim", {}).get("claimName") == claim)
    mounts = {m["name"]: m["mountPath"] for m in spec["containers"][0]["volumeMounts"]}
    assert mounts[volume] == str(data_dir.files_dir)


def test_the_database_overlay_runs_postgres_and_the_others_take_an_external_one(rendered: dict[str, Any]) -> None:
    assert not of_kind(rendered["overlays/production"], "StatefulSet")
    postgres = of_kind(rendered["overlays/with-postgres"], "StatefulSet")
    assert [p["metadata"]["name"] for p in postgres] == ["postgres"]
    env = postgres[0]["spec"]["template"]["spec"]["containers"][0]["env"]
    password = next(e for e in env if e["name"] == "POSTGRES_PASSWORD")
    assert "secretKeyRef" in password["valueFrom"]


def test_the_podman_overlay_holds_only_what_podman_runs(rendered: dict[str, Any]) -> None:
    docs = rendered["overlays/podman"]
    assert {d["kind"] for d in docs} <= PODMAN_KINDS
    for workload in of_kind(docs, "Deployment"):
        for container in workload["spec"]["template"]["spec"]["containers"]:
            # podman 4.3 publishes every containerPort on the host: two RAG pods would collide.
            assert "ports" not in container, workload["metadata"]["name"]
            assert not {"secretRef"} & {k for e in container.get("envFrom", []) for k in e}
    rag = next(d for d in of_kind(docs, "Deployment") if d["metadata"]["name"] == "internal-rag")
    assert rag["spec"]["replicas"] == 2  # make kube-test kills one of them
    base = {(d["kind"], d["metadata"]["name"]) for d in rendered["base"]
            if d["kind"] in PODMAN_KINDS and d["kind"] != "ConfigMap"}  # ConfigMap names carry their hash
    podman = {(d["kind"], d["metadata"]["name"]) for d in docs}
    assert base <= podman
