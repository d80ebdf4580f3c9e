#!/usr/bin/python3
"""Drives the live dashboard in headless Firefox (Debian's firefox-esr) over WebDriver BiDi, the
W3C protocol Firefox speaks itself, through python3-websockets: no driver program is needed.

Usage: /usr/bin/python3 Tests/Browser/dashboard_firefox_test.py PATH/TO/liveline

Starts a real `liveline simulator --dashboard` process and checks in Firefox what the Chromium test
checks first: the page loads and opens its event stream, a real push-to-start and a real update
sent over HTTP/2 change the device's Lock Screen in the DOM, a tap on a button control is recorded
and forwarded, and a screenshot is not blank. The page is polled through the protocol until each
condition holds (90 s at most each). Exits 1 with the reason on any failure, 2 when Firefox or
python3-websockets is missing (a failure too: scripts/install-deps.sh test installs them).
"""
import asyncio
import base64
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dashboard_support import Receiver, dashboard_api, fail, png_is_not_blank, send_push, start_simulator  # noqa: E402

FIREFOX = "/usr/bin/firefox-esr"

try:
    import websockets
except ImportError as error:
    fail(f"python3-websockets is missing ({error}); run scripts/install-deps.sh test", 2)
if not os.access(FIREFOX, os.X_OK):
    fail(f"{FIREFOX} is missing; run scripts/install-deps.sh test (firefox-esr)", 2)


class BiDi:
    """One WebDriver BiDi session: commands by id, answers matched to them, events ignored."""

    def __init__(self, socket):
        self.socket = socket
        self.next_id = 0

    async def call(self, method, params):
        self.next_id += 1
        sent = self.next_id
        await self.socket.send(json.dumps({"id": sent, "method": method, "params": params}))
        while True:
            message = json.loads(await asyncio.wait_for(self.socket.recv(), 60))
            if message.get("id") != sent:
                continue
            if message.get("type") == "error" or "error" in message:
                fail(f"Firefox refused {method}: {message.get('error')}: {message.get('message')}")
            return message["result"]


def start_firefox(profile):
    """Headless Firefox on a throw-away profile; returns the process and its BiDi WebSocket URL,
    read from the line Firefox prints once it listens."""
    firefox = subprocess.Popen([FIREFOX, "--headless", "--no-remote", "--profile", profile, "--remote-debugging-port", "0",
                                "--width", "1400", "--height", "1000", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    printed = []
    for line in firefox.stderr:
        printed.append(line.rstrip("\n"))
        if "WebDriver BiDi listening on " in line:
            # Keep reading what it prints, so a full pipe never blocks it.
            threading.Thread(target=lambda: [None for _ in firefox.stderr], daemon=True).start()
            return firefox, line.split("listening on ", 1)[1].strip()
    fail("Firefox exited before its WebDriver BiDi endpoint was listening:\n" + "\n".join(printed[-20:]))


async def drive(bidi_url, dashboard, liveline, info):
    async with websockets.connect(bidi_url + "/session", max_size=64 * 1024 * 1024) as socket:
        bidi = BiDi(socket)
        await bidi.call("session.new", {"capabilities": {}})
        contexts = (await bidi.call("browsingContext.getTree", {}))["contexts"]
        context = contexts[0]["context"]

        async def evaluate(expression):
            result = await bidi.call("script.evaluate", {"expression": expression, "target": {"context": context}, "awaitPromise": False})
            if result.get("type") == "exception":
                fail(f"the page threw evaluating {expression!r}: {result['exceptionDetails'].get('text')}")
            return result["result"].get("value")

        async def wait(expression, what):
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                if await evaluate(expression) is True:
                    return
                await asyncio.sleep(0.05)
            card = await evaluate("document.querySelector('#devices > article.device')?.innerText ?? '(none)'")
            fail(f"timed out in Firefox waiting for {what}; first card now: {card}")

        await bidi.call("browsingContext.navigate", {"context": context, "url": dashboard, "wait": "complete"})
        await wait("document.body.dataset.loaded === 'true' && document.getElementById('device-iphone') !== null", "the device's card")
        await wait("document.getElementById('connection')?.textContent === 'live'", "the event stream to open")

        send_push(liveline, info, "start", "--token", info["start"], "--example", "flight", "--alert-title", "Tracking LL 1234", "--input-push-token")
        await wait("document.querySelector(\"#device-iphone .activity[data-state='active'] figure[data-presentation='lock-screen']\") !== null",
                   "the started activity's Lock Screen")
        # The activity as the simulator holds it, read by this script (not through the page).
        activity = dashboard_api(dashboard, "/simulator/v1/activities")[0]
        state = dict(activity["contentState"])
        state["gate"] = "Q17"
        send_push(liveline, info, "update", "--token", activity["pushToken"], "--content-state", json.dumps(state),
                  "--timestamp", str(int(activity["timestamp"]) + 5))
        await wait("document.querySelector(\"#device-iphone figure[data-presentation='lock-screen']\")?.textContent.includes('Q17') === true",
                   "the update's gate on the Lock Screen")

        await evaluate("document.querySelector(\"#device-iphone form[data-op='tap'] button[type='submit']\").click(), true")
        await wait("document.querySelector('#device-iphone .journal')?.textContent.includes('forwarded, HTTP 201') === true", "the tap in the journal")

        shot = await bidi.call("browsingContext.captureScreenshot", {"context": context})
        png = base64.b64decode(shot["data"])
        if os.environ.get("DASHBOARD_SCREENSHOT"):
            with open(os.environ["DASHBOARD_SCREENSHOT"], "wb") as f:
                f.write(png)
        width, height, colours, share = png_is_not_blank(png)
        if width < 800 or height < 600 or colours < 16 or share < 0.02:
            fail(f"the Firefox screenshot looks blank: {width}x{height}, {colours} colours, {share:.1%} not background")
        await bidi.call("session.end", {})
        return width, height, colours


def main():
    if len(sys.argv) != 2:
        fail("usage: dashboard_firefox_test.py PATH/TO/liveline")
    liveline = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="liveline-firefox-")
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    simulator, info = start_simulator(liveline, work, f"http://127.0.0.1:{receiver.server_address[1]}")
    firefox = None
    try:
        profile = os.path.join(work, "firefox-profile")
        os.mkdir(profile)
        firefox, bidi_url = start_firefox(profile)
        width, height, colours = asyncio.run(drive(bidi_url, info["dashboard"], liveline, info))
        with Receiver.lock:
            received = list(Receiver.received)
        if len(received) != 1 or not received[0]["path"].endswith("/interactions"):
            fail(f"expected one forwarded interaction from the Firefox tap, got {received}")
        print(f"dashboard Firefox test passed: push → DOM, tap forwarded, screenshot {width}x{height} ({colours} colours)")
    finally:
        for process in (firefox, simulator):
            if process is None:
                continue
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        receiver.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
