#!/usr/bin/python3
"""Drives the service's dashboard in headless Chromium (Debian's chromium, chromium-driver, python3-selenium).

Usage: /usr/bin/python3 Tests/Browser/service_dashboard_test.py PATH/TO/liveline

Starts a real `liveline simulator` process and a real `liveline serve --dashboard` sending to it,
registers the app, a device and its tokens through the service's API, starts an activity and
POSTs an update, and checks in the browser, waiting on the DOM (no sleeps): each push's delivery
becomes "sent" over the event stream, each send gets a picture of its Lock Screen naming what it drew (a token APNs refuses "failed", with APNs' reason and the token kept), the update token shows as a prefix only, the link to the
simulator's dashboard is there, the keyboard reaches the filter and it works, and a screenshot is
not blank. Exits 1 with the reason on any failure, 2 when the browser or its driver is missing.
"""
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The simulator dashboard's test checks the browser tools on import and has the PNG reader.
from dashboard_test import chromium, png_is_not_blank  # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

BUNDLE = "com.example.liveline"


def fail(message, code=1):
    print("service dashboard browser test FAILED: " + message, file=sys.stderr)
    sys.exit(code)


def start(command, cwd, ready="Ready."):
    """Starts a liveline process and reads its banner up to the ready line."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd)
    banner = []
    for line in process.stdout:
        banner.append(line.rstrip("\n"))
        if line.startswith(ready):
            return process, banner
    fail(f"{command[1]} exited before it was ready:\n" + "\n".join(banner))


def field(banner, prefix, what):
    for line in banner:
        if line.startswith(prefix):
            return line[len(prefix):]
    fail(f"the banner has no {what}:\n" + "\n".join(banner))


def call(url, method="GET", body=None, key=None, dashboard_token=None):
    headers = {"content-type": "application/json"}
    if key:
        headers["authorization"] = "Bearer " + key
    if dashboard_token:
        headers["x-liveline-dashboard-token"] = dashboard_token
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        fail(f"{method} {url} answered {error.code}: {error.read().decode(errors='replace')}")


def main():
    if len(sys.argv) != 2:
        fail("usage: service_dashboard_test.py PATH/TO/liveline")
    liveline = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="liveline-service-browser-")
    processes, driver = [], None
    try:
        simulator, banner = start([liveline, "simulator", "--port", "0", "--dashboard", "--dashboard-port", "0", "--state-dir", work], work)
        processes.append(simulator)
        apns = field(banner, "APNs simulator", "APNs address").split("https://")[1]
        simulator_dashboard = field(banner, "Dashboard: ", "dashboard")
        ca = field(banner, "CA file: ", "CA file")
        generated = field(banner, "Generated key: ", "generated key")
        key_file = generated.split(" (")[0]
        key_id = generated.split("key ID ")[1].split(",")[0]
        team_id = generated.split("team ID ")[1].rstrip(")")
        start_token = next((line.split(": ")[-1] for line in banner if "push-to-start FlightAttributes: " in line), None) or fail("no push-to-start token")

        serve, banner = start([liveline, "serve", "--port", "0", "--database", os.path.join(work, "liveline.db"), "--apns-host", apns, "--ca-file", ca,
                               "--dashboard", "--dashboard-port", "0", "--simulator-dashboard", simulator_dashboard], work)
        processes.append(serve)
        service = field(banner, "Liveline service listening on ", "service URL")
        dashboard = field(banner, "Dashboard: ", "dashboard")
        admin = field(banner, "Admin key (shown once, keep it): ", "admin key")

        def api(method, path, body=None):
            return call(service + path, method, body, admin)

        with open(key_file) as f:
            pem = f.read()
        api("POST", "/v1/apps", {"bundleID": BUNDLE, "teamID": team_id, "keyID": key_id, "key": pem, "environment": "sandbox"})
        api("PUT", "/v1/devices/phone-1", {"bundleID": BUNDLE, "iosVersion": "18.2"})
        api("PUT", "/v1/devices/phone-1/push-to-start/FlightAttributes", {"token": start_token})

        driver, waiter = chromium()

        def wait(condition, what):
            try:
                waiter.until(condition)
            except TimeoutException:
                shown = driver.find_elements(By.CSS_SELECTOR, "#activities > section.activity")
                fail(f"timed out waiting for {what}; first card now: {shown[0].text if shown else '(none)'}")

        def sent(event):
            rows = driver.find_elements(By.CSS_SELECTOR, "section[data-activity='flight-1'] tr.delivery[data-state='sent']")
            return [r for r in rows if r.find_elements(By.TAG_NAME, "td")[1].text == event]

        driver.get(dashboard)
        wait(lambda d: d.find_element(By.ID, "connection").text == "live", "the event stream to open")
        link = driver.find_element(By.ID, "simulator-link")
        if link.get_attribute("href") != simulator_dashboard or not link.is_displayed():
            fail(f"the simulator's dashboard is not linked: {link.get_attribute('href')!r}")

        # Push-to-start through the service: the card appears and its start delivery becomes sent.
        now = datetime.datetime.now(datetime.timezone.utc)
        iso = lambda minutes: (now + datetime.timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
        api("POST", "/v1/activities/flight-1/start", {  # the token path: the update token is registered below
            "attributesType": "FlightAttributes", "audience": {"deviceIDs": ["phone-1"]}, "alert": {"title": "LL 1234", "body": "Tracking"}, "channel": "none",
            "attributes": {"flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": iso(120)},
            "contentState": {"status": "scheduled", "gate": "B12", "boardingTime": iso(80), "delayMinutes": 0, "isBoarding": False}})
        wait(lambda d: sent("start"), "the start's delivery to be sent")

        # The device's activity token, registered through the API, shows as a prefix.
        simulator_base, _, simulator_token = simulator_dashboard.partition("?token=")
        activities = call(simulator_base.rstrip("/") + "/simulator/v1/activities", dashboard_token=simulator_token)
        token = activities[0]["pushToken"] if activities and activities[0].get("pushToken") else fail(f"no activity on the simulator: {activities}")
        api("PUT", "/v1/activities/flight-1/tokens/phone-1", {"token": token, "attributesType": "FlightAttributes"})
        wait(lambda d: d.find_elements(By.CSS_SELECTOR, "section[data-activity='flight-1'] tr.update-token[data-device='phone-1']"), "the update token's row")
        shown = driver.find_element(By.CSS_SELECTOR, "tr.update-token[data-device='phone-1'] .token").text
        if shown != token[:8] + "…":
            fail(f"the update token shows as {shown!r}, not its 8-character prefix")

        # A second device whose token APNs does not know: its delivery of the update fails with the reason (BadDeviceToken keeps the token, marked).
        dead = "ab" * 32
        api("PUT", "/v1/devices/phone-2", {"bundleID": BUNDLE, "iosVersion": "18.2"})
        api("PUT", "/v1/activities/flight-1/tokens/phone-2", {"token": dead, "attributesType": "FlightAttributes"})

        # An update through the service: its delivery becomes sent, with the apns-id, over the event stream.
        api("POST", "/v1/activities/flight-1/update", {"contentState": {"status": "boarding", "gate": "C9", "boardingTime": iso(60), "delayMinutes": 0, "isBoarding": True}})
        wait(lambda d: sent("update"), "the update's delivery to be sent")
        if "apns-id" not in sent("update")[0].text:
            fail(f"the sent update shows no apns-id: {sent('update')[0].text!r}")
        # Each send's picture: its content on the Lock Screen as LivelinePreview draws it, named.
        picture = "section[data-activity='flight-1'] figure.send-picture[data-event='%s']"
        wait(lambda d: d.find_elements(By.CSS_SELECTOR, picture % "update" + " .picture"), "the update's picture")
        for event, gate in (("start", "B12"), ("update", "C9")):
            figure = driver.find_element(By.CSS_SELECTOR, picture % event)
            drawn = [e for e in figure.find_elements(By.CSS_SELECTOR, ".picture [data-ll-box='lock-screen']") if e.is_displayed()]
            shown = " ".join(e.text for e in figure.find_elements(By.CSS_SELECTOR, ".picture") if e.is_displayed())
            if gate not in shown:
                fail(f"the {event}'s picture does not show gate {gate}: {shown!r}")
            caption = figure.find_element(By.TAG_NAME, "figcaption").text
            if "Drawn: FlightAttributes through its template" not in caption or event not in caption:
                fail(f"the {event}'s picture does not name what it drew: {caption!r}")
            if not drawn or drawn[0].size["width"] < 300 or drawn[0].size["height"] < 60:
                fail(f"the {event}'s picture is not a Lock Screen's size: {drawn[0].size if drawn else None}")
        other = driver.find_element(By.CSS_SELECTOR, picture % "start").text
        if "C9" in other:
            fail(f"the start's picture shows the update's gate: {other!r}")
        refused = "section[data-activity='flight-1'] tr.delivery[data-state='failed']"
        wait(lambda d: d.find_elements(By.CSS_SELECTOR, refused), "the refused token's delivery to fail")
        detail = driver.find_element(By.CSS_SELECTOR, refused + " td.detail").text
        if "BadDeviceToken" not in detail or "refused this token" not in detail:
            fail(f"the failed delivery does not say why: {detail!r}")
        # The token is kept, and its row says it is refused (the reason on hover).
        kept = "section[data-activity='flight-1'] tr.update-token[data-device='phone-2'] td.environment"
        wait(lambda d: "refused" in " ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, kept)), "the refused token's row to say so")
        if "refused this token" not in driver.find_element(By.CSS_SELECTOR, kept).get_attribute("title"):
            fail("the refused token's row does not give the reason on hover")
        # Each device's status: phone-1 active and reachable; phone-2's token was refused by APNs, and the row says why.
        status = "section[data-activity='flight-1'] tr.device-status[data-device='%s']"
        wait(lambda d: d.find_elements(By.CSS_SELECTOR, status % "phone-1" + "[data-state='active']"), "phone-1's status to be active")
        wait(lambda d: d.find_elements(By.CSS_SELECTOR, status % "phone-2" + " td.reason code"), "phone-2's status to give a reason")
        why = driver.find_element(By.CSS_SELECTOR, status % "phone-2" + " td.reason").text
        if not why.startswith("token-refused") or "BadDeviceToken" not in why:
            fail(f"phone-2's status does not say why the update did not show: {why!r}")
        page = driver.find_element(By.TAG_NAME, "body").text + driver.page_source
        for secret, what in ((token, "the full update token"), (dead, "the dead token"), (start_token, "the full push-to-start token"), (admin, "the admin key"), ("PRIVATE KEY", "the .p8 key")):
            if secret in page:
                fail(f"the page shows {what}")

        # The keyboard: Tab reaches the skip link, then the simulator link, then the filter, which hides what does not match.
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.TAB)
        for _ in range(5):
            if driver.execute_script("return document.activeElement.id") == "filter":
                break
            driver.switch_to.active_element.send_keys(Keys.TAB)
        else:
            fail("Tab does not reach the filter")
        driver.switch_to.active_element.send_keys("no-such-activity")
        wait(lambda d: not d.find_element(By.CSS_SELECTOR, "section[data-activity='flight-1']").is_displayed(), "the filter to hide flight-1")
        driver.switch_to.active_element.send_keys(Keys.CONTROL, "a")
        driver.switch_to.active_element.send_keys(Keys.BACKSPACE)
        wait(lambda d: d.find_element(By.CSS_SELECTOR, "section[data-activity='flight-1']").is_displayed(), "flight-1 to show again")

        shot = os.environ.get("DASHBOARD_SCREENSHOT") or os.path.join(work, "service-dashboard.png")
        driver.save_screenshot(shot)
        with open(shot, "rb") as f:
            width, height, colours, share = png_is_not_blank(f.read())
        if width < 800 or height < 600 or colours < 16 or share < 0.02:
            fail(f"the screenshot looks blank: {width}x{height}, {colours} colours, {share:.1%} not background")
        print(f"service dashboard browser test passed: start and update sent in the DOM, a refused token's delivery failed with the reason, each device's status and reason, token as prefix, link, keyboard, screenshot {width}x{height} ({colours} colours)")
    finally:
        if driver is not None:
            driver.quit()
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
