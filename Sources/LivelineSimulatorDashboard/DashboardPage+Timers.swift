extension DashboardPage {
    /// Ticks the previews' timers as the device does: each `.ll-timer` element carries its start,
    /// end, direction, hours, style and templates (`data-*`, written by LivelinePreview), and
    /// `llTimerText(dataset, nowMs)` gives the text LivelinePreview would draw at `nowMs`, so a
    /// page can redraw it every second against the simulator's clock. A timer with only a duration
    /// (its start is when the device drew it) is left as drawn.
    static let timerScript = #"""
    function llTwo(n) { return (n < 10 ? "0" : "") + n; }
    function llClock(total, hours) {
      if (hours && total >= 3600) return `${Math.floor(total / 3600)}:${llTwo(Math.floor(total / 60) % 60)}:${llTwo(total % 60)}`;
      return `${Math.floor(total / 60)}:${llTwo(total % 60)}`;
    }
    function llRelative(total) {
      const week = 7 * 86400, days = n => n === 1 ? "1 day" : `${n} days`;
      if (total >= week) return `${Math.floor(total / week)} wk, ${days(Math.floor(total % week / 86400))}`;
      if (total >= 86400) return `${days(Math.floor(total / 86400))}, ${Math.floor(total % 86400 / 3600)} hr`;
      if (total >= 3600) return `${Math.floor(total / 3600)} hr, ${Math.floor(total / 60) % 60} min`;
      if (total >= 60) return `${Math.floor(total / 60)} min, ${total % 60} sec`;
      return `${total} sec`;
    }
    function llTimerText(d, nowMs) {
      const start = d.startMs !== undefined ? Number(d.startMs) : null;
      let end = d.endMs !== undefined ? Number(d.endMs) : null;
      if (end === null && d.durationMs !== undefined) {
        if (start === null) return null;
        end = start + Number(d.durationMs);
      }
      if (start === null && end === null) return null;
      const up = d.direction === "up", hours = d.showHours === "true", relative = d.textStyle === "relative";
      let seconds, completed;
      if (up) {
        const from = start ?? nowMs, to = end === null ? nowMs : Math.min(end, nowMs);
        seconds = Math.floor(Math.max(0, to - from) / 1000);
        completed = end !== null && nowMs >= end;
      } else {
        const left = end === null ? 0 : end - nowMs;
        seconds = Math.ceil(Math.max(0, left) / 1000);
        completed = left <= 0;
      }
      if (relative) {
        const offset = ((up ? (start ?? nowMs) : (end ?? nowMs)) - nowMs) / 1000;
        seconds = offset > 0 ? Math.ceil(offset) : Math.floor(-offset);
      }
      if (!Number.isFinite(seconds)) return null;
      seconds = Math.min(seconds, 3600000000);
      if (completed && d.completed !== undefined) return d.completed.split("{time}").join(relative ? "0s" : hours ? "0:00:00" : "0:00");
      const time = relative ? llRelative(seconds) : llClock(seconds, hours);
      return d.running !== undefined ? d.running.split("{time}").join(time) : time;
    }
    function llTick(root, nowMs) {
      for (const el of root.querySelectorAll(".ll-timer")) {
        const text = llTimerText(el.dataset, nowMs);
        if (text !== null && el.textContent !== text) el.textContent = text;
      }
    }
    """#
}
