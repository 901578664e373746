"""
``mkdocs build --strict``, the command scripts/test.sh runs, fails on a broken docstring.

A project of its own in a temporary folder carries the site's real
configuration (mkdocs.yml without its nav, the hooks and griffe extensions of
docs/_ext) and one tiny module: a docstring documenting a parameter the
signature lacks must abort the build with griffe's warning, and each key of
an options typed dict (relapse.LoopOptions) must render with its ``#:``
comment and its default, an option without either failing the build. Then
the real site builds with the same command.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")
if not os.environ.get("CI"):
    # scripts/test.sh installs the docs group; elsewhere these tests may skip.
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings_handlers.python")

ROOT = Path(__file__).resolve().parents[2]
if not (ROOT / "mkdocs.yml").is_file() or not (ROOT / "docs" / "_ext").is_dir():
    pytest.skip("needs the repository's mkdocs.yml and docs/_ext", allow_module_level=True)

# The real build's command, as in scripts/test.sh (there: .venv/bin/mkdocs).
BUILD = [sys.executable, "-m", "mkdocs", "build", "--strict"]

OPTIONS_MODULE = '''
    """A tiny module with keyword options in a typed dict, like relapse.LoopOptions."""

    from typing import TypedDict, Unpack


    class Options(TypedDict, total=False):
        """Options."""

        #: How many times, at least 1.
        retries: int<label>
        label: str | None


    DEFAULTS: dict[str, object] = {"retries": 2, "label": None}


    def configure(name: str, **options: Unpack[Options]) -> None:
        """
        Configure.

        Args:
            name: The name.
            options: The options, each documented on Options.
        """
'''
LABEL_ENTRY = "\n        #: A label; None: no label."


_ROW = re.compile(
    r'<tr class="doc-section-item">\s*<td>\s*<code>(?P<name>[^<]+)</code>\s*</td>'
    r"\s*<td>(?P<type>.*?)</td>\s*<td>.*?</td>\s*<td>(?P<default>.*?)</td>\s*</tr>",
    re.DOTALL,
)


def text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def parameters(page: str, heading: str) -> tuple[str, dict[str, tuple[str, str]]]:
    """The object's rendered signature, and its parameters table: name -> (type, default)."""
    marker = f'id="{heading}" class="doc doc-heading"'
    start = page.index(marker)
    end = page.find('class="doc doc-heading"', start + len(marker))
    section = page[start : end if end != -1 else len(page)]
    signature = text(section[section.index('class="doc-signature') : section.index("</pre>")])
    rows = {
        row["name"]: (text(row["type"]), text(row["default"])) for row in _ROW.finditer(section)
    }
    return signature, rows


def build(folder: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """Run the build in ``folder``; its exit status and output (both streams, in ``stdout``)."""
    return subprocess.run(
        [*BUILD, "--site-dir", str(site)],
        cwd=folder,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
    )


def tiny_project(tmp_path: Path, module: str, page: str) -> Path:
    """The site's configuration, hooks and griffe extensions with ``module`` as src/tiny.py."""
    config: dict[str, Any] = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config.pop("nav", None)
    python = config["plugins"][1]["mkdocstrings"]["handlers"]["python"]
    for extension in python["options"]["extensions"]:
        if isinstance(extension, dict):
            ((path, options),) = extension.items()
            if path.endswith(":UnpackOptions"):
                options["defaults"] = {"tiny.Options": "tiny.DEFAULTS"}
    project = tmp_path / "project"
    shutil.copytree(ROOT / "docs" / "_ext", project / "docs" / "_ext")
    (project / "docs" / "index.md").write_text(page, encoding="utf-8")
    (project / "src").mkdir()
    (project / "src" / "tiny.py").write_text(textwrap.dedent(module), encoding="utf-8")
    (project / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return project


def test_a_documented_parameter_missing_from_the_signature_fails_the_build(
    tmp_path: Path,
) -> None:
    module = '''
        """A tiny module."""


        def add(left: int, right: int) -> int:
            """
            Add.

            Args:
                left: The left operand.
                rigth: The right operand, misspelt.
            """
            return left + right
    '''
    project = tiny_project(tmp_path, module, "# Tiny\n\n::: tiny.add\n")
    done = build(project, tmp_path / "site")
    assert 0 != done.returncode, done.stdout
    assert "Parameter 'rigth' does not appear in the function signature" in done.stdout
    assert "Aborted with 2 warnings in strict mode!" in done.stdout  # and: it has no type


def attribute(page: str, path: str) -> tuple[str, str]:
    """An attribute's rendered signature and its docstring's text."""
    marker = f'id="{path}" class="doc doc-heading"'
    start = page.index(marker)
    end = page.find('class="doc doc-heading"', start + len(marker))
    # Up to the next heading's own tag, which the marker's search found inside;
    # the last attribute ends with the page's article.
    end = page.rfind("<h", start, end) if end != -1 else page.index("</article>", start)
    section = page[start:end]
    signature = text(section[section.index("<pre>") : section.index("</pre>")])
    body = section[section.index("</pre>") :]
    return signature, " ".join(text(body).split())


def test_each_option_of_a_typed_dict_gets_its_comment_and_default(tmp_path: Path) -> None:
    module = OPTIONS_MODULE.replace("<label>", LABEL_ENTRY)
    project = tiny_project(tmp_path, module, "# Tiny\n\n::: tiny.Options\n")
    done = build(project, tmp_path / "site")
    assert 0 == done.returncode, done.stdout
    assert "WARNING" not in done.stdout
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert ("retries: int = 2", "How many times, at least 1.") == attribute(
        page, "tiny.Options.retries"
    )
    assert ("label: str | None = None", "A label; None: no label.") == attribute(
        page, "tiny.Options.label"
    )


def test_an_option_without_a_comment_fails_the_build(tmp_path: Path) -> None:
    module = OPTIONS_MODULE.replace("<label>", "")
    project = tiny_project(tmp_path, module, "# Tiny\n\n::: tiny.Options\n")
    done = build(project, tmp_path / "site")
    assert 0 != done.returncode, done.stdout
    assert "option 'label' of tiny.Options has no #: comment" in done.stdout


def test_an_option_without_a_default_fails_the_build(tmp_path: Path) -> None:
    module = OPTIONS_MODULE.replace("<label>", LABEL_ENTRY).replace(', "label": None}', "}")
    project = tiny_project(tmp_path, module, "# Tiny\n\n::: tiny.Options\n")
    done = build(project, tmp_path / "site")
    assert 0 != done.returncode, done.stdout
    assert "tiny.DEFAULTS has no default for 'label'" in done.stdout


def test_the_site_builds_without_a_warning(tmp_path: Path) -> None:
    done = build(ROOT, tmp_path / "site")
    assert 0 == done.returncode, done.stdout
    assert "WARNING" not in done.stdout
    page = (tmp_path / "site" / "reference" / "relapse" / "index.html").read_text(encoding="utf-8")
    from relapse._policy import DEFAULTS, LoopOptions

    # Every loop option is on LoopOptions' reference, with its type (as
    # LoopOptions annotates it, less module prefixes), default and text.
    assert set(LoopOptions.__annotations__) == set(DEFAULTS)
    for option, annotation in LoopOptions.__annotations__.items():
        # A ForwardRef: relapse._policy postpones its annotations.
        shown = re.sub(r"\b[a-z_]+\.", "", annotation.__forward_arg__)
        signature, doc = attribute(page, f"relapse.LoopOptions.{option}")
        assert f"{option}: {shown} = {DEFAULTS[option]!r}" == signature, option
        assert doc, option
    # grounded() and run() point there instead of repeating them.
    grounded_signature, _ = parameters(page, "relapse.grounded")
    assert "**options: Unpack[LoopOptions]" in grounded_signature


def test_scripts_test_sh_runs_this_build_without_quiet() -> None:
    """--quiet hides the warnings, and --strict then passes whatever they say."""
    script = ROOT / "scripts" / "test.sh"
    if not script.is_file():
        pytest.skip("needs scripts/test.sh")
    lines = script.read_text(encoding="utf-8").splitlines()
    (line,) = [line for line in lines if "mkdocs build" in line and not line.startswith("#")]
    assert "build --strict" in line
    assert not {"--quiet", "-q"} & set(line.split()), line
