#!/usr/bin/env bash
# Build the hub's image from the repository and Debian's packages alone (no container registry):
#   a Debian 12 root file system (mmdebstrap) + Python 3.11 + Tesseract with Korean data
#   + the pinned Python dependencies (requirements.txt) + the code + the built UI,
# committed with buildah as $IMAGE (default localhost/agent-hub:latest). Run as root: `make image`.
set -euo pipefail

IMAGE=${IMAGE:-localhost/agent-hub:latest}
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export CONTAINERS_CONF=${CONTAINERS_CONF:-$ROOT/deploy/podman/containers.conf}
started=$(date +%s)

need=()
for tool in buildah mmdebstrap runc podman iptables; do command -v "$tool" >/dev/null 2>&1 || need+=("$tool"); done
if ((${#need[@]})); then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" netavark aardvark-dns >/dev/null
fi
[ -f "$ROOT/frontend/dist/index.html" ] || make -C "$ROOT" ui

ctr=$(buildah from scratch)
cleanup() { buildah umount "$ctr" >/dev/null 2>&1 || true; buildah rm "$ctr" >/dev/null 2>&1 || true; }
trap cleanup EXIT
rootfs=$(buildah mount "$ctr")

echo "== Debian $SUITE root file system"
mmdebstrap --variant=minbase --mode=root --format=directory \
    --include=ca-certificates,python3.11,python3.11-venv,tesseract-ocr,tesseract-ocr-kor,tesseract-ocr-eng,libgomp1,tzdata \
    --customize-hook='chroot "$1" useradd --uid 10001 --user-group --home-dir /app --no-create-home --shell /usr/sbin/nologin hub' \
    --customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/* "$1"/usr/share/doc/* "$1"/usr/share/man/*' \
    "$SUITE" "$rootfs" "$MIRROR"

echo "== the code and the built UI"
mkdir -p "$rootfs/app" "$rootfs/data"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
    | grep -zv -e '^frontend/node_modules/' -e '^\.data/' -e '^deploy/\.env$' \
    | xargs -0 tar --no-recursion --ignore-failed-read -cf - 2>/dev/null) | tar -C "$rootfs/app" -xf -
mkdir -p "$rootfs/app/frontend"
cp -a "$ROOT/frontend/dist" "$rootfs/app/frontend/dist"

echo "== Python dependencies (pinned, with this machine's pip configuration and wheel directories)"
mounts=() envs=()
for dir in /opt/wheels /opt/pypi /opt/pypi-more /etc/xdg/pip; do
    [ -d "$dir" ] && mounts+=(-v "$dir:$dir:ro")
done
[ -f /etc/pip.conf ] && mounts+=(-v /etc/pip.conf:/etc/pip.conf:ro)
mkdir -p /root/.cache/pip && mounts+=(-v /root/.cache/pip:/var/cache/hub-pip) && envs+=(-e PIP_CACHE_DIR=/var/cache/hub-pip)
while IFS= read -r var; do envs+=(-e "$var"); done < <(env | grep '^PIP_' | grep -v '^PIP_CERT=' || true)
# This machine's CA bundle (a proxy's certificate may be in it) for the build only; the image keeps Debian's.
mounts+=(-v /etc/ssl/certs/ca-certificates.crt:/run/build-ca.crt:ro)
envs+=(-e PIP_CERT=/run/build-ca.crt)
buildah run --isolation chroot "${mounts[@]}" "${envs[@]}" "$ctr" -- sh -euc '
    python3.11 -m venv /opt/hub/venv
    /opt/hub/venv/bin/pip install -q --upgrade pip
    # torch: the CPU build of the pinned version (a plain PyPI torch is a multi-GB CUDA build): from the wheel
    # directories pip is configured with, else from the PyTorch CPU index.
    torch=$(sed -n "s/^torch==\([^ ;#]*\).*/\1/p" /app/requirements.txt)
    /opt/hub/venv/bin/pip install -q "torch==$torch+cpu" \
        || /opt/hub/venv/bin/pip install -q --extra-index-url https://download.pytorch.org/whl/cpu "torch==$torch+cpu"
    /opt/hub/venv/bin/pip install -q -r /app/requirements.txt
    /opt/hub/venv/bin/pip install -q --no-deps -e /app
    /opt/hub/venv/bin/python -m compileall -q /app/ai_llm /app/backend /app/start_agents.py
    chown -R hub:hub /data'

buildah config \
    --env PATH=/opt/hub/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env PYTHONUNBUFFERED=1 --env DATA_DIR=/data --env HOME=/tmp --env LANG=C.UTF-8 \
    --workingdir /app --user 10001:10001 \
    --port 8000 --port 10010 --port 10011 --port 10012 --port 10013 --port 10014 --port 10015 --port 10016 \
    --label org.opencontainers.image.title=agent-hub \
    --label org.opencontainers.image.revision="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)" \
    --cmd '["python", "start_agents.py"]' "$ctr"
buildah umount "$ctr" >/dev/null
buildah commit --quiet --rm "$ctr" "$IMAGE" >/dev/null
trap - EXIT
size=$(podman image inspect "$IMAGE" --format '{{.Size}}')
echo "built $IMAGE: $((size / 1024 / 1024)) MiB in $(( $(date +%s) - started )) s"
