"""scripts/inner_imports.py: no relapse module imports another inside a function, but the CLI."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "inner_imports.py"
if not SCRIPT.is_file():
    pytest.skip("needs the repository's scripts/", allow_module_level=True)


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("inner_imports", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["inner_imports"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


inner_imports = load_script()


def package(tmp_path: Path, files: dict[str, str]) -> Path:
    """A fake ``relapse`` package under ``tmp_path`` holding ``files`` (path -> source)."""
    root = tmp_path / "relapse"
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return root


def run(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, paths)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


def test_the_package_passes_with_only_the_cli_and_the_optional_extras_imported_lazily() -> None:
    found = list(inner_imports.inner_imports_of([ROOT / "src" / "relapse"]))
    # relapse.integrations.langchain imports its agent middleware (the langchain
    # package, heavier than langchain-core) when it is first asked for.
    lazy = {item.importer for item in found if item.module != "relapse.llms.local"}
    assert {"relapse.cli", "relapse.integrations.langchain"} == lazy
    assert {"relapse.integrations._langchain_agent"} == {
        item.module for item in found if item.importer == "relapse.integrations.langchain"
    }
    done = run()
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        done.stdout.splitlines()[-1]
        == f"{len(found)} relapse import(s) inside functions, 0 not allowed"
    )


def test_an_import_dodging_a_cycle_fails(tmp_path: Path) -> None:
    root = package(
        tmp_path,
        {
            "grounding/_echo.py": """\
                import re


                def wordings():
                    from relapse.prompts import NO_ANSWER
                    return [NO_ANSWER]
                """,
        },
    )
    done = run(root)
    assert done.returncode == 1
    line = 1 + 2 + 1 + 1  # import re, two blank lines, the def, then the import
    assert done.stdout.splitlines() == [
        f"{root / 'grounding' / '_echo.py'}:{line}: in wordings: relapse.prompts: NOT ALLOWED",
        "1 relapse import(s) inside functions, 1 not allowed",
    ]
    assert "LAZY_IMPORTERS or OPTIONAL_MODULES" in done.stderr


def test_relative_imports_are_resolved_and_nested_functions_named(tmp_path: Path) -> None:
    root = package(
        tmp_path,
        {
            "grounding/__init__.py": """\
                def outer():
                    def inner():
                        from . import _check
                        from .._results import Usage
                    return lambda: __import__("os")
                """,
        },
    )
    found = [
        (item.importer, item.line, item.function, item.module)
        for item in inner_imports.inner_imports(root / "grounding" / "__init__.py")
    ]
    assert found == [
        ("relapse.grounding", 3, "inner", "relapse.grounding"),
        ("relapse.grounding", 4, "inner", "relapse._results"),
    ]


def test_module_level_imports_and_other_packages_are_not_listed(tmp_path: Path) -> None:
    root = package(
        tmp_path,
        {
            "_loop.py": """\
                from typing import TYPE_CHECKING

                import relapse.prompts

                if TYPE_CHECKING:
                    from relapse._policy import Policy


                def steps():
                    import json
                    from opentelemetry import trace
                """,
        },
    )
    assert list(inner_imports.inner_imports(root / "_loop.py")) == []
    assert run(root).returncode == 0


def test_an_optional_extra_may_be_imported_where_it_is_used(tmp_path: Path) -> None:
    root = package(
        tmp_path,
        {"evaluation/_models.py": "def chain():\n    import relapse.integrations.langchain\n"},
    )
    done = run(root)
    assert done.returncode == 0
    assert done.stdout.splitlines()[0].endswith(
        "relapse.integrations.langchain: ok (the langchain extra)"
    )


def test_a_missing_path_or_a_broken_file_is_status_2(tmp_path: Path) -> None:
    assert run(tmp_path / "nowhere").returncode == 2
    root = package(tmp_path, {"broken.py": "def f(:\n"})
    done = run(root)
    assert done.returncode == 2
    assert "does not parse" in done.stderr


def test_module_names_start_at_the_last_relapse_directory() -> None:
    name = inner_imports.module_name
    assert name(Path("src/relapse/grounding/_echo.py")) == "relapse.grounding._echo"
    assert name(Path("/x/relapse/src/relapse/checks/__init__.py")) == "relapse.checks"
    assert name(Path("elsewhere/tool.py")) == "tool"


# A module whose optional extra is not installed fails on that extra's own
# package (ModuleNotFoundError, perhaps wrapped in relapse's ImportError that
# names the extra): it is no cycle, and the venv without extras that
# `scripts/test.sh --fast` uses must pass. A cycle fails on a relapse module.
IMPORT_EACH_ALONE = """
import importlib, sys, traceback
failed = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m == "relapse" or m.startswith("relapse.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as error:
        cause = error
        while cause.__cause__ is not None and not isinstance(cause, ModuleNotFoundError):
            cause = cause.__cause__
        missing = getattr(cause, "name", None) if isinstance(cause, ModuleNotFoundError) else None
        if missing and missing.split(".")[0] != "relapse":
            continue
        failed.append(name + ": " + traceback.format_exc().splitlines()[-1])
print("\\n".join(failed))
"""


def test_every_module_imports_first_without_a_cycle() -> None:
    """With the inner imports gone, importing any module first must not hit a half-built one."""
    source = ROOT / "src"
    names = sorted(
        inner_imports.module_name(path.relative_to(source))
        for path in (source / "relapse").rglob("*.py")
    )
    assert len(names) > 60  # every module, not an empty glob
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH_ALONE, *names],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(source)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_an_absent_extra_is_no_cycle_but_a_cycle_fails(tmp_path: Path) -> None:
    """A module fails on an absent third-party package: passed over; on a relapse one: reported."""
    package(
        tmp_path,
        {
            "__init__.py": "",
            "first.py": "from relapse.second import SECOND\n\nFIRST = 1\n",
            "second.py": "from relapse.first import FIRST\n\nSECOND = 2\n",
            "extra.py": "import no_such_extra_package\n",
            "wrapped.py": """\
                try:
                    import no_such_extra_package
                except ImportError as error:
                    raise ImportError("needs the extra: pip install 'relapse[extra]'") from error
                """,
            "broken.py": "import relapse.no_such_module\n",
        },
    )
    names = [f"relapse.{name}" for name in ("broken", "extra", "first", "second", "wrapped")]
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH_ALONE, *names],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    assert [line.split(":")[0] for line in done.stdout.splitlines()] == [
        "relapse.broken",
        "relapse.first",
        "relapse.second",
    ]
