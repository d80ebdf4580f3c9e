extension DashboardPage {
    /// The page's script: draws each device from `GET /api/state`, then replaces only the card of
    /// the device an event names; controls call the JSON routes. `window.dashboardStats` keeps when
    /// each event arrived and when its card was in the DOM (for `liveline bench ui`).
    static let script = #"""
    "use strict";
    """# + timerScript + #"""
    const stats = { events: [] };
    window.dashboardStats = stats;
    const devicesEl = document.getElementById("devices");
    const messageEl = document.getElementById("message");
    const presentations = ["lock-screen", "island-compact", "island-minimal", "island-expanded"];
    const presentationNames = { "lock-screen": "Lock Screen", "island-compact": "Dynamic Island, compact",
      "island-minimal": "Dynamic Island, minimal", "island-expanded": "Dynamic Island, expanded" };

    function esc(value) {
      return String(value ?? "").replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }[c]));
    }
    function now() { return performance.timeOrigin + performance.now(); }
    // The simulator's clock as last heard, run on in real time: the header clock and every timer tick by it.
    let clockBase = null;
    function setClock(iso) {
      const ms = Date.parse(iso);
      if (Number.isFinite(ms)) clockBase = { sim: ms, at: performance.now() };
      document.getElementById("clock").textContent = iso;
    }
    function simulatorNow() { return clockBase ? clockBase.sim + (performance.now() - clockBase.at) : null; }
    function tick() {
      const t = simulatorNow();
      if (t === null) return;
      document.getElementById("clock").textContent = new Date(Math.floor(t / 1000) * 1000).toISOString().replace(".000Z", "Z");
      llTick(devicesEl, t);
    }
    setInterval(tick, 1000);
    function say(text, ok) {
      messageEl.textContent = text;
      messageEl.className = ok ? "ok" : "";
    }

    async function call(path, body) {
      let response;
      try {
        response = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
      } catch (error) {
        say("The dashboard cannot be reached: " + error.message);
        return null;
      }
      const json = await response.json().catch(() => null);
      if (!response.ok) {
        say((json && json.error && json.error.message) || ("HTTP " + response.status));
        return null;
      }
      say("", true);
      return json;
    }

    function tokenRow(label, token, key) {
      return `<li><span>${esc(label)}</span><code title="${esc(token)}">${esc(token)}</code>` +
        `<button type="button" data-op="copy" data-token="${esc(token)}" data-key="${esc(key)}">Copy<span class="sr"> ${esc(label)}</span></button></li>`;
    }

    function logEntry(e) {
      let text = `#${esc(e.sequence)} ${esc((e.time || "").slice(11, 19))} ${esc(e.event || e.pushType || e.kind)} `;
      text += `<span class="verdict">${esc(e.verdict)}</span>`;
      if (e.reason) text += ` ${esc(e.reason)}`;
      if (e.detail) text += `: <span class="detail">${esc(e.detail)}</span>`;
      let findings = "";
      for (const f of e.findings || []) findings += `<li>${esc(f.path)}: ${esc(f.message)} [${esc(f.code)}]</li>`;
      if (findings) text += `<ul class="findings">${findings}</ul>`;
      // Opened: the request APNs saw (method, path with the token cut, the apns- headers as sent), what
      // APNs took from it where no header said (the apns-id answered, the default priority, the push type
      // from the topic), the alert, what each device did, and the payload.
      const sent = (e.headers || []).map(h => [h.name, h.value]);
      const named = new Set(sent.map(([k]) => k));
      const taken = [["apns-id", e.apnsID], ["apns-push-type", e.pushType], ["apns-priority", e.priority], ["apns-topic", e.bundleID]]
        .filter(([k]) => !named.has(k)).map(([k, v]) => [k + " (by APNs)", v]);
      const alert = e.alert === undefined ? undefined : typeof e.alert === "string" ? e.alert : [e.alert.title, e.alert.subtitle, e.alert.body].filter(Boolean).join(" · ") || JSON.stringify(e.alert);
      const rows = [["request", `${e.method || "POST"} ${e.path || ""}`], ["status", e.status], ...sent, ...taken,
                    ["channel", e.channelID], ["event", e.event], ["alert", alert]]
        .filter(([, v]) => v !== undefined && v !== null && v !== "");
      let more = rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("");
      for (const d of e.deliveries || []) more += `<dt>${esc(d.deviceID)}</dt><dd>${d.applied ? "applied" : "dropped: " + esc(d.reason)}${d.activityID ? " · " + esc(d.activityID) : ""}${d.detail ? " · " + esc(d.detail) : ""}</dd>`;
      let payload = "";
      if (e.payload !== undefined || e.payloadText !== undefined) {
        const cut = e.payloadTruncated ? ", cut to what APNs takes" : "";
        const body = e.payload !== undefined ? JSON.stringify(e.payload, null, 2) : e.payloadText;
        payload = `<p class="payload-name">Payload (${esc(e.payloadBytes)} bytes${cut}${e.payload === undefined ? ", not JSON" : ""})</p><pre class="payload">${esc(body)}</pre>`;
      } else if (e.payloadBytes === 0) {
        payload = `<p class="payload-name">No payload</p>`;
      }
      return `<li class="verdict-${esc(e.verdict)}" data-sequence="${esc(e.sequence)}"><details><summary>${text}</summary><dl class="entry">${more}</dl>${payload}</details></li>`;
    }

    // The filter: cards whose name, id or iOS version do not contain the words are hidden.
    const filterEl = document.getElementById("filter");
    function filtered(card) {
      const words = (filterEl?.value || "").toLowerCase().split(/\s+/).filter(Boolean);
      card.hidden = !words.every(w => (card.dataset.search || "").includes(w));
    }
    function applyFilter() {
      const cards = [...devicesEl.querySelectorAll("article.device")];
      cards.forEach(filtered);
      const shown = cards.filter(c => !c.hidden).length;
      document.getElementById("filter-count").textContent = shown === cards.length ? "" : `${shown} of ${cards.length} shown`;
    }
    filterEl?.addEventListener("input", applyFilter);

    function journalEntry(e) {
      if (e.type === "link") return `<li data-sequence="${esc(e.sequence)}">link ${esc(e.url)}</li>`;
      let text = `${esc(e.kind)} <b class="action">${esc(e.action)}</b>`;
      if (e.value !== undefined) text += ` → ${e.value ? "on" : "off"}`;
      if (e.forwardStatus !== undefined) text += ` · forwarded, HTTP ${esc(e.forwardStatus)}`;
      else if (e.forwardError) text += ` · not forwarded: ${esc(e.forwardError)}`;
      else text += " · recorded";
      return `<li class="interaction" data-sequence="${esc(e.sequence)}">${text}</li>`;
    }

    function activityBlock(device, a) {
      const key = device.id + "-" + a.id;
      let html = `<div class="activity state-${esc(a.state)}" data-activity="${esc(a.id)}" data-state="${esc(a.state)}">`;
      html += `<p class="activity-head"><b>${esc(a.attributesType)}</b> <span class="state">${esc(a.state)}</span> · updates ${esc(a.updates)} · dropped ${esc(a.dropped)}</p>`;
      html += `<div class="presentations">`;
      for (const p of presentations) {
        if (a.fragments[p] === undefined) continue;
        // The Lock Screen in the page's own appearance: light and dark are both drawn, CSS shows one.
        const scheme = p === "lock-screen" && a.fragments["lock-screen-dark"] !== undefined ? " only-light" : "";
        html += `<figure class="presentation${scheme}" data-presentation="${p}"><figcaption class="presentation-name">${presentationNames[p]}</figcaption>${a.fragments[p]}</figure>`;
        if (scheme) html += `<figure class="presentation only-dark" data-presentation="lock-screen-dark"><figcaption class="presentation-name">${presentationNames[p]}</figcaption>${a.fragments["lock-screen-dark"]}</figure>`;
      }
      html += `</div>`;
      if ((a.findings || []).length) {
        html += `<ul class="findings" aria-label="Lint findings">` + a.findings.map(f => `<li>${esc(f.path)}: ${esc(f.message)}</li>`).join("") + `</ul>`;
      }
      if ((a.warnings || []).length) html += `<ul class="warnings">` + a.warnings.map(w => `<li>${esc(w)}</li>`).join("") + `</ul>`;
      if (a.pushToken) html += `<ul class="tokens">${tokenRow("update token", a.pushToken, "copy-update-" + key)}</ul>`;
      html += `<form data-op="tap" data-activity="${esc(a.id)}">` +
        `<label>Intent <input name="action" required maxlength="200" value="refresh" data-key="tap-action-${esc(key)}"></label>` +
        `<label>Kind <select name="kind" data-key="tap-kind-${esc(key)}"><option value="button">button</option><option value="toggle">toggle</option></select></label>` +
        `<label><input type="checkbox" name="value" data-key="tap-value-${esc(key)}"> toggle on</label>` +
        `<button type="submit" data-key="tap-${esc(key)}">Tap</button></form>`;
      html += `<form data-op="open-link" data-activity="${esc(a.id)}">` +
        `<label>Link <input name="url" required value="${esc(a.link || "liveline://activity/" + a.id)}" data-key="link-url-${esc(key)}"></label>` +
        `<button type="submit" data-key="link-${esc(key)}">Open link</button></form>`;
      html += `<div class="buttons">`;
      if (a.pushToken) html += `<button type="button" data-op="rotate-token" data-activity="${esc(a.id)}" data-key="rotate-${esc(key)}">Rotate update token</button> `;
      if (a.state === "active" || a.state === "stale") html += `<button type="button" data-op="end" data-activity="${esc(a.id)}" data-key="end-${esc(key)}">End</button> `;
      html += `<button type="button" data-op="dismiss" data-activity="${esc(a.id)}" data-key="dismiss-${esc(key)}">Dismiss</button></div>`;
      return html + `</div>`;
    }

    function cardHTML(d) {
      let html = `<h2 id="title-${esc(d.id)}">${esc(d.name)} <small>iOS ${esc(d.iOS)} · ${esc(d.id)} · ${esc(d.environment)}</small></h2>`;
      html += `<div class="activities">`;
      html += d.activities.length ? d.activities.map(a => activityBlock(d, a)).join("") : `<p class="empty">No Live Activity on the Lock Screen</p>`;
      html += `</div><h3>Tokens and settings</h3>`;
      for (const app of d.apps) {
        html += `<p>${esc(app.bundleID)}${app.installed ? "" : " (uninstalled)"}</p><ul class="tokens">`;
        html += tokenRow("device token", app.deviceToken, "copy-device-" + d.id + app.bundleID);
        for (const [type, token] of Object.entries(app.pushToStartTokens)) {
          html += tokenRow("push-to-start " + type, token, "copy-start-" + d.id + type);
        }
        html += `</ul>`;
        for (const type of Object.keys(app.pushToStartTokens)) {
          html += `<button type="button" data-op="rotate-push-to-start" data-bundle="${esc(app.bundleID)}" data-type="${esc(type)}" data-key="rotate-start-${esc(d.id + type)}">Rotate push-to-start token (${esc(type)})</button> `;
        }
        html += `<label><input type="checkbox" data-op="frequent-updates" data-bundle="${esc(app.bundleID)}" data-key="frequent-${esc(d.id + app.bundleID)}"${app.frequentUpdatesEnabled ? " checked" : ""}> Frequent updates allowed${app.supportsFrequentUpdates ? "" : " (the app does not ask for them)"}</label>`;
      }
      // Failures the phone models on purpose (docs/simulator.md, "Device modes").
      const modes = d.modes || {};
      html += `<p><label><input type="checkbox" data-op="mode" data-mode="forceQuit" data-key="mode-quit-${esc(d.id)}"${modes.forceQuit ? " checked" : ""}> App force-quit (push-to-start accepted, never shown)</label> ` +
        `<label><input type="checkbox" data-op="mode" data-mode="withholdsUpdateTokens" data-key="mode-token-${esc(d.id)}"${modes.withholdsUpdateTokens ? " checked" : ""}> Update tokens never arrive</label></p>`;
      html += `<h3>Deliveries</h3><ol class="log deliveries">${d.log.map(logEntry).join("") || "<li class=\"none\">No pushes yet</li>"}</ol>`;
      html += `<h3>Taps and links</h3><ol class="log journal">${d.journal.map(journalEntry).join("") || "<li class=\"none\">None yet</li>"}</ol>`;
      return html;
    }

    function drawCard(d) {
      const old = document.getElementById("device-" + d.id);
      const el = document.createElement("article");
      el.className = "device";
      el.id = "device-" + d.id;
      el.dataset.device = d.id;
      el.dataset.search = `${d.name} ${d.id} ios ${d.iOS}`.toLowerCase();
      filtered(el);
      el.setAttribute("aria-labelledby", "title-" + d.id);
      el.dataset.version = String(Number(old?.dataset.version ?? 0) + 1);
      el.innerHTML = cardHTML(d);
      if (!old) {
        devicesEl.appendChild(el);
        document.getElementById("device-count").textContent = String(devicesEl.children.length);
        return el;
      }
      // Keep what the person was doing: the focused control and typed values.
      const focused = old.contains(document.activeElement) ? document.activeElement.dataset.key : null;
      for (const input of old.querySelectorAll("input[data-key], select[data-key]")) {
        const twin = el.querySelector(`[data-key="${CSS.escape(input.dataset.key)}"]`);
        if (!twin || input.dataset.op === "frequent-updates" || input.dataset.op === "mode") continue;
        if (input.type === "checkbox") twin.checked = input.checked; else twin.value = input.value;
      }
      old.replaceWith(el);
      if (focused) el.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
      return el;
    }

    function drawUnmatched(list) {
      document.getElementById("unmatched").innerHTML = list.map(logEntry).join("") || "<li class=\"none\">None</li>";
    }

    async function load() {
      const response = await fetch("/api/state");
      const state = await response.json();
      setClock(state.time);
      for (const d of state.devices) drawCard(d);
      drawUnmatched(state.unmatched);
      document.body.dataset.loaded = "true";
    }

    function onEvent(message) {
      const arrived = now();
      const data = JSON.parse(message.data);
      if (data.card) drawCard(data.card);
      if (data.unmatched) drawUnmatched(data.unmatched);
      if (data.time) setClock(data.time);
      const record = { kind: data.kind, deviceID: data.deviceID, sequence: data.entry?.sequence, arrived, rendered: now() };
      stats.events.push(record);
      if (stats.events.length > 2000) stats.events.splice(0, 1000);
      window.dispatchEvent(new CustomEvent("dashboard-event", { detail: record }));
    }

    function listen() {
      const source = new EventSource("/api/events");
      const status = document.getElementById("connection");
      let opened = false;
      source.onopen = () => {
        status.textContent = "live";
        if (opened) load();  // a reconnect may have missed events
        opened = true;
      };
      source.onerror = () => { status.textContent = "reconnecting…"; };
      for (const kind of ["push-accepted", "push-rejected", "push-dropped", "activity-started", "activity-updated", "activity-ended",
                          "activity-stale", "activity-dismissed", "token-issued", "token-rotated", "device-added", "interaction", "link", "clock"]) {
        source.addEventListener(kind, onEvent);
      }
    }

    function deviceOf(el) { return el.closest(".device")?.dataset.device; }

    devicesEl.addEventListener("click", async event => {
      const button = event.target.closest("button[data-op]");
      if (!button) return;
      const op = button.dataset.op, activity = button.dataset.activity, device = deviceOf(button);
      if (op === "copy") {
        const token = button.dataset.token;
        try {
          await navigator.clipboard.writeText(token);
          say("Copied the token " + token.slice(0, 8) + "…", true);
        } catch {
          const code = button.parentElement.querySelector("code");
          getSelection().selectAllChildren(code);
          say("The browser did not allow copying; the token is selected, press Ctrl+C");
        }
      } else if (op === "rotate-token" || op === "end" || op === "dismiss") {
        await call(`/simulator/v1/activities/${encodeURIComponent(activity)}/${op}`, {});
      } else if (op === "rotate-push-to-start") {
        await call(`/simulator/v1/devices/${encodeURIComponent(device)}/rotate-push-to-start`, { bundleID: button.dataset.bundle, attributesType: button.dataset.type });
      }
    });

    devicesEl.addEventListener("change", async event => {
      const box = event.target;
      if (box.dataset.op === "mode") {
        await call(`/simulator/v1/devices/${encodeURIComponent(deviceOf(box))}/modes`, { [box.dataset.mode]: box.checked });
        return;
      }
      if (box.dataset.op !== "frequent-updates") return;
      await call(`/simulator/v1/devices/${encodeURIComponent(deviceOf(box))}/frequent-updates`, { bundleID: box.dataset.bundle, enabled: box.checked });
    });

    devicesEl.addEventListener("submit", async event => {
      const form = event.target;
      event.preventDefault();
      const activity = encodeURIComponent(form.dataset.activity);
      if (form.dataset.op === "tap") {
        const kind = form.elements.kind.value;
        const body = { action: form.elements.action.value, kind };
        if (kind === "toggle") body.value = form.elements.value.checked;
        const answer = await call(`/simulator/v1/activities/${activity}/tap`, body);
        if (answer) say(`Tapped ${answer.action}` + (answer.forwardStatus !== undefined ? `; forwarded (HTTP ${answer.forwardStatus})` : ""), true);
      } else if (form.dataset.op === "open-link") {
        const answer = await call(`/simulator/v1/activities/${activity}/open-link`, { url: form.elements.url.value });
        if (answer) say("Opened " + answer.url, true);
      }
    });

    document.getElementById("add-device").addEventListener("submit", async event => {
      event.preventDefault();
      const form = event.target;
      const answer = await call("/simulator/v1/devices", { name: form.elements.name.value, iOS: form.elements.iOS.value });
      if (answer) say(`Added ${answer.name} (${answer.id}, iOS ${answer.iOS})`, true);
    });

    document.getElementById("advance-clock").addEventListener("submit", async event => {
      event.preventDefault();
      const seconds = Number(event.target.elements.seconds.value);
      const answer = await call("/simulator/v1/clock/advance", { seconds });
      if (answer) say("The clock reads " + answer.time, true);
    });

    listen();
    load().catch(error => say("Cannot load the state: " + error.message));
    """#
}
