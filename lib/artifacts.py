"""The registry of paper artifacts and the only functions that write them.

Every figure and table of the three papers is registered here once, under the id of
``shared/spec/artifacts.md`` (e.g. ``lsb-fig2``, ``ab-tab5``, ``at-fig4``), with its paper, kind,
caption and producing notebook. Notebooks save through :func:`save_figure`, :func:`save_table`
and :func:`save_text`; each call writes the files atomically and a small JSON record that the
runner merges into ``outputs/manifest.json``.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from lib import paths

Kind = Literal["figure", "table", "text", "diagram"]
PAPERS = {
    "llmscholarbench": "LLMScholarBench: benchmarking and intervention-based auditing of LLM scholar recommendation",
    "authority_bias": "Authority bias in conversational search for paper recommendation",
    "attribution_bias": "Attribution bias in LLMs (AttriBench)",
}
SYNTHETIC_NOTE = "Synthetic data (embedded default): shows the pipeline at work, not the paper's findings."
MIXED_NOTE = ("Mixed data (declared synthetic: mixed): a real endpoint's answers on synthetic inputs; "
              "not the paper's findings.")
#: label -> the note on a figure and the caption suffix of a table (real data carry neither)
NOTES = {"synthetic": (SYNTHETIC_NOTE, " (synthetic data)"), "mixed": (MIXED_NOTE, " (mixed data: real answers, synthetic inputs)")}
#: label -> the words a figure's title adds (for figures whose title names the data)
TITLE_NOTES = {"synthetic": " — SYNTHETIC data (embedded panel), not the paper's findings",
               "mixed": " — MIXED data (a real endpoint on synthetic inputs), not the paper's findings"}
Synthetic = bool | Literal["mixed"]


def data_label(synthetic: Synthetic) -> str:
    """'synthetic', 'mixed' or 'real' from a ``synthetic`` flag (a profile's ``synthetic`` value passes through)."""
    if isinstance(synthetic, str) and synthetic != "mixed":
        raise ValueError(f"synthetic must be True, False or 'mixed', got {synthetic!r}")
    return "mixed" if synthetic == "mixed" else "synthetic" if synthetic else "real"


@dataclass(frozen=True)
class Artifact:
    """One paper artifact: ``notebook`` is None for diagrams (status ``not-data``)."""

    id: str
    paper: str
    kind: Kind
    notebook: str | None
    caption: str


def _A(id: str, paper: str, kind: Kind, notebook: str | None, caption: str) -> Artifact:
    return Artifact(id, paper, kind, notebook, caption)


_ARTIFACTS = [
    _A("lsb-fig1", "llmscholarbench", "diagram", None, "Overview"),
    _A("lsb-tab1", "llmscholarbench", "table", "01_calibration", "LLMs by size class and access"),
    _A("lsb-tabA1", "llmscholarbench", "table", "01_calibration", "Model configurations incl. selected temperature"),
    _A("lsb-figA1", "llmscholarbench", "text", "02_collection", "The prompt template, rendered for every task parameter (a text artifact)"),
    _A("lsb-figA2", "llmscholarbench", "figure", "01_calibration", "Temperature sensitivity per model: stacked response labels + factuality mean±sd, chosen temperature outlined"),
    _A("lsb-fig2", "llmscholarbench", "figure", "03_infrastructure_benchmark", "Infrastructure-level performance, 9 metrics × access/size/reasoning, mean ± 95% CI"),
    _A("lsb-figB6", "llmscholarbench", "figure", "03_infrastructure_benchmark", "Attribute distribution of the ground truth (gender, ethnicity, publication and citation prominence)"),
    _A("lsb-figC7", "llmscholarbench", "figure", "03_infrastructure_benchmark", "Baseline performance by model (9 metrics)"),
    _A("lsb-figC8", "llmscholarbench", "figure", "03_infrastructure_benchmark", "Baseline factuality by model: author, field, epoch, seniority"),
    _A("lsb-figC9", "llmscholarbench", "figure", "03_infrastructure_benchmark", "(a) diversity and (b) parity by model across 4 attributes"),
    _A("lsb-figC10", "llmscholarbench", "figure", "03_infrastructure_benchmark", "Task-level factuality"),
    _A("lsb-figC11", "llmscholarbench", "figure", "03_infrastructure_benchmark", "Baseline performance by task parameter"),
    _A("lsb-quirks", "llmscholarbench", "table", "03_infrastructure_benchmark", "Figure 2 group means under the faithful (reference code) and corrected metric modes"),
    _A("lsb-fig3", "llmscholarbench", "figure", "04_interventions", "Effect of temperature by infrastructure group (lines with CI bands)"),
    _A("lsb-figC12", "llmscholarbench", "figure", "04_interventions", "Effect of temperature per model"),
    _A("lsb-fig4", "llmscholarbench", "figure", "04_interventions", "Gender-constrained prompting, before/after, averaged over models"),
    _A("lsb-figC13", "llmscholarbench", "figure", "04_interventions", "Gender-constrained prompting per model"),
    _A("lsb-figC14", "llmscholarbench", "figure", "04_interventions", "Ethnicity-constrained prompting per model"),
    _A("lsb-figC15", "llmscholarbench", "figure", "04_interventions", "Citation-constrained prompting per model"),
    _A("lsb-figC16", "llmscholarbench", "figure", "04_interventions", "General diversity-constrained prompting per model"),
    _A("lsb-figC17", "llmscholarbench", "figure", "04_interventions", "Trade-offs of constrained prompting (a) gender (b) ethnicity (c) citations (d) general"),
    _A("lsb-fig5", "llmscholarbench", "figure", "04_interventions", "RAG with web search, before/after per task, flash and pro rows"),
    _A("lsb-figC18", "llmscholarbench", "figure", "04_interventions", "Socio-technical quadrants: (a) baseline (b) temperature (c) constrained (d) RAG"),
    _A("lsb-figA3", "llmscholarbench", "figure", "04_interventions", "Refusal reasons by configuration"),
    _A("lsb-figA4", "llmscholarbench", "figure", "04_interventions", "Refusal reasons by configuration and infrastructure group (a) access (b) size (c) reasoning"),
    _A("lsb-figA5", "llmscholarbench", "figure", "04_interventions", "Refusal reasons by configuration and task"),
    _A("lsb-tabA2", "llmscholarbench", "table", "04_interventions", "Example refusal texts per reason"),
    _A("ab-tab1", "authority_bias", "table", "05_authority_pilot_regression", "Empirically derived authority weights"),
    _A("ab-tab2", "authority_bias", "table", "05_authority_pilot_regression", "Experimental conditions (original / flipped / boosted) with counts"),
    _A("ab-tab3", "authority_bias", "text", "05_authority_pilot_regression", "Instruction variants (text)"),
    _A("ab-tab4", "authority_bias", "table", "05_authority_pilot_regression", "Metrics and statistical tests"),
    _A("ab-tab5", "authority_bias", "table", "05_authority_pilot_regression", "Aggregate flip rates vs original, Wilson CI, binomial test"),
    _A("ab-tab6", "authority_bias", "table", "05_authority_pilot_regression", "Flip direction toward higher authority"),
    _A("ab-tab7", "authority_bias", "table", "05_authority_pilot_regression", "Per-model susceptibility, chi-squared homogeneity"),
    _A("ab-tab8", "authority_bias", "table", "05_authority_pilot_regression", "Cross-model selection agreement (summary and per pair) and flip kappa"),
    _A("ab-tab9", "authority_bias", "table", "05_authority_pilot_regression", "Dose-response: picks by authority tier per condition"),
    _A("ab-tab10", "authority_bias", "table", "05_authority_pilot_regression", "Top-5 / bottom-5 topics by flip rate"),
    _A("ab-tab11", "authority_bias", "table", "05_authority_pilot_regression", "Aggregate instruction effect, McNemar"),
    _A("ab-tab12", "authority_bias", "table", "05_authority_pilot_regression", "Per-model effect of the mild instruction"),
    _A("ab-tab13", "authority_bias", "table", "05_authority_pilot_regression", "Say-do gap, per-model authority-mention rates"),
    _A("ab-tab14", "authority_bias", "table", "05_authority_pilot_regression", "Worked example of a manipulated candidate set"),
    _A("ab-tab15", "authority_bias", "table", "05_authority_pilot_regression", "Per-model inference time (mean, median, p95)"),
    _A("ab-tab16", "authority_bias", "table", "05_authority_pilot_regression", "Pilot diagnostics: standardized coefficients, VIF, dominance R2, fused weights, McFadden R2"),
    _A("ab-tab17", "authority_bias", "table", "05_authority_pilot_regression", "Weight sensitivity of the direction result"),
    _A("ab-tab18", "authority_bias", "table", "05_authority_pilot_regression", "Topics and example queries"),
    _A("ab-tab19", "authority_bias", "table", "05_authority_pilot_regression", "Full topic-level flip and boost rates"),
    _A("ab-tab20", "authority_bias", "table", "05_authority_pilot_regression", "6-predictor pilot regression (author_score)"),
    _A("ab-tab21", "authority_bias", "table", "05_authority_pilot_regression", "Tier ablation (a smaller model of a frontier family)"),
    _A("ab-tab22", "authority_bias", "table", "05_authority_pilot_regression", "Statistical significance summary"),
    _A("ab-tab23", "authority_bias", "table", "05_authority_pilot_regression", "Authority-marker categories in justifications"),
    _A("ab-quirks", "authority_bias", "table", "05_authority_pilot_regression", "Effect of each reference-code quirk and the headline numbers under the faithful (reference code) and corrected modes"),
    _A("at-fig1", "attribution_bias", "diagram", None, "Attribution vs suppression example"),
    _A("at-fig2", "attribution_bias", "diagram", None, "Workflow"),
    _A("at-fig3", "attribution_bias", "diagram", None, "Dataset construction pipeline"),
    _A("at-tab1", "attribution_bias", "table", "06_attribution_fairness", "Prompts (direct, indirect, evidence-conditioned suffix, system prompt)"),
    _A("at-tab2", "attribution_bias", "table", "06_attribution_fairness", "Fame-balancing selected-run statistics"),
    _A("at-tab2-rebalance", "attribution_bias", "table", "06_attribution_fairness", "Fame balancing re-run (Tier B): the selected run of a fresh seeded re-run of Algorithm 1 and each criterion's spread over its runs"),
    _A("at-tab3", "attribution_bias", "table", "06_attribution_fairness", "Mean fame by subgroup before balancing"),
    _A("at-tab4", "attribution_bias", "table", "06_attribution_fairness", "Label sources (wikidata vs LLM consensus) per subgroup"),
    _A("at-tab5", "attribution_bias", "table", "06_attribution_fairness", "Quote-author co-occurrence by subgroup"),
    _A("at-tab6", "attribution_bias", "table", "06_attribution_fairness", "Models evaluated, with provider and size"),
    _A("at-fig4", "attribution_bias", "figure", "06_attribution_fairness", "Overall accuracy by model, direct and indirect, both datasets, 95% CI"),
    _A("at-fig5", "attribution_bias", "figure", "06_attribution_fairness", "Accuracy by subgroup with significance marks"),
    _A("at-fig6", "attribution_bias", "figure", "06_attribution_fairness", "S_omit by subgroup"),
    _A("at-fig7", "attribution_bias", "figure", "06_attribution_fairness", "S_evid by subgroup"),
    _A("at-fig8", "attribution_bias", "figure", "06_attribution_fairness", "Accuracy by fame bin per model"),
    _A("at-fig9", "attribution_bias", "figure", "06_attribution_fairness", "Demographics of the source corpus before balancing"),
    _A("at-fig10", "attribution_bias", "figure", "06_attribution_fairness", "Fame KDE per group after balancing"),
    _A("at-fig11", "attribution_bias", "figure", "06_attribution_fairness", "Corpus-count vs search-hits fame proxies per author"),
    _A("at-fig12", "attribution_bias", "figure", "06_attribution_fairness", "Fame-decile agreement across proxies"),
    _A("at-fig13", "attribution_bias", "figure", "06_attribution_fairness", "Evidence-conditioned (RAG) accuracy, direct and indirect"),
    _A("at-fig14", "attribution_bias", "figure", "06_attribution_fairness", "RAG accuracy disparities, indirect prompt"),
    _A("at-fig15", "attribution_bias", "figure", "06_attribution_fairness", "Direct-prompt author omission rates"),
    _A("at-fig16", "attribution_bias", "figure", "06_attribution_fairness", "Indirect-overt prompting accuracy, with and without retrieval"),
    _A("at-quirks", "attribution_bias", "table", "06_attribution_fairness", "Effect of each release quirk (largest change in a published-level number) and the headline metrics under the faithful (release code) and corrected modes"),
]
REGISTRY: dict[str, Artifact] = {a.id: a for a in _ARTIFACTS}


def get(artifact_id: str) -> Artifact:
    """The registered artifact, or a KeyError that suggests the closest ids."""
    try:
        return REGISTRY[artifact_id]
    except KeyError:
        close = difflib.get_close_matches(artifact_id, REGISTRY, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise KeyError(f"unknown artifact id {artifact_id!r}{hint} (registry: lib/artifacts.py)") from None


def promised(promises, *, where: str = "promises") -> list[str]:
    """The artifact ids a profile's ``promises`` value names (``"all"``: every data artifact)."""
    if promises == "all":
        return [a.id for a in _ARTIFACTS if a.notebook]
    if not isinstance(promises, list):
        raise ValueError(f"{where}: expected 'all' or a list of artifact ids, got {promises!r}")
    return list(promises)


def by_notebook(notebook: str) -> list[Artifact]:
    """Artifacts that ``notebook`` (e.g. ``'03_infrastructure_benchmark'``) must produce."""
    return [a for a in _ARTIFACTS if a.notebook == notebook]


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


_UMASK = os.umask(0)
os.umask(_UMASK)


def atomic_write(path: Path, write) -> None:
    """Write through a temporary file in the same folder, so a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp creates 0600; outputs are meant to be shared
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _check_producer(artifact: Artifact, kind: Kind) -> None:
    if artifact.kind != kind:
        raise ValueError(f"{artifact.id} is registered as a {artifact.kind}, not a {kind}")
    running = os.environ.get("COMPANION_NOTEBOOK")
    if running and artifact.notebook != running:
        raise ValueError(f"{artifact.id} is produced by notebook {artifact.notebook}, not by {running}")


def _record(artifact: Artifact, files: list[Path], synthetic: Synthetic, started: float) -> dict:
    rec = {
        "id": artifact.id,
        "files": [str(p.relative_to(paths.OUTPUTS)) for p in files],
        "sha256": {str(p.relative_to(paths.OUTPUTS)): sha256_file(p) for p in files},
        "synthetic": bool(synthetic),       # mixed outputs hold synthetic inputs too
        "label": data_label(synthetic),
        "notebook": os.environ.get("COMPANION_NOTEBOOK", "interactive"),
        "profile": os.environ.get("COMPANION_PROFILE", "interactive"),
        "run_id": os.environ.get("COMPANION_RUN_ID", ""),
        "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "save_seconds": round(time.perf_counter() - started, 3),
    }
    out = paths.RECORDS / f"{artifact.id}.json"
    atomic_write(out, lambda p: p.write_text(json.dumps(rec, indent=1)))
    return rec


def _not_made(artifact: Artifact) -> list[Path]:
    print(f"{artifact.id}: not made by this run (its inputs are absent); the manifest reports it missing")
    return []


def _footer(fig, note: str) -> None:
    """``note`` right-aligned under everything ``fig`` draws, legends below the axes included (the
    saved file's tight bounding box grows to take it), so it never prints over a legend."""
    for lg in fig.legends:
        # a figure legend sits on the figure's edge, which the tight box would move down onto the
        # note: pin it to the figure's rectangle as drawn
        lg.set_bbox_to_anchor((0, 0, 1, 1), transform=fig.transFigure)
    box = fig.get_tightbbox()                       # inches, from a draw without output
    w, h = fig.get_size_inches()
    fig.text(box.x1 / w, (box.y0 - 0.03) / h, note, ha="right", va="top", fontsize=6, color="#a33", alpha=0.9)


def save_figure(fig, artifact_id: str, *, synthetic: Synthetic, dpi: int = 150) -> list[Path]:
    """Write ``fig`` as ``outputs/figures/<id>.pdf`` and ``.png``; label it when synthetic or mixed.
    ``fig`` None (this run cannot draw it, e.g. no model replies): nothing is written, and the
    manifest reports the artifact missing."""
    started = time.perf_counter()
    artifact = get(artifact_id)
    _check_producer(artifact, "figure")
    if fig is None:
        return _not_made(artifact)
    if (label := data_label(synthetic)) in NOTES:
        _footer(fig, NOTES[label][0])
    files = [paths.FIGURES / f"{artifact.id}.pdf", paths.FIGURES / f"{artifact.id}.png"]
    for f in files:
        atomic_write(f, lambda p, f=f: fig.savefig(p, format=f.suffix[1:], dpi=dpi, bbox_inches="tight"))
    _record(artifact, files, synthetic, started)
    return files


def save_table(df, artifact_id: str, *, synthetic: Synthetic, index: bool = False, float_format: str = "%.3f") -> list[Path]:
    """Write ``df`` as ``outputs/tables/<id>.csv`` and a booktabs ``.tex`` table with the caption
    (``df`` None: not made by this run, as for :func:`save_figure`)."""
    started = time.perf_counter()
    artifact = get(artifact_id)
    _check_producer(artifact, "table")
    if df is None:
        return _not_made(artifact)
    if len(df) == 0:
        raise ValueError(f"{artifact.id}: refusing to save an empty table")
    caption = artifact.caption + NOTES.get(data_label(synthetic), ("", ""))[1]
    csv, tex = paths.TABLES / f"{artifact.id}.csv", paths.TABLES / f"{artifact.id}.tex"
    atomic_write(csv, lambda p: df.to_csv(p, index=index))
    latex = df.to_latex(index=index, float_format=lambda v: float_format % v, caption=caption,
                        label=f"tab:{artifact.id}", escape=True)
    atomic_write(tex, lambda p: p.write_text(latex))
    _record(artifact, [csv, tex], synthetic, started)
    _SAVED_TABLES[artifact.id] = df.copy()
    return [csv, tex]


#: Tables saved by this process (a notebook's kernel), by id: what ``saved_tables`` returns.
_SAVED_TABLES: dict[str, object] = {}


def saved_tables(prefix: str = "") -> dict:
    """The DataFrames this process saved with :func:`save_table` whose id starts with ``prefix``
    (e.g. 'ab-'), so a comparison never reads a stale CSV left by an earlier run."""
    return {k: v for k, v in _SAVED_TABLES.items() if k.startswith(prefix)}


def save_text(text: str, artifact_id: str, *, synthetic: Synthetic = False) -> list[Path]:
    """Write a text artifact (rendered prompts, instruction variants) as ``outputs/texts/<id>.txt``."""
    started = time.perf_counter()
    artifact = get(artifact_id)
    _check_producer(artifact, "text")
    out = paths.TEXTS / f"{artifact.id}.txt"
    atomic_write(out, lambda p: p.write_text(text))
    _record(artifact, [out], synthetic, started)
    return [out]


def as_dict(artifact: Artifact) -> dict:
    return asdict(artifact)
