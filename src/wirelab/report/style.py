"""The report's stylesheet, inlined into every page (no external fonts, no network)."""

CSS = """
:root {
  --fg: #1d232b; --dim: #5d6875; --bg: #ffffff; --panel: #f5f7fa; --line: #dde2e8;
  --accent: #2458a6; --ok: #1f7a3f; --warn: #9a6200; --bad: #b42318;
  --mono: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace;
}
@media (prefers-color-scheme: dark) {
  :root { --fg: #e3e7ec; --dim: #9aa5b1; --bg: #15191e; --panel: #1e242b; --line: #333c46;
          --accent: #7fb0ff; --ok: #5ccf85; --warn: #e6b450; --bad: #ff7b72; }
}
* { box-sizing: border-box; }
html { font-size: 15px; }
body {
  margin: 0; color: var(--fg); background: var(--bg); line-height: 1.5;
  font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", sans-serif;
}
header.page { background: var(--panel); border-bottom: 1px solid var(--line); }
header.page .inner, main, footer { max-width: 1180px; margin: 0 auto; padding: 0 24px; }
header.page .inner { padding-top: 20px; padding-bottom: 14px; }
h1 { font-size: 1.7rem; margin: 0 0 4px; letter-spacing: -0.01em; }
h2 { font-size: 1.35rem; margin: 40px 0 12px; padding-bottom: 6px;
     border-bottom: 2px solid var(--line); }
h3 { font-size: 1.1rem; margin: 0; font-family: var(--mono); font-weight: 600; }
h4 { font-size: 0.8rem; margin: 18px 0 6px; color: var(--dim); text-transform: uppercase;
     letter-spacing: 0.06em; }
p { margin: 6px 0; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, .mono { font-family: var(--mono); font-size: 0.9em; }
.dim { color: var(--dim); }
nav.systems { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 10px; }
nav.systems a { border: 1px solid var(--line); border-radius: 999px; padding: 2px 12px;
                background: var(--bg); font-size: 0.9rem; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0 4px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; min-width: 120px;
        background: var(--panel); }
.card b { display: block; font-size: 1.4rem; }
.card span { color: var(--dim); font-size: 0.85rem; }
article.run { border: 1px solid var(--line); border-radius: 10px; margin: 18px 0;
              padding: 16px 20px; background: var(--bg); box-shadow: 0 1px 2px rgba(0,0,0,.04); }
article.run > header { display: flex; align-items: baseline; gap: 12px; flex-wrap: wrap; }
.badge { font-size: 0.75rem; font-weight: 600; border-radius: 4px; padding: 1px 8px;
         text-transform: uppercase; letter-spacing: 0.04em; border: 1px solid currentColor;
         white-space: nowrap; }
.badge.complete { color: var(--ok); }
.badge.incomplete, .badge.in-progress { color: var(--warn); }
.badge.broken, .badge.failed { color: var(--bad); }
.problems { border-left: 4px solid var(--bad); background: var(--panel); padding: 6px 12px;
            margin: 10px 0; }
.problems.incomplete { border-left-color: var(--warn); }
pre.cmd { background: var(--panel); border: 1px solid var(--line); border-radius: 6px;
          padding: 8px 12px; margin: 8px 0; overflow-x: auto; font-family: var(--mono);
          font-size: 0.85rem; white-space: pre-wrap; word-break: break-all; }
.cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 0 28px; }
.cols > div { min-width: 0; }
.wide { margin-top: 4px; }
.wide .scroll { display: inline-block; vertical-align: top; margin-right: 24px; }
table { border-collapse: collapse; margin: 6px 0 10px; font-size: 0.88rem; }
caption { text-align: left; font-weight: 600; padding: 4px 0; font-family: var(--mono);
          white-space: nowrap; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: left;
         vertical-align: top; }
thead th { background: var(--panel); border-bottom: 2px solid var(--line); white-space: nowrap; }
table.kv th { font-family: var(--mono); font-weight: 500; color: var(--dim);
              overflow-wrap: anywhere; min-width: 12em; }
table.kv td { overflow-wrap: anywhere; }
table.kv { min-width: 280px; max-width: 100%; }
td.num { text-align: right; font-variant-numeric: tabular-nums; font-family: var(--mono); }
tbody tr:nth-child(even) > * { background: color-mix(in srgb, var(--panel) 60%, transparent); }
tr.more td { color: var(--dim); font-style: italic; text-align: center; }
.scroll { overflow-x: auto; max-width: 100%; }
table.summary { width: 100%; }
table.summary td { font-size: 0.85rem; }
table.summary td.cmd { white-space: nowrap; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(360px, 1fr)); gap: 16px;
           margin: 8px 0; }
figure p.problems { margin: 0; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 8px; padding: 8px;
         background: #fff; }
figure img, figure video { display: block; max-width: 100%; height: auto; margin: 0 auto; }
figcaption { font-family: var(--mono); font-size: 0.8rem; color: #5d6875; margin-top: 4px;
             text-align: center; }
details { margin: 8px 0; }
details.children { border-top: 1px dashed var(--line); padding-top: 6px; }
details.children article.run { margin: 12px 0; box-shadow: none; }
summary { cursor: pointer; color: var(--dim); font-size: 0.9rem; }
ul.files { columns: 2; font-family: var(--mono); font-size: 0.85rem; padding-left: 18px; }
footer { color: var(--dim); font-size: 0.85rem; padding-top: 24px; padding-bottom: 40px; }
.story { border: 1px solid var(--line); border-radius: 10px; margin: 18px 0; padding: 16px 20px;
         box-shadow: 0 1px 2px rgba(0,0,0,.04); }
.answer { display: grid; grid-template-columns: minmax(300px, 1fr) minmax(300px, 1fr);
          gap: 8px 28px; border-left: 5px solid var(--dim); padding-left: 16px; }
.answer.yes { border-left-color: var(--ok); }
.answer.no { border-left-color: var(--bad); }
.answer.unresolved { border-left-color: var(--warn); }
.answer > div { min-width: 0; }
@media (max-width: 760px) { .answer { grid-template-columns: 1fr; } }
p.question { font-size: 1.15rem; font-weight: 600; margin: 0 0 6px; }
p.answer-line { font-size: 1.35rem; font-weight: 700; margin: 4px 0; }
p.uncertainty { color: var(--dim); margin: 2px 0 8px; }
p.verdict { margin: 6px 0; }
.outcome { font-size: 0.75rem; font-weight: 700; border-radius: 4px; padding: 1px 8px;
           text-transform: uppercase; letter-spacing: 0.04em; color: var(--bg);
           background: var(--dim); white-space: nowrap; }
.outcome.yes { background: var(--ok); }
.outcome.no { background: var(--bad); }
.outcome.unresolved { background: var(--warn); }
table.anchors { width: 100%; }
table.anchors caption { font-family: inherit; color: var(--dim); font-weight: 500; }
table.anchors thead th { white-space: nowrap; }
.answer code, ul.overview code, table.summary code { overflow-wrap: anywhere; }
p.from { font-size: 0.85rem; margin: 2px 0; }
table.anchors tr.this th, table.anchors tr.this td { font-weight: 700; }
table.anchors td.cite { color: var(--dim); font-size: 0.8rem; }
.evidence { margin-top: 8px; }
details.raw { border-top: 1px dashed var(--line); padding-top: 6px; margin-top: 12px; }
details.raw article.run { box-shadow: none; margin: 12px 0; }
ul.overview { list-style: none; padding: 0; margin: 8px 0; }
ul.overview li { border-left: 4px solid var(--dim); background: var(--panel); margin: 8px 0;
                 padding: 6px 14px; border-radius: 0 6px 6px 0; }
ul.overview li.yes { border-left-color: var(--ok); }
ul.overview li.no { border-left-color: var(--bad); }
ul.overview li.unresolved { border-left-color: var(--warn); }
ul.overview .sys { color: var(--dim); font-size: 0.8rem; text-transform: uppercase;
                   letter-spacing: 0.05em; margin-right: 8px; }
ul.overview a { font-weight: 600; }
ul.overview .answer-line { display: block; font-weight: 700; }
ul.overview p.verdict { margin: 2px 0; }
table.summary p.verdict { margin: 2px 0; font-size: 0.85rem; }
figure.poster img { opacity: 0.9; }
@media print { article.run { break-inside: avoid; box-shadow: none; } }
"""
