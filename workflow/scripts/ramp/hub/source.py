"""The hub's files on this machine: downloaded into the user's Hugging Face cache, or a clone.

``HubRepo`` asks huggingface_hub for each file (``HF_HOME`` / ``HF_HUB_CACHE`` say where the
cache is; with ``HF_HUB_OFFLINE=1`` only the cache is read). ``LocalRepo`` reads a folder with the
repository's layout, e.g. a ``git clone`` of it. Whatever goes wrong becomes a FetchError whose
message is one line that says what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ramp.hub.layout import LICENCE, REPO_ID, REPO_URL

#: What a user without the hub can do instead (the config keys of the workflow's data rule).
INSTEAD = (
    "set data.jsonl in the config to a task file you have (README: Getting the data), "
    f"or data.fetch.source to a local clone of {REPO_URL}"
)
_LFS_POINTER = b"version https://git-lfs"


class FetchError(RuntimeError):
    """The data could not be had; the message is one line naming what to do."""


class RepoFiles(Protocol):
    """A dataset repository's files by their path in it."""

    def path(self, filename: str) -> Path: ...


@dataclass(frozen=True)
class LocalRepo:
    """A folder with the hub repository's layout (a clone with its LFS files pulled)."""

    folder: Path

    def path(self, filename: str) -> Path:
        path = self.folder / filename
        if not path.is_file():
            raise FetchError(f"{path} is missing from the local copy of {REPO_ID}; {INSTEAD}")
        with path.open("rb") as f:
            if f.read(len(_LFS_POINTER)) == _LFS_POINTER:
                raise FetchError(
                    f"{path} is a Git LFS pointer, not the data: run "
                    f'`git lfs pull --include "{filename}"` in {self.folder}'
                )
        return path


@dataclass(frozen=True)
class HubRepo:
    """A dataset on the Hugging Face hub, each file downloaded once into the HF cache."""

    repo_id: str = REPO_ID
    revision: str = "main"
    #: None: the user's cache (HF_HUB_CACHE, or HF_HOME/hub)
    cache_dir: Path | None = None
    #: read the cache only; None: as HF_HUB_OFFLINE says
    offline: bool | None = None
    #: the hub's address; None: HF_ENDPOINT, or huggingface.co (a mirror, a test's server)
    endpoint: str | None = None

    def path(self, filename: str) -> Path:
        from huggingface_hub import constants, hf_hub_download

        offline = constants.HF_HUB_OFFLINE if self.offline is None else self.offline
        try:
            return Path(
                hf_hub_download(
                    self.repo_id,
                    filename,
                    repo_type="dataset",
                    revision=self.revision,
                    cache_dir=self.cache_dir,
                    local_files_only=offline,
                    endpoint=self.endpoint,
                )
            )
        except Exception as e:
            raise FetchError(explain(e, self.repo_id, filename, offline=offline)) from e


def explain(error: BaseException, repo_id: str, filename: str, *, offline: bool) -> str:
    """One line: why ``filename`` of ``repo_id`` could not be had, and what to do instead."""
    from huggingface_hub import errors

    url = f"https://huggingface.co/datasets/{repo_id}"
    if isinstance(error, errors.GatedRepoError):
        return (
            f"{repo_id} asks you to accept its terms ({LICENCE}): accept them at {url}, "
            f"then log in (`hf auth login` or HF_TOKEN); or {INSTEAD}"
        )
    if isinstance(error, errors.RepositoryNotFoundError):
        return f"{url} was not found (or needs you logged in: `hf auth login`); {INSTEAD}"
    if isinstance(error, errors.RevisionNotFoundError):
        return f"{url} has no such revision (data.fetch.revision); {INSTEAD}"
    if isinstance(error, errors.LocalEntryNotFoundError):
        why = "HF_HUB_OFFLINE is set" if offline else "the hub cannot be reached"
        return f"{filename} of {repo_id} is not in the Hugging Face cache and {why}; {INSTEAD}"
    if isinstance(error, errors.EntryNotFoundError):
        return f"{url} has no file {filename} (its layout changed?); {INSTEAD}"
    detail = str(error).splitlines()[0] if str(error) else type(error).__name__
    return f"cannot download {filename} of {repo_id} from the hub ({detail}); {INSTEAD}"


def repo_files(source: str, revision: str = "main") -> RepoFiles:
    """A local folder if ``source`` is one, else the hub dataset of that id."""
    folder = Path(source).expanduser()
    if folder.is_dir():
        return LocalRepo(folder)
    if source.count("/") != 1 or source.startswith((".", "/", "~")):
        raise FetchError(f"{source} is neither a folder nor a hub dataset id (owner/name)")
    return HubRepo(source, revision)
