/// The service's page: HTML and CSS written for the project, served as they are (no build step,
/// no outside assets). The script is in ServiceDashboardPage+Script.swift.
enum ServiceDashboardPage {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Liveline service</title>
    <link rel="stylesheet" href="/dashboard.css">
    </head>
    <body>
    <a class="skip" href="#activities">Skip to the activities</a>
    <header>
      <h1>Liveline service</h1>
      <p><span id="connection" role="status">connecting…</span> · <span id="activity-count">0 activities</span>
        <span id="simulator" hidden> · sending to a simulator: <a id="simulator-link" href="#">its dashboard</a></span></p>
      <label>Show activities whose id contains <input id="filter" type="search" maxlength="200" autocomplete="off"></label>
      <p id="message" role="alert" aria-live="assertive"></p>
    </header>
    <main id="activities" tabindex="-1" aria-label="Logical activities">
      <p id="empty">No activity yet. Register a token or send an update, or open <code>/api/activities/ID</code>.</p>
    </main>
    <script src="/dashboard.js"></script>
    </body>
    </html>
    """#

    static let css = #"""
    :root { color-scheme: light dark; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --idle: #57606a; --line: #8884; }
    * { box-sizing: border-box; }
    body { font: 14px/1.4 system-ui, sans-serif; margin: 0; padding: 0 16px 32px; }
    header { position: sticky; top: 0; background: Canvas; padding: 8px 0; border-bottom: 1px solid var(--line); z-index: 1; }
    h1 { font-size: 20px; margin: 0 0 4px; }
    h2 { font-size: 16px; margin: 0; }
    h3 { font-size: 13px; margin: 10px 0 4px; text-transform: uppercase; letter-spacing: .04em; opacity: .75; }
    input { font: inherit; margin-left: 6px; }
    .skip { position: absolute; left: -9999px; }
    .skip:focus { left: 16px; top: 8px; z-index: 2; background: Canvas; padding: 4px 8px; }
    :focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
    #message:empty { display: none; }
    #message { color: var(--bad); font-weight: 600; }
    #activities { display: grid; gap: 16px; margin-top: 16px; }
    .activity { border: 1px solid var(--line); border-radius: 12px; padding: 12px; min-width: 0; }
    .activity small { font-weight: normal; opacity: .7; }
    .counts { margin: 4px 0 0; display: flex; flex-wrap: wrap; gap: 4px 12px; }
    table { border-collapse: collapse; width: 100%; font-size: 13px; }
    th, td { text-align: left; padding: 3px 8px 3px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
    td.detail { word-break: break-word; }
    code, .token { font-family: ui-monospace, monospace; }
    .state { font-weight: 600; border-radius: 6px; padding: 0 6px; }
    .state[data-state="sent"], .state[data-state="displayed"] { color: var(--ok); }
    .state[data-state="failed"], .state[data-state="pruned"] { color: var(--bad); }
    .state[data-state="retrying"] { color: var(--warn); }
    .state[data-state="queued"], .state[data-state="sending"], .state[data-state="superseded"] { color: var(--idle); }
    .state[data-state="active"] { color: var(--ok); }
    .state[data-state="stale"], .state[data-state="started"] { color: var(--warn); }
    .state[data-state="pending"], .state[data-state="ended"], .state[data-state="dismissed"] { color: var(--idle); }
    td.reason code { color: var(--bad); font-weight: 600; }
    .ended { color: var(--bad); }
    .changed { animation: flash 1s ease-out; }
    @keyframes flash { from { background: #0969da33; } to { background: transparent; } }
    @media (prefers-reduced-motion: reduce) { .changed { animation: none; } }
    .sends { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
    .send-picture { margin: 0; max-width: 100%; overflow: auto; }
    .send-picture figcaption { font-size: 12px; opacity: .75; margin-bottom: 4px; }
    .picture-error { color: var(--bad); }
    @media (prefers-color-scheme: dark) { .only-light { display: none; } }
    @media not (prefers-color-scheme: dark) { .only-dark { display: none; } }
    """#
}
