/// The page: HTML, CSS and plain JavaScript written for the project, served as they are (no build
/// step, no outside assets). The script is in DashboardPage+Script.swift.
enum DashboardPage {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Liveline simulator</title>
    <link rel="stylesheet" href="/dashboard.css">
    </head>
    <body>
    <nav class="skip-links" aria-label="Skip links"><a href="#filter">Skip to the device filter</a> <a href="#devices">Skip to the devices</a> <a href="#unmatched-section">Skip to pushes no device received</a></nav>
    <header>
      <h1>Liveline simulator</h1>
      <p>Simulator clock <time id="clock">–</time> · <span id="connection" role="status">connecting…</span> · <span id="device-count">0</span> devices</p>
      <div class="global-controls">
        <form id="add-device">
          <label>Name <input name="name" value="iPhone" required maxlength="100"></label>
          <label>iOS version <input name="iOS" value="18.2" required size="6" pattern="[0-9]+(\.[0-9]+){0,2}"></label>
          <button type="submit">Add device</button>
        </form>
        <form id="advance-clock">
          <label>Advance the clock by <input name="seconds" type="number" min="0" step="1" value="3600" required> seconds</label>
          <button type="submit">Advance clock</button>
        </form>
      </div>
      <p class="filter"><label>Filter devices <input id="filter" type="search" placeholder="name, id or iOS version" autocomplete="off"></label> <span id="filter-count" role="status"></span></p>
      <p id="message" role="alert" aria-live="assertive"></p>
    </header>
    <main id="devices" aria-label="Simulated iPhones"></main>
    <section id="unmatched-section" aria-labelledby="unmatched-title">
      <h2 id="unmatched-title">Pushes no device received</h2>
      <ol id="unmatched" class="log"></ol>
    </section>
    <script src="/dashboard.js"></script>
    </body>
    </html>
    """#

    static let css = #"""
    :root { color-scheme: light dark; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --drop: #8250df; --line: #8884; }
    * { box-sizing: border-box; }
    body { font: 14px/1.4 system-ui, sans-serif; margin: 0; padding: 0 16px 32px; overflow-wrap: anywhere; }
    header { position: sticky; top: 0; background: Canvas; padding: 8px 0; border-bottom: 1px solid var(--line); z-index: 1; }
    h1 { font-size: 20px; margin: 0 0 4px; }
    h2 { font-size: 16px; margin: 0 0 6px; }
    h3 { font-size: 13px; margin: 10px 0 4px; text-transform: uppercase; letter-spacing: .04em; opacity: .75; }
    .global-controls { display: flex; flex-wrap: wrap; gap: 16px; }
    form { display: inline-flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 2px 0; }
    button, input, select { font: inherit; }
    button { padding: 3px 10px; border-radius: 6px; border: 1px solid var(--line); background: ButtonFace; color: ButtonText; cursor: pointer; }
    :focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
    #message:empty { display: none; }
    #message { color: var(--bad); font-weight: 600; }
    #message.ok { color: var(--ok); }
    #devices { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 420px), 1fr)); gap: 16px; margin-top: 16px; }
    .device[hidden] { display: none; }
    @media (prefers-color-scheme: dark) { .only-light { display: none; } }
    @media not (prefers-color-scheme: dark) { .only-dark { display: none; } }
    .skip-links a { position: absolute; left: -10000px; }
    .skip-links a:focus { position: static; display: inline-block; margin: 4px; }
    .filter { margin: 4px 0; }
    .log details > summary { cursor: pointer; }
    .log dl.entry { display: grid; grid-template-columns: max-content 1fr; gap: 0 8px; margin: 4px 0 4px 16px; }
    .log dl.entry dt { opacity: .7; }
    .log dl.entry dd { margin: 0; overflow-wrap: anywhere; }
    .log .payload-name { margin: 4px 0 0 16px; opacity: .7; }
    .log pre.payload { margin: 2px 0 4px 16px; max-height: 24em; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
    @media (max-width: 480px) {
      body { padding: 0 8px 24px; }
      header { position: static; }
      .device { padding: 8px; }
      .global-controls, form { display: flex; flex-direction: column; align-items: stretch; }
      input:not([type=checkbox]) { max-width: 100%; min-width: 0; }
    }
    .device { border: 1px solid var(--line); border-radius: 12px; padding: 12px; min-width: 0; }
    .device small { font-weight: normal; opacity: .7; }
    .activity { border-top: 1px dashed var(--line); padding-top: 8px; margin-top: 8px; }
    .presentations { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-start; }
    .presentation { margin: 0; max-width: 100%; overflow: auto; }
    .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
    .presentation-name { font-size: 11px; opacity: .6; display: block; }
    .plain { font-size: 12px; }
    .findings li, .warnings li { color: var(--warn); }
    .log { list-style: none; padding: 0; margin: 0; max-height: 220px; overflow: auto; font: 12px/1.35 ui-monospace, monospace; }
    .log li { padding: 2px 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
    .verdict { font-weight: 700; text-transform: uppercase; }
    .verdict-accepted .verdict { color: var(--ok); }
    .verdict-rejected .verdict { color: var(--bad); }
    .verdict-dropped .verdict { color: var(--drop); }
    .verdict-suspicious .verdict { color: var(--warn); }
    .tokens { list-style: none; padding: 0; margin: 0; font: 12px ui-monospace, monospace; }
    .tokens li { display: flex; gap: 6px; align-items: center; margin: 2px 0; }
    .tokens li > span { flex: none; max-width: 45%; }
    .tokens code { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; flex: 1; min-width: 0; }
    """#
}
