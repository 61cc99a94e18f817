"""`make kube-test`: the Kubernetes manifests run as real containers with `podman kube play` (root, minutes).

Renders deploy/kubernetes/overlays/podman, plays it on one podman network (runc, cgroupfs, no default ulimits:
deploy/podman/containers.conf), waits until the backend reports every agent and the database up, uploads a
document and asks about it through the backend, removes one of the two RAG pods and asks again, then tears
everything down and prints one line of results. Exit status 0 only when both answers quote the document.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import yaml

ROOT = Path(__file__).resolve().parents[2]
OVERLAY = ROOT / "deploy" / "kubernetes" / "overlays" / "podman"
NETWORK = "agent-hub-kube-test"
TOKEN = dict(line.split("=", 1) for line in (OVERLAY / "test-credentials.env").read_text().split())["HUB_TOKEN"]
HEADERS = {"Authorization": f"Bearer {TOKEN}", "Host": "localhost"}
DOCUMENT = ("Project Falcon runbook\n\nThe launch code of Project Falcon is ZX-42-ORCA. "
            "The Falcon team meets every Thursday in room 7.\n")
ANSWER = "ZX-42-ORCA"
ENV = {**os.environ, "CONTAINERS_CONF": os.environ.get("CONTAINERS_CONF",
                                                      str(ROOT / "deploy" / "podman" / "containers.conf"))}


def run(*args: str, check: bool = True) -> str:
    out = subprocess.run(args, capture_output=True, text=True, env=ENV)
    if check and out.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({out.returncode}): {out.stderr.strip()[-2000:]}")
    return out.stdout


def pod_ip(pod: str) -> str:
    infra = json.loads(run("podman", "pod", "inspect", pod))
    infra = infra[0] if isinstance(infra, list) else infra
    networks = json.loads(run("podman", "inspect", infra["InfraContainerID"]))[0]["NetworkSettings"]["Networks"]
    return str(networks[NETWORK]["IPAddress"])


def wait_port(host: str, port: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=1):
            return
        time.sleep(1)
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout_s:.0f} s")


def wait_ready(url: str, timeout_s: float) -> dict[str, Any]:
    """Until /api/health says every agent, the search gateway and the database answer."""
    deadline, last = time.monotonic() + timeout_s, "no answer"
    while time.monotonic() < deadline:
        try:
            health = httpx.get(url + "/api/health", headers=HEADERS, timeout=5).json()
            down = [n for n, a in health["agents"].items() if not a["ok"]]
            if not health["database"]["ok"]:
                down.append("database")
            if not down:
                return dict(health)
            last = "down: " + ", ".join(down)
        except (httpx.HTTPError, ValueError, KeyError) as exc:
            last = repr(exc)
        time.sleep(3)
    raise TimeoutError(f"the hub was not ready in {timeout_s:.0f} s ({last})")


def upload(url: str) -> str:
    response = httpx.post(url + "/api/files", headers=HEADERS, timeout=60,
                          files={"file": ("falcon-runbook.txt", DOCUMENT.encode(), "text/plain")})
    response.raise_for_status()
    file_id = str(response.json()["id"])
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        status = httpx.get(f"{url}/api/files/{file_id}", headers=HEADERS, timeout=10).json()
        if status["index_status"] not in ("indexing", "pending", "queued"):
            if status["index_status"] != "indexed" and not status.get("chunks"):
                raise RuntimeError(f"indexing failed: {status}")
            return file_id
        time.sleep(1)
    raise TimeoutError("the document was not indexed in 180 s")


def ask(url: str, question: str) -> dict[str, Any]:
    """One chat through the backend; the `answer` event's data (`text`, `steps`, `sources`, …)."""
    final: dict[str, Any] = {}
    event = ""
    with httpx.stream("POST", url + "/api/chat", headers=HEADERS, timeout=180,
                      json={"message": question, "language": "en"}) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event == "answer":
                final = json.loads(line.split(":", 1)[1])
    return final


def main() -> int:
    if os.geteuid() != 0:
        print("kube-test: run as root (podman kube play with a bridge network)", file=sys.stderr)
        return 2
    image = os.environ.get("IMAGE", "localhost/agent-hub:latest")
    if subprocess.run(["podman", "image", "exists", image], env=ENV).returncode != 0:
        print(f"kube-test: no image {image}: run `make image` first", file=sys.stderr)
        return 2
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="kube-test-"))
    docs = [d for d in yaml.safe_load_all(run("kubectl", "kustomize", str(OVERLAY))) if d]
    database, manifest = work / "postgres.yaml", work / "hub.yaml"
    database.write_text(yaml.safe_dump_all([d for d in docs if d["metadata"]["name"] == "postgres"]))
    manifest.write_text(yaml.safe_dump_all([d for d in docs if d["metadata"]["name"] != "postgres"]))
    result, code = "", 1
    try:
        if subprocess.run(["podman", "network", "exists", NETWORK], env=ENV).returncode != 0:
            run("podman", "network", "create", NETWORK)
        # The database first: every hub process migrates it at start.
        run("podman", "kube", "play", "--replace", "--network", NETWORK, str(database))
        wait_port(pod_ip("postgres-pod-0"), 5432, timeout_s=120)
        run("podman", "kube", "play", "--replace", "--network", NETWORK, str(manifest))
        pods = sorted(line for line in run("podman", "pod", "ps", "--format", "{{.Name}}").split()
                      if line.endswith(tuple(f"-pod-{i}" for i in range(4))))
        url = f"http://{pod_ip('backend-pod-0')}:8000"
        wait_ready(url, timeout_s=float(os.environ.get("KUBE_TEST_TIMEOUT_S", "600")))
        ready_s = time.monotonic() - started
        upload(url)
        # One question per RAG pod first (the orchestrator alternates them): each is counted when the RAG agent
        # answered it within the orchestrator's step limit (ORCHESTRATOR_AGENT_TIMEOUTS), as a pod that reports
        # ready only once its models are loaded does.
        warm = [ask(url, "Where does the Falcon team meet?") for _ in range(2)]
        first = ask(url, "What is the launch code of Project Falcon?")
        run("podman", "pod", "rm", "--force", "internal-rag-pod-0")
        second = ask(url, "Which launch code does Project Falcon use?")
        answers = [ANSWER in str(a.get("text", "")) for a in (first, second)]
        warmed = sum(any(s.get("agent") == "internal_rag" and s.get("status") == "ok" for s in w.get("steps", []))
                     for w in warm)
        code = 0 if all(answers) else 1
        result = (f"kube-test: {'passed' if code == 0 else 'FAILED'}: {len(pods)} pods ready in {ready_s:.0f} s; "
                  f"{warmed} of 2 warm-up questions answered by the RAG agent; "
                  f"answer from the uploaded document {'yes' if answers[0] else 'no'}, "
                  f"after removing internal-rag-pod-0 of 2 {'yes' if answers[1] else 'no'}")
        if code:
            result += f"\n  first: {json.dumps(first)[:600]}\n  second: {json.dumps(second)[:600]}"
    except Exception as exc:  # a failed run still tears down and says why in its one line
        result = f"kube-test: FAILED: {exc}"
        for pod in run("podman", "pod", "ps", "--format", "{{.Name}}", check=False).split():
            for ctr in run("podman", "pod", "inspect", pod, "--format", "{{range .Containers}}{{.Name}} {{end}}",
                           check=False).split():
                if not ctr.endswith("-infra"):
                    tail = run("podman", "logs", "--tail", "5", ctr, check=False) + \
                        subprocess.run(["podman", "logs", "--tail", "5", ctr], capture_output=True, text=True,
                                       env=ENV).stderr
                    print(f"--- {ctr}\n{tail.strip()}", file=sys.stderr)
    finally:
        run("podman", "kube", "down", str(manifest), check=False)
        run("podman", "kube", "down", str(database), check=False)
        run("podman", "network", "rm", "--force", NETWORK, check=False)
        run("podman", "volume", "prune", "--force", check=False)
        result += f" ({time.monotonic() - started:.0f} s in all)"
    print(result, flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
