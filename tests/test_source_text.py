"""The project's own source holds no control characters but tab and newline: a backspace written by an editor or a
script in place of a regular expression's "\\b" makes the pattern match nothing, silently (it happened once, in
logs/quiet.py)."""
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[1]
_FILES = sorted(p for d in ("src", "tests", "bench") for p in (_ROOT / d).rglob("*")
                if p.is_file() and (p.suffix == ".py" or p.parent.name == "bench" and "." not in p.name))
_ALLOWED = {0x09, 0x0A}


@pytest.mark.parametrize("path", _FILES, ids=lambda p: str(p.relative_to(_ROOT)))
def test_no_control_characters_in_source(path):
    data = path.read_bytes()
    bad = [(data.count(b"\n", 0, i) + 1, hex(b)) for i, b in enumerate(data) if b < 0x20 and b not in _ALLOWED]
    assert not bad, f"{path.relative_to(_ROOT)}: control characters at (line, byte) {bad[:5]}"


_MODULES = sorted((_ROOT / "src").rglob("*.py"))


@pytest.mark.parametrize("path", _MODULES, ids=lambda p: str(p.relative_to(_ROOT)))
def test_no_module_level_name_is_assigned_twice(path):
    """A second module-level `_NAME = re.compile(...)` silently replaces the first for every function that reads it
    (it happened once in engines/generic.py: a new `_FIXED_SINCE` undid the leak-told-as-fixed rule)."""
    import ast

    seen: dict[str, int] = {}
    twice = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        for t in targets:
            if isinstance(t, ast.Name) and not isinstance(node, ast.AugAssign):
                if t.id in seen:
                    twice.append((t.id, seen[t.id], node.lineno))
                seen.setdefault(t.id, node.lineno)
    assert not twice, f"{path.relative_to(_ROOT)}: assigned again (name, first line, again at) {twice}"
