"""The evaluation of §5 as one object: the runs a profile asks of the models and what is built
from their replies (accuracy, S_omit, S_evid, the subgroup tests, the figures' inputs).

Notebook 06's collection, scoring, figure, quirk and claim cells share it. A profile without an
endpoint (a release profile: AttriBench ships no model replies) makes no runs: the evaluation is
then *absent* (``reason`` says why) and every step returns None, so Figures 4–8 and 13–16 are
reported missing by the manifest and the §5 claims are "not applicable", never made up.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from lib.attribution import figures, metrics, runs
from lib.attribution import inputs as at_inputs
from lib.attribution import models as at_models

NO_ENDPOINT = ("no endpoint (a real-data profile with neither llm.base_url nor llm.providers): AttriBench releases "
               "no model replies, so Figures 4-8 and 13-16 are not made")


@dataclass
class Evaluation:
    """One profile's §5 runs. ``synthetic`` labels everything built from the replies (the panel's
    answers, or real models asked about the synthetic twin); the tables are None until :func:`score`."""

    synthetic: bool | str
    plan: runs.PaperPlan | None = None
    datasets: dict = field(default_factory=dict)
    names: dict = field(default_factory=dict)
    test: str = "z"
    summary: object | None = None
    scored: pd.DataFrame | None = None
    accuracy: pd.DataFrame | None = None
    acc_sig: pd.DataFrame | None = None
    omit_sig: pd.DataFrame | None = None
    evid_sig: pd.DataFrame | None = None
    reason: str = ""

    @property
    def ran(self) -> bool:
        return self.plan is not None

    @property
    def subgroups(self) -> pd.DataFrame | None:
        """The subgroup tests of accuracy, S_omit and S_evid in one table (None before scoring)."""
        parts = [t for t in (self.acc_sig, self.omit_sig, self.evid_sig) if t is not None]
        return pd.concat(parts, ignore_index=True) if parts else None

    def line(self) -> str:
        if not self.ran:
            return f"model runs: none, {self.reason}"
        done = f"; {self.summary.line()}" if self.summary is not None else ""
        return f"model runs: {self.plan.line()}{done}"


@dataclass(frozen=True)
class RunOptions:
    """Notebook 06's run settings, as its parameters cell names them: matchings asked per dataset
    (0: whole datasets), stochastic generations per prompt, the prompt family, real endpoints' model
    names, the models whose RAG runs use the 300-matching subsets, and the subgroup test."""

    run_matchings: int
    generations: int
    prompt_family: str = "reference"
    api_models: dict = field(default_factory=dict)
    rag_subset_models: tuple = ()
    test: str = "z"


def collect(cfg, sources: at_inputs.Sources, *, table: pd.DataFrame, options: RunOptions) -> Evaluation:
    """Ask every model of ``table`` the paper plan (:func:`lib.attribution.runs.paper_plan`) over the
    datasets of ``sources.asked`` (:class:`lib.attribution.inputs.Sources`), through the profile's
    endpoint, into the raw store; resume-safe. Absent (nothing sent) when the profile has no endpoint."""
    o = options
    if not at_inputs.run_models(cfg):
        return Evaluation(synthetic=cfg.synthetic, test=o.test, reason=NO_ENDPOINT)
    from lib import endpoints

    run_src = sources.asked
    plan = runs.paper_plan(run_src, seed=cfg.seed, n_matchings=o.run_matchings, generations=o.generations,
                           family=o.prompt_family, api_models=o.api_models, rag_subset_models=o.rag_subset_models,
                           table=table)
    print(plan.line() + f", {o.generations} generations")
    with endpoints.open_endpoint(cfg, with_world=False, quotes=plan.quotes) as endpoint:
        summary = runs.run(plan.requests, endpoint, max_attempts=cfg.llm.max_attempts)
    # the panel's answers, or real models asked about the synthetic twin
    return Evaluation(synthetic=cfg.synthetic or run_src.synthetic, plan=plan, datasets=run_src.datasets,
                      names=at_models.display_names(table), test=o.test, summary=summary)


def score(ev: Evaluation, out_dir: Path) -> Evaluation:
    """Score the stored replies (:func:`lib.attribution.runs.score_store`, one run file at a time,
    every quirk mode at once) into ``out_dir/scored.parquet`` and build accuracy and the subgroup
    tests (also written to ``out_dir``); an absent evaluation stays absent."""
    if not ev.ran:
        return ev
    scored = runs.score_store(ev.plan.requests, ev.datasets, Path(out_dir) / "scored.parquet")
    print(f"{len(scored):,} answered of {len(ev.plan.requests):,} requests")
    accuracy = metrics.accuracy(scored)
    sig = {name: metrics.subgroup_significance(fn(scored, subgroups=True), higher_is_better=higher, test=ev.test)
           for name, fn, higher in (("acc_sig", metrics.accuracy, True), ("omit_sig", metrics.s_omit, False),
                                    ("evid_sig", metrics.s_evid, False))}
    out = replace(ev, scored=scored, accuracy=accuracy, **sig)
    accuracy.to_parquet(Path(out_dir) / "accuracy.parquet", index=False)
    out.subgroups.to_parquet(Path(out_dir) / "subgroup_significance.parquet", index=False)
    disparities(out).to_parquet(Path(out_dir) / "disparities.parquet", index=False)
    return out


def accuracy_view(ev: Evaluation) -> pd.DataFrame | None:
    """No-evidence accuracy per model × dataset × prompt as "% [95 % CI]" (None when absent)."""
    if ev.accuracy is None:
        return None
    a = ev.accuracy[~ev.accuracy["evidence"]].copy()
    pct = {c: (100 * a[c]).round(1).astype(str) for c in ("mean", "ci_low", "ci_high")}
    a["accuracy % [95% CI]"] = pct["mean"] + " [" + pct["ci_low"] + ", " + pct["ci_high"] + "]"
    return a.pivot(index="model", columns=["dataset", "prompt_type"], values="accuracy % [95% CI]")


def disparities(ev: Evaluation) -> pd.DataFrame | None:
    """Best-minus-worst subgroup gaps of accuracy, S_omit and S_evid (:func:`lib.attribution.metrics.disparity`)."""
    if ev.acc_sig is None:
        return None
    return pd.concat([metrics.disparity(ev.acc_sig, higher_is_better=True),
                      metrics.disparity(ev.omit_sig, higher_is_better=False),
                      metrics.disparity(ev.evid_sig, higher_is_better=False)], ignore_index=True)


def headline_gaps(ev: Evaluation) -> pd.DataFrame | None:
    """The gap (pp) between the best and the worst subgroup per model: direct and indirect accuracy
    without evidence, S_omit, S_evid (None when absent)."""
    d = disparities(ev)
    if d is None:
        return None
    keep = ((d["metric"].eq("accuracy") & ~d["evidence"] & d["prompt_type"].isin(["direct", "indirect"]))
            | d["metric"].isin(["omission", "miss"]))
    return d[keep].pivot_table(index="model", columns=["dataset", "metric", "prompt_type"], values="gap_pp").round(1)


def figure(ev: Evaluation, artifact_id: str):
    """One response figure (at-fig4–8, at-fig13–16) with the models' display names (Table 6) and †
    on the RAG runs of the subsets; None when absent (the manifest reports it missing)."""
    if ev.scored is None:
        return None
    named = ev.scored.assign(model=ev.scored["model"].map(ev.names).fillna(ev.scored["model"]))
    if artifact_id == "at-fig13":
        return figures.response_figure(artifact_id, named, subset_models=[ev.names.get(m, m) for m in ev.plan.dagger])
    if artifact_id in figures.RESPONSE_FIGURES:
        return figures.response_figure(artifact_id, named, test=ev.test)
    return figures.response_figure(artifact_id, named)


def quirk_table(ev: Evaluation, *, balanced, universe: pd.DataFrame | None = None) -> pd.DataFrame | None:
    """:func:`lib.attribution.quirks.measure_scored` of the scored replies (None when absent)."""
    if ev.scored is None:
        return None
    from lib.attribution import quirks

    return quirks.measure_scored(ev.scored, balanced=balanced, universe=universe)
