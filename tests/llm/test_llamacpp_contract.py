"""The llama.cpp backend's contract with llama-cpp-python's insides, as its module header lists
it: each item holds in the installed library (an upgrade that drops or reshapes one fails here,
naming it), and the header names everything the module overrides, writes or reads of them."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path

import pytest

llama_cpp = pytest.importorskip("llama_cpp")

from llama_cpp import _internals  # noqa: E402

from ramp.llm.backends import llamacpp  # noqa: E402

OWNERS = {"Llama": llama_cpp.Llama, "LlamaContext": _internals.LlamaContext}
#: ``- ``Owner.name(params)``: kind`` lines of the module's header.
ITEM = re.compile(r"^- ``(\w+)\.(\w+)(?:\(([^)]*)\))?``: (\w+)", re.MULTILINE)
ITEMS = {
    f"{owner}.{name}": (params, kind)
    for owner, name, params, kind in ITEM.findall(llamacpp.__doc__ or "")
}
SOURCE = Path(llamacpp.__file__).read_text(encoding="utf-8")


def _targets(tree: ast.AST) -> list[ast.expr]:
    """Everything assigned to in ``tree``."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            found.extend(node.targets)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            found.append(node.target)
    return found


def _set_in_init(cls: type) -> set[str]:
    """The attributes ``cls.__init__`` sets on ``self``."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls.__init__)))
    return {
        t.attr
        for t in _targets(tree)
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
    }


def test_the_header_lists_the_items():
    assert {"Llama.eval", "Llama.generate", "Llama.n_tokens", "Llama._ctx"} <= set(ITEMS)
    assert {kind for _, kind in ITEMS.values()} <= {"overridden", "written", "read", "called"}


@pytest.mark.parametrize("item", sorted(ITEMS))
def test_the_installed_library_has_the_item_in_its_shape(item):
    owner, name = item.split(".")
    params, _ = ITEMS[item]
    cls = OWNERS[owner]
    where = f"llama-cpp-python {llama_cpp.__version__}"
    if params:  # a method: its leading parameters, and no more unless the header says "..."
        method = getattr(cls, name, None)
        assert callable(method), f"{item}: {where} has no such method"
        want = [p.strip() for p in params.split(",")]
        more = want[-1] == "..."
        want = want[:-1] if more else want
        have = list(inspect.signature(method).parameters)
        assert have[: len(want)] == want and (more or len(have) == len(want)), (
            f"{item}: {where} takes ({', '.join(have)}), the backend expects ({params})"
        )
    else:  # an attribute: set by the constructor, or the class's own
        assert name in _set_in_init(cls) or hasattr(cls, name), (
            f"{item}: {where} no longer sets {owner}.{name}"
        )


def _module_tree() -> ast.Module:
    return ast.parse(SOURCE)


def _block_reuse_class() -> ast.ClassDef:
    return next(
        n
        for n in ast.walk(_module_tree())
        if isinstance(n, ast.ClassDef) and n.name == "BlockReuseLlama"
    )


def test_every_override_is_listed():
    overrides = {
        f"Llama.{n.name}"
        for n in _block_reuse_class().body
        if isinstance(n, ast.FunctionDef)
        and n.name != "__init__"
        and hasattr(llama_cpp.Llama, n.name)
    }
    assert overrides, "BlockReuseLlama overrides nothing: is this test still reading it?"
    assert overrides <= {i for i, (_, kind) in ITEMS.items() if kind == "overridden"}


def test_every_write_of_a_library_attribute_is_listed():
    library = _set_in_init(llama_cpp.Llama)
    written = set()
    for target in _targets(_module_tree()):
        while isinstance(target, ast.Subscript):  # input_ids[:n] = ... writes input_ids
            target = target.value
        if isinstance(target, ast.Attribute) and target.attr in library:
            written.add(f"Llama.{target.attr}")
    assert written, "nothing written: is this test still reading the module?"
    assert written <= {i for i, (_, kind) in ITEMS.items() if kind == "written"}


def test_every_private_attribute_read_is_listed():
    """A name starting with ``_`` that the module does not define is the library's."""
    tree = _module_tree()
    own = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    own |= {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
    }
    private = {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and n.attr.startswith("_") and not n.attr.startswith("__")
    } - own
    assert private <= {i.split(".")[1] for i in ITEMS}, "a private name the header lacks"
    through_ctx = {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Attribute)
        and n.value.attr == "_ctx"
    }
    assert through_ctx and {f"LlamaContext.{a}" for a in through_ctx} <= set(ITEMS)


def test_a_changed_shape_is_named(monkeypatch):
    def generate(self, prompt_tokens):  # a library whose generate took another shape
        yield from ()

    monkeypatch.setattr(llama_cpp.Llama, "generate", generate)
    with pytest.raises(
        AssertionError,
        match=r"Llama\.generate: llama-cpp-python .* takes "
        r"\(self, prompt_tokens\)",
    ):
        test_the_installed_library_has_the_item_in_its_shape("Llama.generate")
    monkeypatch.delattr(llama_cpp.Llama, "generate")
    with pytest.raises(AssertionError, match=r"Llama\.generate: .* has no such method"):
        test_the_installed_library_has_the_item_in_its_shape("Llama.generate")
