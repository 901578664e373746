"""
List every ``relapse`` import made inside a function, and fail on one that is not allowed.

Run: ``python scripts/inner_imports.py [PATH ...]`` (default: ``src/relapse``).

An import inside a function is how a module hides an import cycle; relapse's
layers import one way (see docs/design.md, "Layout"), so none is needed. Two
kinds remain on purpose, and only these pass:

* the CLI (:data:`LAZY_IMPORTERS`) imports what a sub-command needs when
  that command runs, so ``relapse --help`` stays fast;
* a module of an optional extra (:data:`OPTIONAL_MODULES`) is imported when
  the feature is used, so ``import relapse`` works without the extra.

Every import found is printed as ``path:line: in function: module``, with
``ok (reason)`` or ``NOT ALLOWED``; the exit status is 1 when any is not
allowed, 2 when a path does not exist or does not parse. Standard library only.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

#: Modules (dotted names) allowed to import ``relapse`` modules inside a function.
LAZY_IMPORTERS: dict[str, str] = {
    "relapse.cli": "the CLI imports each command's needs when it runs",
}

#: ``relapse`` modules that need an optional extra when imported, so any module
#: may import them inside the function that uses them.
OPTIONAL_MODULES: dict[str, str] = {
    "relapse.llms.local": "the local extra (LocalModel needs llama-cpp-python and the weights)",
    "relapse.integrations.langchain": "the langchain extra",
    "relapse.integrations.llamaindex": "the llamaindex extra",
    "relapse.integrations._langchain_agent": "the langchain extra's langchain package",
    "relapse.integrations.mcp": "the mcp extra",
    "relapse.integrations.pydantic_ai": "the pydantic-ai extra",
    "relapse.integrations.haystack": "the haystack extra",
}


@dataclass(frozen=True)
class InnerImport:
    """One ``relapse`` import made inside a function."""

    #: The file it is in, as given or found.
    path: Path
    #: Its 1-based line.
    line: int
    #: The innermost enclosing function's name.
    function: str
    #: The dotted name of the importing module (``relapse.grounding._echo``).
    importer: str
    #: The dotted name of the imported module (relative imports resolved).
    module: str

    def reason(self) -> str | None:
        """Why it is allowed (a phrase), or None when it is not."""
        if self.importer in LAZY_IMPORTERS:
            return LAZY_IMPORTERS[self.importer]
        for optional, why in OPTIONAL_MODULES.items():
            if self.module == optional or self.module.startswith(optional + "."):
                return why
        return None


def module_name(path: Path) -> str:
    """
    The dotted module name of ``path``, from its last ``relapse`` directory on.

    ``src/relapse/grounding/_echo.py`` is ``relapse.grounding._echo``; an
    ``__init__.py`` names its package. A file outside any ``relapse``
    directory is named by its stem.
    """
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    if "relapse" in parts:
        start = len(parts) - 1 - parts[::-1].index("relapse")
        parts = parts[start:]
    else:
        parts = parts[-1:]
    return ".".join(parts)


def _resolve(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The absolute module name of a ``from ... import`` (relative levels resolved)."""
    if not node.level:
        return node.module or ""
    package = importer.split(".")
    if not is_package:
        package.pop()
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def inner_imports(path: Path) -> Iterator[InnerImport]:
    """
    Every ``relapse`` import made inside a function (or a method, or a lambda's body) of ``path``.

    Imports under ``if TYPE_CHECKING:`` at module level are not inside a
    function and are not listed.

    Raises:
        SyntaxError: ``path`` does not parse.
        OSError: ``path`` cannot be read.
    """
    importer = module_name(path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

    def walk(node: ast.AST, function: str | None) -> Iterator[InnerImport]:
        for child in ast.iter_child_nodes(node):
            inside = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inside = child.name
            elif isinstance(child, ast.Lambda):
                inside = "<lambda>"
            if function is not None:
                if isinstance(child, ast.Import):
                    modules = [alias.name for alias in child.names]
                elif isinstance(child, ast.ImportFrom):
                    modules = [_resolve(child, importer, is_package)]
                else:
                    modules = []
                for module in modules:
                    if module == "relapse" or module.startswith("relapse."):
                        yield InnerImport(path, child.lineno, function, importer, module)
            yield from walk(child, inside)

    yield from walk(tree, None)


def python_files(paths: Sequence[Path]) -> Iterator[Path]:
    """The ``.py`` files of ``paths`` (directories searched recursively), sorted per path."""
    for path in paths:
        if path.is_dir():
            yield from sorted(path.rglob("*.py"))
        else:
            yield path


def inner_imports_of(paths: Sequence[Path]) -> Iterator[InnerImport]:
    """
    Every ``relapse`` import made inside a function in the ``.py`` files of ``paths``.

    Raises:
        SyntaxError: a file does not parse.
        OSError: a file cannot be read.
    """
    for file in python_files(paths):
        yield from inner_imports(file)


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it is under it, else as is."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def main(argv: Sequence[str] | None = None) -> int:
    """
    Print the inner imports of the given paths and return the exit status.

    Args:
        argv: Paths to files or directories (default ``src/relapse`` beside
            this script's parent).

    Returns:
        0 when every inner import is allowed, 1 when one is not, 2 when a
        path is missing or a file does not parse.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    paths = [Path(a) for a in args] or [Path(__file__).resolve().parent.parent / "src" / "relapse"]
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"inner_imports: no such file or directory: {missing[0]}", file=sys.stderr)
        return 2
    refused = 0
    found = 0
    for file in python_files(paths):
        try:
            imports = list(inner_imports(file))
        except SyntaxError as error:
            print(f"inner_imports: {file} does not parse: {error}", file=sys.stderr)
            return 2
        for item in imports:
            found += 1
            reason = item.reason()
            verdict = f"ok ({reason})" if reason else "NOT ALLOWED"
            print(f"{_shown(item.path)}:{item.line}: in {item.function}: {item.module}: {verdict}")
            refused += reason is None
    print(f"{found} relapse import(s) inside functions, {refused} not allowed")
    if refused:
        print(
            "inner_imports: import at module level (relapse's layers import one way), or,"
            " for the CLI or an optional extra, add it to LAZY_IMPORTERS or OPTIONAL_MODULES"
            " in scripts/inner_imports.py",
            file=sys.stderr,
        )
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
