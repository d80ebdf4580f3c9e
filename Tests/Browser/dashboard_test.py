#!/usr/bin/python3
"""Drives the live dashboard in headless Chromium (Debian's chromium, chromium-driver, python3-selenium).

Usage: /usr/bin/python3 Tests/Browser/dashboard_test.py PATH/TO/liveline

Starts a real `liveline simulator --dashboard` process, sends real pushes over HTTP/2 with
`liveline send`, and checks in the browser: the device's Lock Screen changes when the push is
accepted (waiting on the DOM, no sleeps), a tap on a button control is recorded and forwarded to a
little HTTP server this script runs, the keyboard reaches and works the controls, a screenshot is
not blank, and 50 devices render. Exits 1 with the reason on any failure, 2 when the browser or
its driver is missing (that is a failure too: install them with scripts/install-deps.sh test).
"""
import http.server
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import urllib.request
import zlib

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
BUNDLE = "com.example.liveline"


def fail(message, code=1):
    print("dashboard browser test FAILED: " + message, file=sys.stderr)
    sys.exit(code)


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as error:
    fail(f"python3-selenium is missing ({error}); run scripts/install-deps.sh test", 2)
for tool in (CHROMIUM, CHROMEDRIVER):
    if not os.access(tool, os.X_OK):
        fail(f"{tool} is missing; run scripts/install-deps.sh test (chromium, chromium-driver)", 2)


class Receiver(http.server.BaseHTTPRequestHandler):
    """Plays the service's interactions route: records each POST and answers 201."""
    received = []
    lock = threading.Lock()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        with Receiver.lock:
            Receiver.received.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": json.loads(body)})
        self.send_response(201)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


def png_is_not_blank(png):
    """Decodes an 8-bit RGB(A) PNG and checks that it holds more than a background."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        data = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", data[:10])
            assert depth == 8 and colour in (2, 6), f"unexpected PNG format depth {depth} colour {colour}"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += data
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours = {}
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            for x in range(0, width, 4):
                pixel = bytes(line[x * channels:x * channels + 3])
                colours[pixel] = colours.get(pixel, 0) + 1
        previous = line
    sampled = sum(colours.values())
    background = max(colours.values())
    return width, height, len(colours), 1 - background / sampled


def main():
    if len(sys.argv) != 2:
        fail("usage: dashboard_test.py PATH/TO/liveline")
    liveline = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="liveline-browser-")
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    forward = f"http://127.0.0.1:{receiver.server_address[1]}"
    simulator = subprocess.Popen([liveline, "simulator", "--port", "0", "--dashboard", "--dashboard-port", "0", "--state-dir", work,
                                  "--forward-interactions", forward, "--forward-key", "app-key-browser"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=work)
    driver = None
    try:
        banner = []
        for line in simulator.stdout:
            banner.append(line.rstrip("\n"))
            if line.startswith("Ready."):
                break
        else:
            fail("the simulator exited before it was ready:\n" + "\n".join(banner))
        info = {}
        for line in banner:
            if line.startswith("APNs simulator"):
                info["host"] = line.split("https://")[1]
            elif line.startswith("Dashboard: "):
                info["dashboard"] = line.split(" ", 1)[1]
            elif line.startswith("CA file: "):
                info["ca"] = line.split(": ", 1)[1]
            elif line.startswith("Generated key: "):
                info["key"] = line.split(": ", 1)[1].split(" (")[0]
                info["team"] = line.split("team ID ")[1].rstrip(")")
            elif "push-to-start FlightAttributes: " in line:
                info["start"] = line.split(": ")[-1]
        for needed in ("host", "dashboard", "ca", "key", "team", "start"):
            if needed not in info:
                fail(f"the simulator's banner has no {needed}:\n" + "\n".join(banner))
        dashboard = info["dashboard"]

        def send(*arguments):
            result = subprocess.run([liveline, "send", *arguments, "--bundle-id", BUNDLE, "--key", info["key"], "--team-id", info["team"],
                                     "--host", info["host"], "--ca-file", info["ca"]], capture_output=True, text=True, timeout=60)
            if result.returncode != 0:
                fail(f"liveline send {arguments[0]} failed: {result.stdout}{result.stderr}")
            return result.stdout

        def api(path, body=None):
            request = urllib.request.Request(dashboard.rstrip("/") + path, data=None if body is None else json.dumps(body).encode(),
                                             headers={"content-type": "application/json"}, method="GET" if body is None else "POST")
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000", "--disable-dev-shm-usage"):
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        waiter = WebDriverWait(driver, 90, ignored_exceptions=[StaleElementReferenceException])

        def wait(condition, what):
            try:
                waiter.until(condition)
            except TimeoutException:
                cards = driver.find_elements(By.CSS_SELECTOR, "#devices > article.device")
                fail(f"timed out waiting for {what}; first card now: {cards[0].text if cards else '(none)'}")
        driver.get(dashboard)
        wait(lambda d: d.execute_script("return document.body.dataset.loaded === 'true'"), "the page to load")
        wait(lambda d: d.find_elements(By.ID, "device-iphone"), "the device's card")
        wait(lambda d: d.find_element(By.ID, "connection").text == "live", "the event stream to open")

        # A real push-to-start over HTTP/2: the card gets the activity's Lock Screen.
        send("start", "--token", info["start"], "--example", "flight", "--alert-title", "Tracking LL 1234", "--input-push-token")
        wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#device-iphone .activity[data-state='active'] figure[data-presentation='lock-screen']"),
             "the started activity's Lock Screen")
        activity = api("/simulator/v1/activities")[0]
        state = dict(activity["contentState"])
        state["gate"] = "Z42"
        before = driver.find_element(By.ID, "device-iphone").get_attribute("data-version")
        later = int(activity["timestamp"]) + 5  # newer than the start's, or the device drops the update
        send("update", "--token", activity["pushToken"], "--content-state", json.dumps(state), "--timestamp", str(later))
        wait(lambda d: "Z42" in d.find_element(By.CSS_SELECTOR, "#device-iphone figure[data-presentation='lock-screen']").text,
             "the update's gate on the Lock Screen")
        card = driver.find_element(By.ID, "device-iphone")
        if int(card.get_attribute("data-version")) <= int(before):
            fail("the card changed without a new version")
        log = card.find_element(By.CSS_SELECTOR, ".deliveries li").text
        if "ACCEPTED" not in log.upper() or "update" not in log:
            fail(f"the delivery log does not show the accepted update first: {log!r}")

        # A tap on the activity's button: recorded in the journal, forwarded to the receiver.
        card.find_element(By.CSS_SELECTOR, "form[data-op='tap'] button[type='submit']").click()
        wait(lambda d: "forwarded, HTTP 201" in d.find_element(By.CSS_SELECTOR, "#device-iphone .journal").text, "the tap in the journal")
        with Receiver.lock:
            received = list(Receiver.received)
        if len(received) != 1:
            fail(f"expected one forwarded interaction, got {received}")
        got = received[0]
        if got["path"] != f"/v1/activities/{activity['id']}/interactions" or got["body"].get("action") != "refresh" \
                or not got["headers"].get("idempotency-key") or got["headers"].get("authorization") != "Bearer app-key-browser":
            fail(f"the forwarded interaction is not the service's request: {got}")

        # The keyboard: Tab reaches a real button, Enter works it (Open link is recorded).
        link_button = driver.find_element(By.CSS_SELECTOR, "#device-iphone form[data-op='open-link'] button")
        link_input = driver.find_element(By.CSS_SELECTOR, "#device-iphone form[data-op='open-link'] input")
        link_input.click()
        link_input.send_keys(Keys.TAB)
        if driver.switch_to.active_element != link_button:
            fail("Tab from the link field does not reach the Open link button")
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        wait(lambda d: "link liveline://" in d.find_element(By.CSS_SELECTOR, "#device-iphone .journal").text, "the opened link in the journal")
        outline = driver.execute_script("return getComputedStyle(document.activeElement).outlineStyle")
        if driver.execute_script("return document.activeElement.tagName") == "BUTTON" and outline == "none":
            fail("the focused button shows no focus outline")

        # A screenshot that shows something.
        shot = os.environ.get("DASHBOARD_SCREENSHOT") or os.path.join(work, "dashboard.png")
        driver.save_screenshot(shot)
        with open(shot, "rb") as f:
            width, height, colours, share = png_is_not_blank(f.read())
        if width < 800 or height < 600 or colours < 16 or share < 0.02:
            fail(f"the screenshot looks blank: {width}x{height}, {colours} colours, {share:.1%} not background")

        # 50 devices: 49 more through the control API; the first card is not redrawn meanwhile.
        version = driver.find_element(By.ID, "device-iphone").get_attribute("data-version")
        for n in range(2, 51):
            api("/simulator/v1/devices", {"name": f"iPhone {n}", "iOS": "17.1" if n % 2 else "18.2"})
        wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#devices > article.device")) == 50, "50 device cards")
        wait(lambda d: d.find_element(By.ID, "device-count").text == "50", "the device count to read 50")
        if driver.find_element(By.ID, "device-iphone").get_attribute("data-version") != version:
            fail("adding devices redrew an unrelated device's card")
        tokens = driver.find_elements(By.CSS_SELECTOR, "#devices > article.device .tokens button[data-op='copy']")
        if len(tokens) < 50:
            fail(f"expected every device's tokens with copy buttons, found {len(tokens)}")
        driver.refresh()
        wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#devices > article.device")) == 50, "50 device cards after a reload")
        print(f"dashboard browser test passed: push → DOM, tap forwarded, keyboard, screenshot {width}x{height} ({colours} colours), 50 devices")
    finally:
        if driver is not None:
            driver.quit()
        simulator.terminate()
        try:
            simulator.wait(timeout=20)
        except subprocess.TimeoutExpired:
            simulator.kill()
        receiver.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
