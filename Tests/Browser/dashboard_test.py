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
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dashboard_support import BUNDLE, Receiver, dashboard_api, fail, png_is_not_blank, send_push, start_simulator  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as error:
    fail(f"python3-selenium is missing ({error}); run scripts/install-deps.sh test", 2)
for tool in (CHROMIUM, CHROMEDRIVER):
    if not os.access(tool, os.X_OK):
        fail(f"{tool} is missing; run scripts/install-deps.sh test (chromium, chromium-driver)", 2)


def chromium():
    """Headless Chromium through chromedriver, 1400x1000, and a 90-second waiter on it."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    return driver, WebDriverWait(driver, 90, ignored_exceptions=[StaleElementReferenceException])


def main():
    if len(sys.argv) != 2:
        fail("usage: dashboard_test.py PATH/TO/liveline")
    liveline = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="liveline-browser-")
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    forward = f"http://127.0.0.1:{receiver.server_address[1]}"
    simulator, info = start_simulator(liveline, work, forward)
    driver = None
    try:
        dashboard = info["dashboard"]

        def send(*arguments):
            return send_push(liveline, info, *arguments)

        def api(path, body=None):
            return dashboard_api(dashboard, path, body)

        driver, waiter = chromium()

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

        # The force-quit mode from its checkbox: the next push-to-start is accepted (200) and never shown.
        driver.find_element(By.CSS_SELECTOR, "#device-iphone input[data-op='mode'][data-mode='forceQuit']").click()
        wait(lambda d: api("/simulator/v1/devices")[0]["modes"]["forceQuit"] is True, "the force-quit mode to be set")
        send("start", "--token", info["start"], "--example", "flight", "--alert-title", "Tracking again", "--input-push-token")
        wait(lambda d: "force-quit-start-not-shown" in d.find_element(By.CSS_SELECTOR, "#device-iphone .deliveries li").text,
             "the force-quit start in the delivery log")
        if len(api("/simulator/v1/activities")) != 1:
            fail("a push-to-start to the force-quit app started an activity")
        if not driver.find_element(By.CSS_SELECTOR, "#device-iphone input[data-op='mode'][data-mode='forceQuit']").is_selected():
            fail("the redrawn card does not show the force-quit mode")
        driver.find_element(By.CSS_SELECTOR, "#device-iphone input[data-op='mode'][data-mode='forceQuit']").click()
        wait(lambda d: api("/simulator/v1/devices")[0]["modes"]["forceQuit"] is False, "the force-quit mode to be cleared")
        wait(lambda d: not d.find_element(By.CSS_SELECTOR, "#device-iphone input[data-op='mode'][data-mode='forceQuit']").is_selected(),
             "the redrawn card to show the mode cleared")

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
        # On the fresh page the first Tab reaches the skip links, and a skip link shows when focused.
        ActionChains(driver).send_keys(Keys.TAB).perform()
        if driver.execute_script("return document.activeElement.closest('.skip-links') !== null") is not True:
            fail(f"the first Tab does not reach the skip links but {driver.execute_script('return document.activeElement.outerHTML.slice(0, 80)')}")
        if driver.execute_script("return document.activeElement.getBoundingClientRect().left") < 0:
            fail("the focused skip link is off screen")

        # A log entry (the newest: the second push-to-start) opens to the request APNs saw: the apns- headers
        # as sent, the alert and the payload; never the JWT.
        entry = driver.find_element(By.CSS_SELECTOR, "#device-iphone .deliveries li details")
        entry.find_element(By.TAG_NAME, "summary").click()
        opened = entry.find_element(By.CSS_SELECTOR, "dl.entry").text
        if "apns-id" not in opened or "apns-priority" not in opened or "liveactivity" not in opened:
            fail(f"the opened log entry does not show the request's headers: {opened!r}")
        rows = {dt.text: dd.text for dt, dd in zip(entry.find_elements(By.CSS_SELECTOR, "dl.entry dt"), entry.find_elements(By.CSS_SELECTOR, "dl.entry dd"))}
        if rows.get("apns-push-type") != "liveactivity" or not rows.get("apns-topic", "").startswith(BUNDLE):
            fail(f"the opened entry does not list the headers as sent: {rows!r}")
        if "Tracking again" not in rows.get("alert", ""):
            fail(f"the opened entry does not show the start's alert: {rows!r}")
        payload = entry.find_element(By.CSS_SELECTOR, "pre.payload").text
        try:
            sent_payload = json.loads(payload)
        except ValueError:
            fail(f"the opened entry's payload is not the JSON sent: {payload!r}")
        aps = sent_payload.get("aps", {})
        if aps.get("event") != "start" or aps.get("attributes-type") != "FlightAttributes" or aps.get("alert", {}).get("title") != "Tracking again":
            fail(f"the opened entry's payload is not the push-to-start sent: {payload!r}")
        if "authorization" in entry.text.lower() or "eyJ" in entry.text or info["start"] in entry.get_attribute("innerHTML"):
            fail("the opened entry shows the JWT or a whole token")

        # The filter narrows 50 cards to the one asked for.
        filter_box = driver.find_element(By.ID, "filter")
        filter_box.send_keys("iPhone 42")
        wait(lambda d: len([c for c in d.find_elements(By.CSS_SELECTOR, "#devices > article.device") if c.is_displayed()]) == 1, "the filter to leave one card")
        if driver.find_element(By.ID, "filter-count").text != "1 of 50 shown":
            fail(f"the filter's count reads {driver.find_element(By.ID, 'filter-count').text!r}")
        filter_box.clear()
        filter_box.send_keys(" ")
        wait(lambda d: len([c for c in d.find_elements(By.CSS_SELECTOR, "#devices > article.device") if c.is_displayed()]) == 50, "the cleared filter to show 50 cards")

        # A phone's width: 390 px, nothing wider than the screen.
        driver.set_window_size(390, 844)
        wait(lambda d: d.execute_script("return window.innerWidth") <= 400, "the window to be a phone's width")
        overflow = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        if overflow[0] > overflow[1] + 1:
            fail(f"at a phone's width the page is {overflow[0]} px wide in a {overflow[1]} px window")
        print(f"dashboard browser test passed: push → DOM, tap forwarded, keyboard, screenshot {width}x{height} ({colours} colours), 50 devices, "
              f"log entry headers, skip links, filter, {overflow[1]} px wide")
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
