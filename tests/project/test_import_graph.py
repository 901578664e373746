"""
The import graph of ``src/relapse`` has no cycle (issue 40).

The graph's nodes are relapse's modules; an edge runs from a module to each
relapse module it imports when it is imported: at module level, in an ``if``
or ``try`` there, but not under ``if TYPE_CHECKING:`` (an import for the type
checker only never runs, so it cannot half-build a module). Imports inside
functions are scripts/inner_imports.py's business: they are allowed only for
the CLI and optional extras. ``from relapse.a import b`` is an edge to
``relapse.a.b`` when that is a module, else to ``relapse.a``.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def modules_of(source: Path) -> dict[str, Path]:
    """Every module under ``source/relapse``, dotted name -> file."""
    found: dict[str, Path] = {}
    for path in (source / "relapse").rglob("*.py"):
        parts = list(path.relative_to(source).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def run_time_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of ``body`` that run on import (functions and classes aside)."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if not is_type_checking(node.test):
                yield from run_time_imports(node.body)
            yield from run_time_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from run_time_imports(block)
            for handler in node.handlers:
                yield from run_time_imports(handler.body)


def import_graph(source: Path) -> dict[str, set[str]]:
    """Module -> the relapse modules it imports when imported."""
    modules = modules_of(source)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in run_time_imports(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names if alias.name in modules)
                continue
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                if f"{target}.{alias.name}" in modules:
                    graph[name].add(f"{target}.{alias.name}")
                elif target in modules:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, or of one importing itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        # Tarjan's algorithm; the graph is a few hundred modules deep at most.
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "relapse" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_src_relapse_imports_without_a_cycle() -> None:
    graph = import_graph(ROOT / "src")
    assert len(graph) > 60  # every module, not an empty glob
    assert sum(map(len, graph.values())) > 100  # and their imports were read
    assert cycles(graph) == []


def test_a_cycle_through_a_package_s_modules_is_found(tmp_path: Path) -> None:
    source = write(
        tmp_path,
        {
            "__init__.py": "",
            "a/__init__.py": "",
            "a/one.py": "from relapse.a.two import TWO\nONE = 1\n",
            "a/two.py": "from . import three\nTWO = 2\n",
            "a/three.py": "import relapse.a.one\n",
        },
    )
    assert cycles(import_graph(source)) == [["relapse.a.one", "relapse.a.three", "relapse.a.two"]]


def test_an_import_for_the_type_checker_only_is_no_edge(tmp_path: Path) -> None:
    source = write(
        tmp_path,
        {
            "__init__.py": "",
            "one.py": "from relapse.two import TWO\n",
            "two.py": """\
                from typing import TYPE_CHECKING

                if TYPE_CHECKING:
                    from relapse.one import ONE
                else:
                    import json
                TWO = 2
                """,
        },
    )
    graph = import_graph(source)
    assert graph == {"relapse": set(), "relapse.one": {"relapse.two"}, "relapse.two": set()}
    assert cycles(graph) == []


def test_an_import_inside_a_function_is_no_edge_but_one_in_a_try_is(tmp_path: Path) -> None:
    source = write(
        tmp_path,
        {
            "__init__.py": "",
            "one.py": "def late():\n    import relapse.two\n",
            "two.py": "try:\n    import relapse.one\nexcept ImportError:\n    pass\n",
        },
    )
    assert import_graph(source)["relapse.one"] == set()
    assert import_graph(source)["relapse.two"] == {"relapse.one"}
