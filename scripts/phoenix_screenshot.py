"""
Render docs/phoenix-trace.png: a recovered call and its check's verdict as Phoenix shows them.

Starts ``phoenix serve`` on free loopback ports in a temporary folder, runs
``examples/otel-collector/app.py`` against it with content capture on and
``relapse.integrations.phoenix.PhoenixAnnotationExporter`` added to the
app's tracer provider as the docs' snippet adds it (the app itself is left
as it is for other backends), finds the trace and its spans over Phoenix's
REST API and waits (up to 60 s) until Phoenix has filed one annotation per
iteration. The rejected first ``relapse.iteration`` span's inline
evaluation (``evaluations.0.evaluation.*``) must be the default check's
verdict (name ``relapse.default``, annotator kind ``CODE``, label ``fail``,
score 0) and its annotation the same values with the same explanation.

Headless Chromium (Debian's ``chromium`` package) then opens the trace view
with that span selected; its Info tab holds an Annotations card, collapsed,
which no address opens. So the script expands the card, switches it to its
Table view, turns on row wrapping, widens the name column, and screenshots
the tree (the call recovering: a GUARDRAIL check span under each iteration,
and each iteration's ``relapse.default`` badge with its score, 0.00 then
1.00) beside the annotation's row: name ``relapse.default``, kind ``CODE``,
label ``fail``, score 0, and the explanation.

Chromium is driven over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: file descriptors 3 and 4, NUL-terminated JSON),
so nothing but the standard library is needed. The script exits non-zero,
naming what it missed, when an element it clicks is not on the page or the
click changes nothing, when Phoenix holds other annotations than the spans'
inline evaluations, or when the table shows other columns, rows or values
than the span's annotation (or the tree other badges), cuts one off, or does
not fit it in the picture. Phoenix and Chromium are stopped by their process
ids.

    apt-get install chromium
    RELAPSE_PHOENIX_BIN=.venv-phoenix/bin/phoenix .venv/bin/python scripts/phoenix_screenshot.py
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "examples" / "otel-collector" / "app.py"
OUTPUT = ROOT / "docs" / "phoenix-trace.png"
PROJECT = "relapse-demo"
#: The picture's size in CSS pixels (device scale 1): the trace tree and the
#: span pane side by side, wide enough for the annotation table's first five
#: columns (name to explanation) to fit in the pane's Annotations card.
WIDTH, HEIGHT = 1840, 900
#: How far to widen the annotation table's name column (120 px at first),
#: so that ``relapse.default`` is not cut off.
NAME_WIDEN_PX = 30
#: Seconds to wait for Phoenix to file the annotations: it files them
#: asynchronously and retries one whose span it has not stored yet every
#: 10 s (Phoenix 20.26), so a few retries' worth.
ANNOTATION_TIMEOUT_S = 60
#: Seconds to wait for Chromium's reply to one DevTools command.
REPLY_TIMEOUT_S = 60
#: The attribute prefix of the inline evaluation the picture shows.
EVALUATION = "evaluations.0.evaluation."
#: The flags known to work headless on a closed network, as root: no
#: sandbox (it refuses to start as root), no GPU, and none of Chromium's own
#: connections to Google's hosts (refused here, many at a time).
CHROMIUM_FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars",
)  # fmt: skip
#: What runs the example: app.py imported as a module (it runs nothing on
#: import), PhoenixAnnotationExporter added to its tracer provider as the
#: docs' snippet adds it ("The verdict as a Phoenix annotation" in
#: docs/integrations/tracing-backends.md), then app.py's own main, whose
#: provider.shutdown() flushes both exporters. app.py itself is unchanged,
#: so it still sends to any OTLP backend without the exporter.
APP_WITH_ANNOTATIONS = (
    "import os, sys\n"
    "from pathlib import Path\n"
    "sys.path.insert(0, str(Path(sys.argv[1]).parent))\n"
    "import app\n"
    "from opentelemetry.sdk.trace.export import BatchSpanProcessor\n"
    "from relapse.integrations.phoenix import PhoenixAnnotationExporter\n"
    "phoenix = os.environ['PHOENIX_COLLECTOR_ENDPOINT']\n"
    "app.provider.add_span_processor(BatchSpanProcessor(PhoenixAnnotationExporter(phoenix)))\n"
    "raise SystemExit(app.main())\n"
)
#: What the child process runs first (subprocess cannot place a descriptor
#: at a given number): move the two pipe ends to the file descriptors 3
#: (Chromium reads commands) and 4 (it writes replies), which
#: --remote-debugging-pipe uses, then exec Chromium under the same process id.
PIPE_TRAMPOLINE = (
    "import os, sys\n"
    "read_end, write_end = int(sys.argv[1]), int(sys.argv[2])\n"
    "os.dup2(read_end, 3)\n"
    "os.dup2(write_end, 4)\n"
    "os.close(read_end)\n"
    "os.close(write_end)\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)


def free_port() -> int:
    """Return a TCP port free on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def get(url: str) -> Any:
    """GET ``url``: the decoded JSON, or the text when the body is not JSON."""
    with urllib.request.urlopen(url, timeout=10) as response:
        body = response.read()
    return json.loads(body) if body[:1] in (b"{", b"[") else body.decode()


def wait_for(condition: Any, what: str, timeout_s: float = 180.0) -> Any:
    """Poll ``condition()`` every 0.5 s until truthy; exit naming ``what`` after ``timeout_s`` s."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            found = condition()
        except (urllib.error.URLError, OSError):
            found = None
        if found:
            return found
        time.sleep(0.5)
    sys.exit(f"timed out waiting for {what}")


def stop(process: subprocess.Popen[bytes], *, group: bool = False) -> None:
    """
    Stop ``process`` by its id: SIGTERM, then SIGKILL after 30 s.

    With ``group``, the signal goes to the process group ``process`` leads
    (started with ``start_new_session``), so Chromium's renderer and utility
    processes go with it.
    """
    if process.poll() is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            if group:
                os.killpg(process.pid, sig)
            else:
                process.send_signal(sig)
        except ProcessLookupError:  # it exited between the poll and the signal
            pass
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            continue
        return


class Browser:
    """
    One headless Chromium page driven over the DevTools protocol on a pipe.

    Args:
        chromium: The Chromium executable.
        profile: A new, empty folder for the profile (``--user-data-dir``).

    Raises:
        RuntimeError: when Chromium closes the pipe or answers a command with
            an error (the command's name and Chromium's message).
    """

    def __init__(self, chromium: str, profile: Path) -> None:
        commands_read, commands_write = os.pipe()
        replies_read, replies_write = os.pipe()
        # Duplicated to 10 or above, so that moving them to 3 and 4 in the
        # child cannot overwrite one with the other.
        child_read = fcntl.fcntl(commands_read, fcntl.F_DUPFD, 10)
        child_write = fcntl.fcntl(replies_write, fcntl.F_DUPFD, 10)
        os.close(commands_read)
        os.close(replies_write)
        argv = [chromium, *CHROMIUM_FLAGS, f"--window-size={WIDTH},{HEIGHT}",
                f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"]  # fmt: skip
        self.process = subprocess.Popen(
            [sys.executable, "-c", PIPE_TRAMPOLINE, str(child_read), str(child_write), *argv],
            pass_fds=(child_read, child_write),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        os.close(child_read)
        os.close(child_write)
        self._commands = os.fdopen(commands_write, "wb", buffering=0)
        self._replies = os.fdopen(replies_read, "rb", buffering=0)
        self._pending = b""
        self._last_id = 0
        self.session = ""

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one DevTools command (to the page once one is open); return its result."""
        self._last_id += 1
        message: dict[str, Any] = {"id": self._last_id, "method": method, "params": params or {}}
        if self.session:
            message["sessionId"] = self.session
        self._commands.write(json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._pending:
                if not select.select([self._replies], [], [], REPLY_TIMEOUT_S)[0]:
                    raise RuntimeError(
                        f"chromium sent nothing for {REPLY_TIMEOUT_S} s after {method}"
                    )
                chunk = self._replies.read(1 << 16)
                if not chunk:
                    raise RuntimeError(f"chromium closed the DevTools pipe during {method}")
                self._pending += chunk
            raw, self._pending = self._pending.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") != self._last_id:
                continue  # an event, or the reply to nothing we wait for
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error'].get('message')}")
            result: dict[str, Any] = reply["result"]
            return result

    def open(self, url: str) -> None:
        """Open ``url`` in a new page of ``WIDTH`` x ``HEIGHT`` CSS pixels."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
        )
        self.call("Page.navigate", {"url": url})

    def evaluate(self, expression: str) -> Any:
        """The JSON value of the JavaScript ``expression`` in the page."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def locate(self, element: str, what: str) -> tuple[float, float]:
        """
        The middle, in CSS pixels, of the element the JavaScript expression ``element`` finds.

        Exits naming ``what`` when the page has not drawn it within 60 s.
        """
        where = (
            f"(() => {{ const found = {element}; if (!found) return null;"
            " const box = found.getBoundingClientRect();"
            " return box.width && box.height"
            " ? [box.x + box.width / 2, box.y + box.height / 2] : null;"
            " })()"
        )
        x, y = wait_for(lambda: self.evaluate(where), what, timeout_s=60)
        return x, y

    def mouse(self, kind: str, x: float, y: float, *, held: bool) -> None:
        """One mouse event of ``kind`` at (``x``, ``y``), the left button ``held`` or not."""
        self.call(
            "Input.dispatchMouseEvent",
            {"type": kind, "x": x, "y": y, "button": "left", "buttons": int(held), "clickCount": 1},
        )

    def click(self, element: str, what: str, *, until: str) -> None:
        """
        Click the middle of ``element`` (see ``locate``) until the JavaScript ``until`` holds.

        A real press and release, as a user's. A click that lands before
        the page has wired the element up does nothing, so it is repeated,
        every 2 s, until ``until`` is true; exits naming ``what`` after 60 s.
        """
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            x, y = self.locate(element, what)
            self.mouse("mouseMoved", x, y, held=False)
            self.mouse("mousePressed", x, y, held=True)
            self.mouse("mouseReleased", x, y, held=False)
            for _ in range(4):
                time.sleep(0.5)
                if self.evaluate(until):
                    return
        sys.exit(f"clicking {what} did nothing: {until} stayed false")

    def drag(self, element: str, what: str, dx: float) -> None:
        """Drag ``element`` (see ``locate``) ``dx`` CSS pixels to the right, in ten steps."""
        x, y = self.locate(element, what)
        self.mouse("mouseMoved", x, y, held=False)
        self.mouse("mousePressed", x, y, held=True)
        for step in range(1, 11):
            self.mouse("mouseMoved", x + dx * step / 10, y, held=True)
        self.mouse("mouseReleased", x + dx, y, held=False)

    def screenshot(self, path: Path) -> None:
        """Write the page as it is now to ``path`` (PNG)."""
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot")["data"]))

    def close(self) -> None:
        """Close Chromium (Browser.close, then its process group by id if it lingers)."""
        try:
            self.session = ""
            self.call("Browser.close")
            self.process.wait(timeout=30)
        except (RuntimeError, OSError, subprocess.TimeoutExpired):
            pass
        stop(self.process, group=True)
        # Chromium's helper processes (same process group, started with it)
        # exit a moment after the browser: wait up to 10 s, then kill the
        # group's stragglers.
        for _ in range(20):
            try:
                os.killpg(self.process.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.5)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self._commands.close()
        self._replies.close()


#: The span pane's card titled "Annotations" (a collapsible card on the
#: Info tab, its title followed by the count).
ANNOTATIONS_CARD = (
    "[...document.querySelectorAll('section.card')].find(s =>"
    " s.querySelector('h3.card__title')?.firstChild?.textContent.trim() === 'Annotations')"
)
#: The span's annotation table, which the card shows in its Table view.
ANNOTATION_TABLE = f"{ANNOTATIONS_CARD}?.querySelector('table[data-testid=span-annotations-table]')"
#: The table's columns the picture shows, in Phoenix's order: an annotation's
#: name, annotator kind, label, score and explanation (user, source,
#: identifier, metadata and times follow, scrolled out of the card).
ANNOTATION_COLUMNS = ("name", "kind", "label", "score", "explanation")


def shown_annotations(browser: Browser) -> list[dict[str, str]]:
    """The rows the span's annotation table shows now: column -> text, as displayed."""
    rows = browser.evaluate(
        f"(() => {{ const table = {ANNOTATION_TABLE}; if (!table) return [];"
        " const names = [...table.tHead.rows[0].cells].map(c => c.innerText.trim());"
        " return [...table.tBodies[0].rows].map(r => [...r.cells].map((c, i) =>"
        " [names[i], c.innerText.trim()]));"
        " })()"
    )
    return [
        {str(name): str(text) for name, text in row if name in ANNOTATION_COLUMNS} for row in rows
    ]


def shown_badges(browser: Browser) -> list[str]:
    """The annotation badges of the trace tree, top to bottom: name and mean score, as displayed."""
    badges = browser.evaluate(
        "[...document.querySelectorAll('.annotation-summary-badge')]"
        ".map(b => b.innerText.replace(/\\s+/g, ' ').trim())"
    )
    return [str(badge) for badge in badges]


def screenshot_annotation(
    chromium: str, profile: Path, url: str, expected: dict[str, str], badges: list[str]
) -> None:
    """
    Screenshot the trace tree and the selected span's annotation table.

    ``expected`` maps each of ``ANNOTATION_COLUMNS`` to the text the table's
    one row must show for it; ``badges`` is what the tree's annotation
    badges must read, top to bottom (``"relapse.default μ 0.00"``). Exits
    naming the difference when the page shows anything else, and naming the
    element when one is not on the page or clicking it changes nothing.
    """
    browser = Browser(chromium, profile)
    try:
        browser.open(url)
        info_tab = (
            "[...document.querySelectorAll('[role=tab]')].find(e => e.innerText.trim() === 'Info')"
        )
        browser.locate(info_tab, "the selected span's Info tab")
        if browser.evaluate(f"{info_tab}.getAttribute('aria-selected')") != "true":
            sys.exit("the selected span's pane opened on another tab than Info")
        disclosure = f"{ANNOTATIONS_CARD}?.querySelector('button.card__collapsible-button')"
        expanded = f"{disclosure}?.getAttribute('aria-expanded') === 'true'"
        browser.locate(disclosure, "the disclosure button of the span's Annotations card")
        if not browser.evaluate(expanded):
            browser.click(
                disclosure, "the disclosure button of the span's Annotations card", until=expanded
            )
        table_view = (
            f"[...({ANNOTATIONS_CARD}?.querySelectorAll('[role=radio]') ?? [])]"
            ".find(e => e.innerText.trim() === 'Table')"
        )
        browser.click(
            table_view,
            "the Table view of the span's Annotations card",
            until=f"{table_view}?.getAttribute('aria-checked') === 'true' && !!{ANNOTATION_TABLE}",
        )
        # The explanation wraps onto more lines instead of running past the
        # card's edge (the button then reads "Clip each row to a single line").
        browser.click(
            f"{ANNOTATIONS_CARD}?.querySelector("
            "'button[aria-label=\"Wrap each row over as many lines as it needs\"]')",
            "the annotation table's wrap-rows button",
            until=f"!!{ANNOTATIONS_CARD}?.querySelector("
            '\'button[aria-label="Clip each row to a single line"][aria-pressed="true"]\')',
        )
        name_header = (
            f"[...({ANNOTATION_TABLE}?.querySelectorAll('th') ?? [])]"
            ".find(e => e.innerText.trim() === 'name')"
        )
        resizer = f"{name_header}?.querySelector('.resizer')"
        browser.locate(resizer, "the resize handle of the annotation table's name column")
        name_width = f"{name_header}.getBoundingClientRect().width"
        before = browser.evaluate(name_width)
        browser.drag(
            resizer, "the resize handle of the annotation table's name column", NAME_WIDEN_PX
        )
        after = browser.evaluate(name_width)
        if after < before + NAME_WIDEN_PX - 1:
            sys.exit(f"dragging the name column's handle widened it from {before} to {after} px")
        headers = browser.evaluate(
            f"[...{ANNOTATION_TABLE}.tHead.rows[0].cells].map(c => c.innerText.trim())"
        )
        if tuple(headers[: len(ANNOTATION_COLUMNS)]) != ANNOTATION_COLUMNS:
            sys.exit(
                f"the annotation table's columns are {headers}, not {ANNOTATION_COLUMNS} first"
            )
        shown = wait_for(
            lambda: (rows := shown_annotations(browser)) == [expected] and rows,
            f"the annotation table to show exactly one row, {expected}",
            timeout_s=30,
        )
        if (tree := shown_badges(browser)) != badges:
            sys.exit(f"the trace tree's annotation badges read {tree}, not {badges}")
        # Every cell of the five columns is inside the card (not scrolled
        # out of it, nor under its pinned delete column) and the picture.
        shown_cells = (
            f"[...{ANNOTATION_TABLE}.rows]"
            f".flatMap(r => [...r.cells].slice(0, {len(ANNOTATION_COLUMNS)}))"
        )
        outside = browser.evaluate(
            f"(() => {{ const card = {ANNOTATIONS_CARD}.getBoundingClientRect();"
            f" const pinned = [...{ANNOTATION_TABLE}.tHead.rows[0].cells].at(-1)"
            ".getBoundingClientRect().left;"
            f" return {shown_cells}.filter(c => {{ const box = c.getBoundingClientRect();"
            f" return box.left < card.left || box.right > Math.min(card.right, pinned)"
            f" || box.bottom > {HEIGHT}; }}).map(c => {{ const box = c.getBoundingClientRect();"
            " return `${c.innerText.trim()} at x ${box.left}-${box.right}, y to ${box.bottom}"
            " (the card's cells end at x ${Math.min(card.right, pinned)})`; }); })()"
        )
        if outside:
            sys.exit(f"the annotation table does not fit {outside} in {WIDTH}x{HEIGHT}: {shown}")
        cut_off = browser.evaluate(
            f"{shown_cells}.flatMap(c => [c, ...c.querySelectorAll('*')])"
            ".filter(e => e.scrollWidth > e.clientWidth).map(e => e.innerText.trim())"
        )
        if cut_off:
            sys.exit(f"the annotation table cuts off {cut_off}: widen NAME_WIDEN_PX or WIDTH")
        # The mouse, left on the name column's handle by the drag, would
        # draw it highlighted: move it to the span pane's empty foot.
        browser.mouse("mouseMoved", WIDTH - 200, HEIGHT - 20, held=False)
        # The table is drawn; let the layout settle before the capture.
        time.sleep(1.0)
        browser.screenshot(OUTPUT)
    finally:
        browser.close()


def main() -> None:
    """Start Phoenix, send it a recovered call's trace, and screenshot the rejected attempt."""
    phoenix = os.environ.get("RELAPSE_PHOENIX_BIN") or shutil.which("phoenix")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if phoenix is None or chromium is None:
        sys.exit("needs RELAPSE_PHOENIX_BIN (or phoenix on PATH) and chromium on PATH")
    workdir = Path(tempfile.mkdtemp(prefix="relapse-phoenix-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PHOENIX_", "OTEL_"))}
    env.update(
        PHOENIX_HOST="127.0.0.1",
        PHOENIX_PORT=str(port),
        PHOENIX_GRPC_PORT=str(free_port()),
        PHOENIX_WORKING_DIR=str(workdir / "phoenix"),
        PHOENIX_TELEMETRY_ENABLED="false",
    )
    with (workdir / "phoenix.log").open("wb") as log:
        server = subprocess.Popen(
            [phoenix, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=workdir
        )
    try:
        wait_for(lambda: get(base + "/healthz") == "OK", "phoenix")
        app_env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        app_env.update(
            OTEL_EXPORTER_OTLP_ENDPOINT=base,
            OTEL_EXPORTER_OTLP_HEADERS=f"x-project-name={PROJECT}",
            OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true",
        )
        app_env["PHOENIX_COLLECTOR_ENDPOINT"] = base
        done = subprocess.run(
            [sys.executable, "-c", APP_WITH_ANNOTATIONS, str(APP)], env=app_env,
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            sys.exit(f"app.py exited with {done.returncode}:\n{done.stdout}{done.stderr}")
        match = re.search(r"trace id: ([0-9a-f]{32})", done.stdout)
        if match is None:
            sys.exit(f"app.py printed no trace id:\n{done.stdout}")
        trace_id = match.group(1)
        spans_url = f"{base}/v1/projects/{PROJECT}/spans?trace_id={trace_id}&limit=100"
        # root, call, 2 iterations, their 2 chats and 2 checks
        spans = wait_for(
            lambda: len(data := get(spans_url)["data"]) >= 8 and data, "the trace in phoenix"
        )
        iterations = sorted(
            (s for s in spans if s["name"] == "relapse.iteration"), key=lambda s: s["start_time"]
        )
        if len(iterations) != 2:
            sys.exit(f"the trace has {len(iterations)} relapse.iteration spans, not 2")
        rejected = iterations[0]
        evaluation = {
            key.removeprefix(EVALUATION): value
            for key, value in rejected["attributes"].items()
            if key.startswith(EVALUATION)
        }
        # The span's inline evaluation must be the default check's verdict on
        # the wrong year, and Phoenix's annotation exactly that evaluation.
        wanted = {"name": "relapse.default", "annotator_kind": "CODE", "label": "fail", "score": 0}
        if {key: evaluation.get(key) for key in wanted} != wanted:
            sys.exit(f"the first iteration span's inline evaluation is not {wanted}: {evaluation}")
        annotations_url = f"{base}/v1/projects/{PROJECT}/span_annotations?" + "&".join(
            f"span_ids={s['context']['span_id']}" for s in iterations
        )
        annotations = wait_for(
            lambda: len(data := get(annotations_url)["data"]) >= 2 and data,
            "phoenix to file the two iterations' annotations",
            timeout_s=ANNOTATION_TIMEOUT_S,
        )
        by_span = {a["span_id"]: a for a in annotations}
        if len(annotations) != 2 or len(by_span) != 2:
            sys.exit(f"phoenix holds other annotations than one per iteration: {annotations}")
        annotation = by_span.get(rejected["context"]["span_id"])
        if annotation is None:
            sys.exit(f"the rejected iteration's span has no annotation: {annotations}")
        filed = {
            "name": annotation["name"],
            "annotator_kind": annotation["annotator_kind"],
            **annotation["result"],
        }
        if filed != {**evaluation, "explanation": evaluation.get("explanation")}:
            sys.exit(f"phoenix filed {filed}, not the span's inline evaluation {evaluation}")
        # The table shows each value as Phoenix prints it: a whole-number
        # score without its fraction (0.0 as "0").
        expected = {
            "name": filed["name"],
            "kind": filed["annotator_kind"],
            "label": filed["label"],
            "score": format(filed["score"], "g"),
            "explanation": filed["explanation"] or "",
        }
        # Each iteration's badge in the tree: the name and the mean score.
        badges = [
            f"{a['name']} μ {a['result']['score']:.2f}"
            for a in (by_span[s["context"]["span_id"]] for s in iterations)
        ]
        (project,) = [p for p in get(base + "/v1/projects")["data"] if p["name"] == PROJECT]
        url = (
            f"{base}/projects/{project['id']}/traces/{trace_id}?selectedSpanNodeId={rejected['id']}"
        )
        screenshot_annotation(chromium, workdir / "chromium", url, expected, badges)
        print(f"wrote {OUTPUT} ({url})")
    finally:
        stop(server)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
