"""Headless screenshots of ``inspect view``: the log list and one page per log (docs/screenshots/).

    .venv/bin/python benchmarks/first_hour.py --keep /tmp/first_hour          # scripted logs of every task
    .venv/bin/python scripts/viewer_screenshots.py /tmp/first_hour/logs --out docs/screenshots

Starts ``inspect view`` on a free port over LOG_DIR and a headless Chromium (Debian: ``apt-get install chromium``)
driven over the DevTools protocol: each page is opened, given time to load its log headers (the viewer syncs them
into the browser after the first paint), captured, and written as PNG, downscaled until it is under ``--max-kb``.
The log list is ``log_list.png``; each log is ``<task>.png`` (the viewer's ``#/logs/<file>`` route).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import websockets
from PIL import Image


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, seconds: float = 60) -> str:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.read().decode()
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"{url} did not answer within {seconds:.0f} s")


class Page:
    """One Chromium page over the DevTools protocol."""

    def __init__(self, ws) -> None:
        self.ws, self.next_id = ws, 0

    async def call(self, method: str, **params) -> dict:
        self.next_id += 1
        await self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(await self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    async def text(self) -> str:
        result = await self.call("Runtime.evaluate", expression="document.body ? document.body.innerText : ''")
        return result.get("result", {}).get("value", "")

    async def shoot(self, url: str, ready: str, settle: float, timeout: float) -> bytes:
        await self.call("Page.navigate", url=url)
        deadline = time.time() + timeout
        await asyncio.sleep(settle)
        while time.time() < deadline:
            text = await self.text()
            if ready in text and "Syncing" not in text and "Loading" not in text:
                break
            await asyncio.sleep(1)
        await asyncio.sleep(settle)
        return base64.b64decode((await self.call("Page.captureScreenshot", format="png"))["data"])


def shrink(png: bytes, max_kb: int) -> bytes:
    """The PNG, downscaled (and palette-quantised) until it is under ``max_kb``."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    scale = 1.0
    while True:
        size = (int(image.width * scale), int(image.height * scale))
        out = io.BytesIO()
        image.resize(size, Image.LANCZOS).quantize(colors=128).save(out, format="PNG", optimize=True)
        if out.tell() <= max_kb * 1024 or scale < 0.4:
            return out.getvalue()
        scale *= 0.85


async def capture(base: str, debug_port: int, shots: list[tuple[str, str, str]], out: Path, args) -> None:
    request = urllib.request.Request(f"http://127.0.0.1:{debug_port}/json/new?about:blank", method="PUT")
    with urllib.request.urlopen(request, timeout=10) as response:
        target = json.loads(response.read())
    async with websockets.connect(target["webSocketDebuggerUrl"], max_size=64 * 2**20) as ws:
        page = Page(ws)
        await page.call("Page.enable")
        await page.call("Runtime.enable")
        width, height = args.size
        await page.call(
            "Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False
        )
        for name, route, ready in shots:
            png = shrink(await page.shoot(base + route, ready, args.settle, args.timeout), args.max_kb)
            (out / f"{name}.png").write_bytes(png)
            print(f"{name}.png  {len(png) // 1024} KB  {base + route}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log_dir", type=Path, help="folder of .eval logs (one per task is shown)")
    ap.add_argument("--out", type=Path, default=Path("docs/screenshots"), help="where the PNGs go")
    ap.add_argument("--size", type=int, nargs=2, default=(1400, 900), help="window width and height")
    ap.add_argument("--max-kb", type=int, default=280, help="largest PNG written (downscaled to fit)")
    ap.add_argument("--settle", type=float, default=3.0, help="seconds to wait after load before capturing")
    ap.add_argument("--timeout", type=float, default=45.0, help="seconds a page may take to load")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "chromium", help="browser executable")
    args = ap.parse_args()
    from inspect_ai.log import read_eval_log

    logs = sorted(args.log_dir.resolve().glob("*.eval"))
    if not logs:
        print(f"viewer_screenshots: no .eval logs in {args.log_dir}", file=sys.stderr)
        return 2
    shots = [("log_list", "/#/logs", logs[0].name.split("_")[1])]
    for path in logs:
        task = read_eval_log(str(path), header_only=True).eval.task.split("/")[-1]
        shots.append((task, f"/#/logs/{path.name}", task))
    args.out.mkdir(parents=True, exist_ok=True)
    view_port, debug_port = free_port(), free_port()
    inspect = Path(sys.executable).parent / "inspect"
    view = subprocess.Popen(
        [
            str(inspect),
            "view",
            "start",
            "--log-dir",
            str(args.log_dir),
            "--port",
            str(view_port),
            "--host",
            "127.0.0.1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with tempfile.TemporaryDirectory() as profile:
        browser = subprocess.Popen(
            [
                args.chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                f"--user-data-dir={profile}",
                f"--remote-debugging-port={debug_port}",
                f"--window-size={args.size[0]},{args.size[1]}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_http(f"http://127.0.0.1:{view_port}/")
            wait_http(f"http://127.0.0.1:{debug_port}/json/version")
            asyncio.run(capture(f"http://127.0.0.1:{view_port}", debug_port, shots, args.out, args))
        finally:
            browser.terminate()
            view.terminate()
            browser.wait(timeout=30)
            view.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
