"""Files the builder needs from outside the repository, pinned by version and hash: the fonts of the scans
and text PDFs.

A font is taken from the system's font folder when its bytes have the pinned hash (Debian installs these
packages there), else from the cache, else its Debian package is downloaded by pinned version and hash into
the cache and the font extracted from it.
"""

from __future__ import annotations

import hashlib
import io
import lzma
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from ai_llm.evals.sets.spec import SetError

DEBIAN_POOL = "https://deb.debian.org/debian/pool/main"
SYSTEM_FONTS = Path("/usr/share/fonts/truetype")


@dataclass(frozen=True)
class Package:
    """A Debian package pinned by its pool path and sha256."""

    pool_path: str
    sha256: str


NANUM = Package("f/fonts-nanum/fonts-nanum_20200506-1_all.deb",
                "5e86c346e6485b694e1f0ebd27132892fcf014d1b975de4fd21d1654ddf37043")
LIBERATION = Package("f/fonts-liberation/fonts-liberation_1.07.4-11_all.deb",
                     "efd381517f958b01969343634ffcbdd60056be7779af84c6f53a005090430204")
DEJAVU = Package("f/fonts-dejavu/fonts-dejavu-core_2.37-6_all.deb",
                 "8892669e51aab4dc56682c8e39d8ddb7d70fad83c369344e1e240bf3ca22bb76")

#: Font name → (package, path under /usr/share/fonts/truetype, sha256 of the font file).
FONTS: dict[str, tuple[Package, str, str]] = {
    "NanumMyeongjo": (NANUM, "nanum/NanumMyeongjo.ttf",
                      "a21faae83d2d16d11c639f04f25fbe410eda905969ad75eff50d63ca31569f25"),
    "NanumMyeongjoBold": (NANUM, "nanum/NanumMyeongjoBold.ttf",
                          "cb47c5d029dd5ee5b8f6fe142c468d670edbe4e9caaad33b91e6ac399e99194a"),
    "NanumGothic": (NANUM, "nanum/NanumGothic.ttf",
                    "48a28e97b34fc8e5b157657633670cd1b7de126cfc414da65ce9c3d5bc8be733"),
    "NanumGothicBold": (NANUM, "nanum/NanumGothicBold.ttf",
                        "454eb3f503f377782a99eb84fc4bb7dde22a0f075d41b47427737f2985053bc9"),
    "LiberationSans-Regular": (LIBERATION, "liberation/LiberationSans-Regular.ttf",
                               "f8ace1f892b2bd9dc1792ba7f097fa7588f84fed48321480e04de5390828221f"),
    "LiberationSans-Bold": (LIBERATION, "liberation/LiberationSans-Bold.ttf",
                            "361c61b82d575c5c35fd9157fda8b0194bcfcd0d88ea8521a4fb5dd53d33dddc"),
    "LiberationSerif-Regular": (LIBERATION, "liberation/LiberationSerif-Regular.ttf",
                                "1c9c77c2cd0f3c2d2aeef53ea50a4d5d3d684ac73a431d7c70d7864887d194a3"),
    "LiberationSerif-Bold": (LIBERATION, "liberation/LiberationSerif-Bold.ttf",
                             "af228b9de767e5162168e433351b3d0e086648219c6c12ed888fba0bda3694d5"),
    "LiberationMono-Regular": (LIBERATION, "liberation/LiberationMono-Regular.ttf",
                               "a2e642d350acb1c5e368f375db8a4ef5a2f4ff2b79056d8c3be8bd8a7e9fcb44"),
    "DejaVuSerif": (DEJAVU, "dejavu/DejaVuSerif.ttf",
                    "13e61509f5c81d7c3132810f4f903e3523df89c802bf6e0674621e8f659cdfe1"),
    "DejaVuSerif-Bold": (DEJAVU, "dejavu/DejaVuSerif-Bold.ttf",
                         "e2fd85eba2de65ac270d1cdb1685e252eb827f600850cf62af2d20c41b22e945"),
    "DejaVuSans": (DEJAVU, "dejavu/DejaVuSans.ttf",
                   "abdc775b21b1bc470d50c97e790d276f2054b7504e56e5bd3e64f48d68582322"),
    "DejaVuSans-Bold": (DEJAVU, "dejavu/DejaVuSans-Bold.ttf",
                        "0d977336a6d5fba34eab8e3199eb218327161b5143749f802982c2bc34df0c96"),
    "DejaVuSansMono": (DEJAVU, "dejavu/DejaVuSansMono.ttf",
                       "0f5db4f1749979d961019838b160bec74abdf7f9eca69553fe1aa856bbff49a4"),
}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _deb_member(deb: bytes, member: str) -> bytes:
    """A file from a .deb's data archive (an `ar` archive holding data.tar.xz)."""
    if not deb.startswith(b"!<arch>\n"):
        raise SetError("not a Debian package")
    pos = 8
    while pos + 60 <= len(deb):
        name = deb[pos:pos + 16].decode().strip().rstrip("/")
        size = int(deb[pos + 48:pos + 58].decode().strip())
        body = deb[pos + 60:pos + 60 + size]
        if name.startswith("data.tar"):
            raw = lzma.decompress(body) if name.endswith(".xz") else body
            with tarfile.open(fileobj=io.BytesIO(raw)) as archive:
                extracted = archive.extractfile("./usr/share/fonts/truetype/" + member)
                if extracted is None:
                    break
                return extracted.read()
        pos += 60 + size + (size % 2)
    raise SetError(f"{member} is not in the package")


def font_path(name: str, cache: Path) -> Path:
    """The path of a pinned font, fetched into `cache/fonts/` when the system has no identical copy."""
    if name not in FONTS:
        raise SetError(f"unknown font {name!r}; known: {', '.join(FONTS)}")
    package, member, digest = FONTS[name]
    system = SYSTEM_FONTS / member
    if system.is_file() and _sha256(system.read_bytes()) == digest:
        return system
    cached = cache / "fonts" / Path(member).name
    if cached.is_file() and _sha256(cached.read_bytes()) == digest:
        return cached
    url = f"{DEBIAN_POOL}/{package.pool_path}"
    with urllib.request.urlopen(url, timeout=120) as response:
        deb = response.read()
    if _sha256(deb) != package.sha256:
        raise SetError(f"{url}: sha256 differs from the pinned one")
    data = _deb_member(deb, member)
    if _sha256(data) != digest:
        raise SetError(f"{member} in {url}: sha256 differs from the pinned one")
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(data)
    return cached
