"""``outputs/index.html``: a static page a reviewer opens in a browser, built from the manifest.

Per paper, first the forest plot and claims table of the ledger (claim, outcome, deciding
statistic, size to decide, the command that reproduces it, that notebook's measured time;
:mod:`lib.claims`, :mod:`lib.claims_plot`), then one card per registered
artifact: id, caption, status, producing notebook and profile, the claims it supports, a thumbnail
(figures), a preview (tables, texts), and a banner wherever synthetic data were used. No
JavaScript and no network: everything is relative to ``outputs/``.
"""
from __future__ import annotations

import csv
import html
from pathlib import Path

from lib import artifacts, claims, paths
from lib.manifest import ArtifactRow, Manifest, NotebookEntry

_CSS = """
body{font-family:system-ui,sans-serif;margin:0 2rem 3rem;color:#222;max-width:1400px}
header{position:sticky;top:0;background:#fff;padding:.5rem 0;border-bottom:1px solid #ddd}
.banner{background:#fde8e8;border:1px solid #e0a0a0;color:#7a1f1f;padding:.5rem .8rem;margin:.5rem 0;border-radius:4px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:1rem;align-items:start}
.card{border:1px solid #ddd;border-radius:6px;padding:.6rem .8rem;background:#fafafa}
.card h3{margin:.1rem 0 .3rem;font-size:1rem;font-family:ui-monospace,monospace}
.status{display:inline-block;padding:0 .4rem;border-radius:3px;font-size:.8rem;color:#fff}
.regenerated{background:#2e7d32}.missing{background:#9e9e9e}.failed{background:#c62828}.not-data{background:#5c6bc0}
.synthetic{display:inline-block;margin-left:.3rem;padding:0 .4rem;border-radius:3px;font-size:.8rem;background:#e65100;color:#fff}
.meta{font-size:.8rem;color:#555}
img{max-width:100%;border:1px solid #eee;background:#fff}
table.preview{border-collapse:collapse;font-size:.7rem;display:block;overflow-x:auto;max-height:220px}
table.preview td,table.preview th{border:1px solid #ddd;padding:1px 4px;white-space:nowrap}
pre{font-size:.7rem;max-height:220px;overflow:auto;background:#fff;border:1px solid #eee;padding:.3rem}
table.claims{border-collapse:collapse;font-size:.8rem;margin:.5rem 0 1rem;width:100%}
table.claims td,table.claims th{border:1px solid #ddd;padding:2px 5px;vertical-align:top;text-align:left}
.v-held{color:#009E73;font-weight:bold}.v-contradicted{color:#D55E00;font-weight:bold}.v-inconclusive{color:#b07800;font-weight:bold}.v-not-applicable{color:#757575;font-weight:bold}
.forest{max-width:100%;margin:.3rem 0}
.claimref{font-size:.8rem;margin:.2rem 0}
"""


def _table_preview(path: Path, rows: int = 8) -> str:
    with open(path, newline="") as f:
        data = [r for _, r in zip(range(rows + 1), csv.reader(f))]
    if not data:
        return ""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in data[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in data[1:])
    return f'<table class="preview"><tr>{head}</tr>{body}</table>'


def _preview(row: ArtifactRow) -> str:
    if row.status != "regenerated":
        return ""
    files = [paths.OUTPUTS / f for f in row.files]
    for f in files:
        if f.suffix == ".png":
            return f'<a href="{html.escape(str(f.relative_to(paths.OUTPUTS)))}"><img loading="lazy" alt="{row.id}" src="{html.escape(str(f.relative_to(paths.OUTPUTS)))}"></a>'
        if f.suffix == ".csv":
            return _table_preview(f)
        if f.suffix == ".txt":
            text = "\n".join(f.read_text().splitlines()[:30])
            return f"<pre>{html.escape(text)}</pre>"
    return ""


def _verdict(rec: dict) -> str:
    cls = "v-" + rec["status"].replace(" ", "-")
    return f'<span class="{cls}">{html.escape(rec["status"])}</span>'


def _claims_table(recs: list[dict], times: dict[str, str], paper: str = "") -> str:
    """The paper's claims: its forest plot (when written), then claim, outcome, deciding statistic
    with its interval and threshold, what would decide it, reproduce command (profile), time."""
    if not recs:
        return ""
    c = claims.counts(recs)
    rows = []
    for r in recs:
        rows.append(f'<tr id="claim-{html.escape(r["id"])}"><td><code>{html.escape(r["id"])}</code> '
                    f'{html.escape(r["statement"])} <span class="meta">({html.escape(r["where"])})</span></td>'
                    f'<td>{_verdict(r)}{f" ({claims.label(r)})" if claims.label(r) in artifacts.NOTES else ""}</td>'
                    f'<td title="{html.escape(r["detail"])}">{html.escape(claims.cell_numbers(r))}</td>'
                    f'<td>{html.escape(claims.decide_cell(r))}</td>'
                    f'<td><code>{html.escape(claims.command(r))}</code> ({html.escape(r.get("profile", ""))})</td>'
                    f'<td>{html.escape(times.get(r["notebook"], "not measured"))}</td></tr>')
    png = f"figures/claims-{paper}.png"
    plot = (f'<a href="{png}"><img class="forest" alt="forest plot of the {html.escape(paper)} claims" src="{png}"></a>'
            if paper and (paths.OUTPUTS / png).is_file() else "")
    return (f'<h3>Claims: {html.escape(claims.counts_text(c))}</h3>'
            f'<p class="meta">{html.escape(claims.RULE[0].upper() + claims.RULE[1:])}.</p>{plot}'
            '<table class="claims"><tr><th>claim</th><th>outcome</th><th>deciding statistic [95 % CI] vs threshold (test)</th>'
            f'<th>to decide</th><th>reproduce</th><th>time</th></tr>{"".join(rows)}</table>')


def _label(row: ArtifactRow) -> str:
    """An artifact row's data label (rows written before labels existed: from the synthetic flag)."""
    return row.label or artifacts.data_label(bool(row.synthetic))


def _card(row: ArtifactRow, supports: list[dict] | None = None) -> str:
    links = " ".join(f'<a href="{html.escape(f)}">{html.escape(Path(f).suffix[1:])}</a>' for f in row.files)
    label = _label(row)
    synth = f'<span class="synthetic">{label} data</span>' if label in artifacts.NOTES else ""
    banner = (f'<div class="banner">{html.escape(artifacts.NOTES[label][0])}</div>' if label in artifacts.NOTES else "")
    nb = row.notebook or "diagram (drawing, not data)"
    meta = f"notebook {html.escape(nb)}"
    if row.status == "regenerated":
        meta += f" · profile {html.escape(row.profile)} · saved {html.escape(row.saved_at)}"
    if row.promised:
        meta += " · promised by the profile"
    refs = ("" if not supports else '<div class="claimref">claims: ' + ", ".join(
        f'<a href="#claim-{html.escape(r["id"])}">{html.escape(r["id"])}</a> ({_verdict(r)})' for r in supports) + "</div>")
    return (f'<div class="card" id="{row.id}"><h3>{row.id} <span class="status {row.status}">'
            f'{row.status}</span>{synth}</h3><div>{html.escape(row.caption)}</div>'
            f'<div class="meta">{meta} {links}</div>{refs}{banner}{_preview(row)}</div>')


def _notebook_line(n: NotebookEntry) -> str:
    line = f"{n.name}: {n.status}"
    if n.status in ("ran", "failed"):
        line += f" in {n.wall_s:.1f} s"
    return line + (f" at {n.error}" if n.error else "")


def render_index(man: Manifest) -> str:
    s, run = man.summary, man.run
    labels = {_label(r) for r in man.artifacts if r.status == "regenerated"}
    labels |= {"mixed"} if run.label == "mixed" else set()    # a mixed profile says so even before output
    top_banner = ('<div class="banner"><b>Synthetic data.</b> Artifacts marked "synthetic data" come from the '
                  "embedded default (a synthetic scholarly world and a synthetic LLM panel on 127.0.0.1). They show "
                  "that the pipeline works; they are not the papers' findings.</div>" if "synthetic" in labels else "")
    if "mixed" in labels:
        top_banner += ('<div class="banner"><b>Mixed data.</b> This profile declares <code>synthetic: mixed</code>: '
                       "artifacts marked \"mixed data\" hold a real endpoint's answers about synthetic inputs "
                       "(the synthetic world, corpus or twin, where no real ones were given). They are not the "
                       "papers' findings.</div>")
    nb_rows = "".join(f"<li>{html.escape(_notebook_line(n))}</li>" for n in man.notebooks)
    claims_link = ' · <a href="claims.md">claims.md</a>' if paths.CLAIMS.is_file() else ""
    recs = claims.records()
    per_art, times = claims.by_artifact(recs), claims.notebook_times(man)
    sections = []
    for key, title in artifacts.PAPERS.items():
        table = _claims_table([r for r in recs if r["paper"] == key], times, key)
        cards = "".join(_card(r, per_art.get(r.id)) for r in man.artifacts if r.paper == key)
        sections.append(f'<section><h2>{html.escape(title)}</h2>{table}<div class="grid">{cards}</div></section>')
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>LLM audit companion: regenerated artifacts</title>
<style>{_CSS}</style></head><body>
<header><h1>LLM audit companion: regenerated artifacts</h1>
<div class="meta">profile <b>{html.escape(run.profile)}</b> · git {html.escape(run.git_commit[:10])}{' (uncommitted changes)' if run.git_dirty else ''}
 · generated {html.escape(run.generated_at)} · run {html.escape(run.run_id)} · {run.wall_s:.1f} s</div>
<div><b>{s.regenerated} of {s.data_artifacts} artifacts regenerated</b>, {s.missing} missing, {s.failed} failed,
 {s.not_data} diagrams (not data). <a href="manifest.json">manifest.json</a>{claims_link}</div>
{top_banner}</header>
<details><summary>Notebooks</summary><ul>{nb_rows}</ul></details>
{''.join(sections)}
</body></html>
"""


def write_index(man: Manifest) -> Path:
    paths.ensure(paths.OUTPUTS)
    paths.INDEX_HTML.write_text(render_index(man))
    return paths.INDEX_HTML
