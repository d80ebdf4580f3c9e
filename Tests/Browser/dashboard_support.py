"""What the dashboard's browser tests share: the simulator they start, the pushes they send, the
receiver of forwarded interactions, and a PNG check. Python's standard library only."""
import http.server
import json
import struct
import subprocess
import sys
import threading
import urllib.request
import zlib

BUNDLE = "com.example.liveline"


def fail(message, code=1):
    print("dashboard browser test FAILED: " + message, file=sys.stderr)
    sys.exit(code)


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


def start_simulator(liveline, work, forward):
    """Starts `liveline simulator --dashboard` forwarding taps to `forward`; returns the process and
    what its banner says (host, dashboard, ca, key, team, start token) once it printed Ready."""
    simulator = subprocess.Popen([liveline, "simulator", "--port", "0", "--dashboard", "--dashboard-port", "0", "--state-dir", work,
                                  "--forward-interactions", forward, "--forward-key", "app-key-browser"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=work)
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
            simulator.kill()
            fail(f"the simulator's banner has no {needed}:\n" + "\n".join(banner))
    return simulator, info


def send_push(liveline, info, *arguments):
    """`liveline send ARGUMENTS...` to the simulator over HTTP/2; its output, or the test fails."""
    result = subprocess.run([liveline, "send", *arguments, "--bundle-id", BUNDLE, "--key", info["key"], "--team-id", info["team"],
                             "--host", info["host"], "--ca-file", info["ca"]], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        fail(f"liveline send {arguments[0]} failed: {result.stdout}{result.stderr}")
    return result.stdout


def dashboard_api(dashboard, path, body=None):
    """GET (or POST `body` as JSON to) the dashboard's `path`; the JSON answer. `dashboard` is the URL
    the banner prints (…/?token=…): the token goes in the X-Liveline-Dashboard-Token header."""
    base, _, token = dashboard.partition("?token=")
    request = urllib.request.Request(base.rstrip("/") + path, data=None if body is None else json.dumps(body).encode(),
                                     headers={"content-type": "application/json", "x-liveline-dashboard-token": token},
                                     method="GET" if body is None else "POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())
