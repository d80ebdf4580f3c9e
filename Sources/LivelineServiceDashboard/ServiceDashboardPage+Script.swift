extension ServiceDashboardPage {
    /// The page's script: it loads `/api/activities`, then replaces an activity's card on each
    /// `activity` event of `/api/events`. Text goes in with `textContent` only (ids and reasons come
    /// from API callers). Standard DOM, `fetch` and `EventSource`; nothing else.
    static let script = #"""
    "use strict";
    const main = document.getElementById("activities");
    const cards = new Map();

    function el(tag, attributes, ...children) {
      const node = document.createElement(tag);
      for (const [name, value] of Object.entries(attributes || {})) {
        if (value !== undefined && value !== null) node.setAttribute(name, value);
      }
      for (const child of children) {
        if (child === undefined || child === null) continue;
        node.append(typeof child === "string" ? document.createTextNode(child) : child);
      }
      return node;
    }

    function time(iso) {
      if (!iso) return "";
      const date = new Date(iso);
      return el("time", { datetime: iso }, date.toLocaleTimeString());
    }

    // What a delivery's state means, with the fields that explain it.
    function detail(d) {
      const parts = [];
      switch (d.state) {
        case "queued": parts.push("waiting for a worker", d.nextAttemptAt ? " from " : "", time(d.nextAttemptAt)); break;
        case "sending": parts.push(`on the wire (attempt ${d.attempts})`); break;
        case "retrying": parts.push(d.reason || "transient failure", " · next attempt ", time(d.nextAttemptAt)); break;
        case "sent": parts.push("apns-id ", el("code", {}, d.apnsID || "?")); if (d.displayed) parts.push(" · displayed ", time(d.displayedAt)); break;
        case "failed": parts.push(d.reason || "failed"); break;
        case "superseded": parts.push(d.reason || "a newer update replaced it before it was sent"); break;
        case "pruned": parts.push(d.reason || "APNs said the token is dead", " · token removed"); break;
      }
      if (d.note) parts.push(" · ", d.note);
      return parts;
    }

    function deliveryRow(d) {
      const label = d.displayed ? "displayed" : d.state;
      return el("tr", { class: "delivery", "data-id": String(d.id), "data-state": d.state },
        el("td", {}, String(d.sendID)),
        el("td", {}, d.event),
        el("td", {}, d.deviceID || (d.target === "channel" ? "channel" : "")),
        el("td", { class: "token" }, d.token),
        el("td", {}, String(d.priority)),
        el("td", {}, el("span", { class: "state", "data-state": label }, label)),
        el("td", { class: "detail" }, ...detail(d)));
    }

    // A device's status: what the service knows or infers, and why a push did not show.
    function deviceRow(s) {
      const last = s.lastDelivery, reason = s.reason;
      return el("tr", { class: "device-status", "data-device": s.deviceID, "data-state": s.state },
        el("td", {}, s.deviceID, s.iosVersion ? el("small", {}, ` iOS ${s.iosVersion}`) : null),
        el("td", {}, el("span", { class: "state", "data-state": s.state }, s.state)),
        el("td", {}, s.reachable ? "yes" : "no"),
        el("td", {}, last ? `${last.event} · ${last.state}${last.status ? " " + last.status : ""}${last.reason ? " " + last.reason : ""} · ` : "none", last ? time(last.at) : null),
        el("td", {}, s.receipt ? time(s.receipt.displayedAt) : "none"),
        el("td", { class: "reason detail" }, reason ? el("code", {}, reason.code) : "", reason ? " " + reason.message : ""));
    }

    function table(label, headings, rows) {
      return el("table", { "aria-label": label },
        el("thead", {}, el("tr", {}, ...headings.map(h => el("th", { scope: "col" }, h)))),
        el("tbody", {}, ...rows));
    }

    // A device's budget for this activity (the service's ledger): priority-10 spent, what was lowered or coalesced.
    function budgetRow(b) {
      const spent = (b.immediate.activities[0] || { spent: 0, remaining: b.immediate.budgetPerHour });
      const lowered = b.lowered.recent[0];
      return el("tr", { class: "budget", "data-device": b.deviceID },
        el("td", {}, b.deviceID),
        el("td", {}, `${spent.spent} of ${b.immediate.budgetPerHour}`, spent.refillsAt ? " · refills " : "", spent.refillsAt ? time(spent.refillsAt) : null),
        el("td", {}, `${b.pushToStart.spent} of ${b.pushToStart.budget}`),
        el("td", {}, String(b.lowered.count), lowered ? ` · ${lowered.reason}` : ""),
        el("td", {}, String(b.coalesced.count)));
    }

    // A send's content on the Lock Screen, drawn by the server's renderer (LivelinePreview) as it was
    // when sent, light and dark (the page's scheme shows one), with what it drew named.
    function sendFigure(s) {
      const figure = el("figure", { class: "send-picture", "data-send": String(s.sendID), "data-event": s.event },
        el("figcaption", {}, `Send ${s.sendID} · ${s.event} · `, time(s.sentAt), el("br"), el("span", { class: "drew" }, "Drawn: " + s.drew)));
      if (s.error) {
        figure.append(el("p", { class: "picture-error" }, s.error));
      } else {
        for (const [html, scheme] of [[s.lockScreen, s.lockScreenDark ? "only-light" : ""], [s.lockScreenDark, "only-dark"]]) {
          if (!html) continue;
          const picture = el("div", { class: ("picture " + scheme).trim() });
          // The renderer's own markup: it escapes every text it draws (the same fragments the simulator's page shows).
          picture.innerHTML = html;
          figure.append(picture);
        }
      }
      if ((s.warnings || []).length) figure.append(el("ul", { class: "warnings" }, ...s.warnings.map(w => el("li", {}, w))));
      return figure;
    }

    function card(a) {
      const budgets = (a.devices || []).filter(d => d.budget).map(d => d.budget);
      const titleID = "title-" + cards.size + "-" + a.activityID.replace(/[^A-Za-z0-9_-]/g, "_");
      const counts = Object.entries(a.counts).filter(([, n]) => n > 0)
        .map(([state, n]) => el("span", { class: "state", "data-state": state }, `${n} ${state}`));
      const latest = new Map();
      for (const d of a.deliveries) if (d.deviceID && !latest.has(d.deviceID)) latest.set(d.deviceID, d);
      const tokens = a.tokens.map(t => {
        const d = latest.get(t.deviceID);
        return el("tr", { class: "update-token", "data-device": t.deviceID },
          el("td", {}, t.deviceID), el("td", { class: "token" }, t.token), el("td", {}, time(t.registeredAt)),
          el("td", { class: "environment", "data-state": t.state || "active", title: t.reason || "" },
             (t.environment || "?") + (t.state && t.state !== "active" ? " · " + t.state : "")),
          el("td", {}, d ? el("span", { class: "state", "data-state": d.displayed ? "displayed" : d.state }, d.displayed ? "displayed" : d.state) : "no push yet"));
      });
      return el("section", { class: "activity changed", "data-activity": a.activityID, "aria-labelledby": titleID },
        el("h2", { id: titleID }, a.activityID, " ", el("small", {}, `${a.attributesType} · ${a.bundleID}`)),
        el("p", {}, "started ", time(a.startedAt),
          a.endedAt ? el("span", { class: "ended" }, " · ended ", time(a.endedAt)) : null,
          a.channelID ? ` · channel ${a.channelID}` : null,
          a.final ? " · every push is final" : " · pushes in progress"),
        el("p", { class: "counts" }, ...(counts.length ? counts : ["no push yet"])),
        el("h3", {}, `Update tokens (${a.tokenCount})`),
        a.tokens.length ? table("Update tokens", ["Device", "Token", "Registered", "Environment", "Latest push"], tokens) : el("p", {}, "none registered"),
        el("h3", {}, `Devices (${(a.devices || []).length})`),
        (a.devices || []).length ? table("Devices", ["Device", "State", "Reachable", "Last push (APNs' answer)", "Receipt", "Why it did not show"], a.devices.map(deviceRow)) : el("p", {}, "no device yet"),
        ...(budgets.length ? [el("h3", {}, "Budgets this hour"),
          table("Budgets", ["Device", "Priority 10", "Push-to-start", "Lowered to 5", "Coalesced"], budgets.map(budgetRow))] : []),
        ...((a.sends || []).length ? [el("h3", {}, `Sent, on the Lock Screen (newest ${a.sends.length})`),
          el("div", { class: "sends" }, ...a.sends.map(sendFigure))] : []),
        el("h3", {}, `Deliveries (newest ${a.deliveries.length})`),
        a.deliveries.length ? table("Deliveries", ["Send", "Event", "Device", "Token", "Priority", "State", "Detail"], a.deliveries.map(deliveryRow)) : el("p", {}, "none yet"));
    }

    function applyFilter() {
      const text = document.getElementById("filter").value.trim();
      for (const [id, node] of cards) node.hidden = text !== "" && !id.includes(text);
    }

    // Each overview carries the server's read revision: an older one never replaces a newer card.
    function show(a, first) {
      const old = cards.get(a.activityID);
      if (old && Number(old.dataset.revision) >= a.revision) return;
      const node = card(a);
      node.dataset.revision = String(a.revision);
      if (old) old.remove();
      if (first) main.append(node); else main.prepend(node);
      cards.set(a.activityID, node);
      document.getElementById("empty").hidden = cards.size > 0;
      document.getElementById("activity-count").textContent = cards.size === 1 ? "1 activity" : `${cards.size} activities`;
      applyFilter();
    }

    async function load() {
      const response = await fetch("/api/activities");
      if (!response.ok) throw new Error(`GET /api/activities answered ${response.status}`);
      const state = await response.json();
      if (state.simulatorDashboard) {
        const link = document.getElementById("simulator-link");
        link.href = state.simulatorDashboard;
        link.textContent = state.simulatorDashboard;
        document.getElementById("simulator").hidden = false;
      }
      for (const a of state.activities) show(a, true);
    }

    function listen() {
      const status = document.getElementById("connection");
      const events = new EventSource("/api/events");
      events.addEventListener("open", () => { status.textContent = "live"; });
      events.addEventListener("error", () => { status.textContent = "reconnecting…"; });
      events.addEventListener("activity", e => show(JSON.parse(e.data).activity, false));
      events.addEventListener("read-error", e => { document.getElementById("message").textContent = JSON.parse(e.data).error; });
    }

    document.getElementById("filter").addEventListener("input", applyFilter);
    // Listen first, then load: a change between the two arrives as an event instead of being missed.
    listen();
    load().catch(error => { document.getElementById("message").textContent = String(error); });
    """#
}
