"""A tiny synthetic stand-in for the papers' four releases, in each release's own layout, for tests.

Nothing here is real data: the writers produce the *shape* of each release so the loaders, the
``release`` profile and its missing-file checks can be exercised offline and fast.

- :func:`write_lsb_release`: LLMScholarBench raw attempt files (reference §1.6 layout:
  ``data-temperature/temperature_<T>/config_<model>/run_<ts>/<task>_<param>/attempt<n>_<ts>.json``,
  ``data-openrouter/config_<model>/...`` and ``data-gemini/temperature_<T>/config_<model>/...``)
  whose answers name scholars from a given name list;
- :func:`write_authority_release`: ``scholar_papers.json``, ``experiment_sets.json`` and
  ``results/*.json`` as the authority-bias pipeline writes them (spec A.1, A.4, A.5), built from
  the companion's synthetic corpus and conditions, with answers drawn from a seeded stream;
- :func:`write_attribench_release`: the five AttriBench CSVs with the release's headers
  (:mod:`lib.attribution.dataset`), from a small synthetic twin;
- :func:`write_release`: a small world as the ground-truth release in one of its three layouts
  (reference tarball + side files, unpacked folder, one tarball; :func:`release_tables` holds its
  CSV tables), for lib.groundtruth.release and tests/groundtruth/test_release.py;
  :func:`write_ground_truth` writes the folder layout;
- :func:`write_tiny_release`: all of the above under one folder, in the ``downloads/`` names of
  ``params/release.yaml``.
"""
from __future__ import annotations

import io
import json
import random
import tarfile
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from lib.scholar import prompts

#: folder names under the release root, as in params/release.yaml's downloads/
LSB_DIR, GT_DIR, AUTHORITY_DIR, ATTRIBENCH_DIR = ("llmscholarbench", "llmscholarbench-groundtruth",
                                                  "authority-bias", "attribench")

# ---- LLMScholarBench raw attempt files ----------------------------------------------------------
#: (model key, config folder, provider, dataset folder) of the tiny release: open/proprietary,
#: small/large, reasoning or not, and one grounded (RAG) configuration
LSB_MODELS = (
    ("llama-3.1-8b", "config_llama-3.1-8b", "openrouter"),
    ("gpt-oss-20b", "config_gpt-oss-20b", "openrouter"),
    ("gemini-2.5-flash", "config_gemini-2.5-flash", "gemini"),
    ("gemini-2.5-flash-grounded", "config_gemini-2.5-flash-grounded", "gemini"),
)
#: task parameters of the tiny release: both top_k, the constrained prompts' 'before' (top_100)
#: and a few constrained variants, one of each other family
LSB_TASKS = (("top_k", "top_5"), ("top_k", "top_100"), ("biased_top_k", "top_100_bias_gender_female"),
             ("biased_top_k", "top_100_bias_ethnicity_black"), ("biased_top_k", "top_100_bias_citations_high"),
             ("biased_top_k", "top_100_bias_diverse"), ("epoch", "1950s"), ("field", "PER"),
             ("twins", "famous_male"), ("seniority", "senior"))
SWEEP_TEMPERATURES = (0.0, 1.0)
RUN_STAMPS = ("20251220_080000", "20251220_160000")   # two runs (twice daily), so consistency is defined


def _answer(names: Sequence[str], task: str, rng: random.Random, k: int = 4) -> list[dict]:
    picked = rng.sample(list(names), min(k, len(names)))
    items = []
    for n in picked:
        item = {"Name": n}
        if task == "epoch":
            item["Years"] = "1950-1960"
        elif task == "field":
            item["DOI"] = "10.1103/PhysRev.1.1"
        elif task == "seniority":
            item["Career Age"] = "30"
        items.append(item)
    return items


def _attempt(task: str, param: str, attempt: int, temperature: float, model: str, provider: str, created: int,
             content: list[dict] | None, refusal: str | None = None) -> dict:
    prompt = prompts.render(task, param)
    text = json.dumps(content) if content is not None else refusal
    valid = content is not None
    rec = {"category": task, "variable": param, "prompt": prompt, "attempt": attempt, "temperature": temperature,
           "validation_result": {"is_valid": valid, "message": "Validation successful" if valid else
                                 "Invalid JSON: Expecting value: line 1 column 1 (char 0)",
                                 **({"extracted_data": content} if valid else {})}}
    if provider == "gemini":
        rec["full_api_response"] = {"model": model, "prompt": prompt, "response": text, "provider": "gemini",
                                    "grounded": model.endswith("-grounded"),
                                    "full_vertex_response": "usage_metadata { prompt_token_count: 480 "
                                                            "candidates_token_count: 60 total_token_count: 540 }"
                                                            " finish_reason: STOP"}
    else:
        rec["full_api_response"] = {
            "id": f"gen-{created}", "object": "chat.completion", "created": created, "model": f"tiny/{model}",
            "provider": "TinyProvider", "system_fingerprint": None,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text, "reasoning": None}}],
            "usage": {"prompt_tokens": 500, "completion_tokens": 60, "total_tokens": 560}}
    return rec


def write_lsb_release(root: Path, names: Sequence[str], *, seed: int = 7) -> int:
    """Write a tiny LLMScholarBench raw release under ``root``; returns the number of attempt files.

    The sweep (``data-temperature``) covers every non-grounded model of :data:`LSB_MODELS` at
    :data:`SWEEP_TEMPERATURES`; the interventions (``data-openrouter``, ``data-gemini``) cover all
    of them at their calibrated temperature, two runs each. Answers name people from ``names``
    (so they match a ground truth built from the same list); one request in five first answers
    with a refusal text (attempt 1 invalid, attempt 2 valid), so labels and refusals vary.
    """
    from lib.scholar.models import load_models

    calibrated = dict(zip(load_models()["key"], load_models()["temperature"]))
    rng = random.Random(seed)
    n = 0
    created = 1766217600

    def write(folder: Path, model: str, provider: str, temperature: float, stamp: str) -> None:
        nonlocal n, created
        for task, param in LSB_TASKS:
            d = folder / f"run_{stamp}" / f"{task}_{param}"
            d.mkdir(parents=True, exist_ok=True)
            attempts = [None, _answer(names, task, rng)] if rng.random() < 0.2 else [_answer(names, task, rng)]
            for i, content in enumerate(attempts, 1):
                created += 7
                rec = _attempt(task, param, i, temperature, model, provider, created, content,
                               refusal="I'm sorry, but I can't help with ranking people by gender or ethnicity.")
                (d / f"attempt{i}_{stamp[:9]}{int(stamp[9:]) + i:06d}.json").write_text(json.dumps(rec, indent=1))
                n += 1

    for model, config_dir, provider in LSB_MODELS:
        if not model.endswith("-grounded"):
            for t in SWEEP_TEMPERATURES:
                write(root / "data-temperature" / f"temperature_{t:.2f}" / config_dir, model, provider, t, RUN_STAMPS[0])
        t = float(calibrated[model])
        base = (root / "data-gemini" / f"temperature_{t:.2f}" / config_dir if provider == "gemini"
                else root / "data-openrouter" / config_dir)
        for stamp in RUN_STAMPS:
            write(base, model, provider, t, stamp)
    return n


# ---- authority-bias release ---------------------------------------------------------------------
AUTHORITY_TOPICS = ("Sentiment Analysis", "Question Answering")
AUTHORITY_MODELS = ("llama3.1:8b", "mistral:7b", "gpt-5.4")
_JUSTIFICATIONS = (
    "Paper {k} is the most relevant: its abstract addresses the query directly.",
    "I recommend Paper {k}; it was published at a top venue by highly cited authors.",
    "Paper {k}. The method fits the question best, regardless of who wrote it.",
    "Recommendation: Paper {k}, from a prestigious institution with many citations.",
)


def write_authority_release(root: Path, *, topics: Sequence[str] = AUTHORITY_TOPICS, n_queries: int = 2,
                            models: Sequence[str] = AUTHORITY_MODELS, seed: int = 7,
                            pilot_models: Sequence[str] = ("llama3.1:8b", "mistral:7b")) -> int:
    """Write a tiny authority-bias release under ``root``; returns the number of response rows.

    Papers and queries are the companion's synthetic corpus for ``topics`` (``n_queries`` per
    topic), the conditions its :func:`lib.authority.conditions.build_conditions` (stored with the
    release's per-candidate ``authority_components``), the candidate sets its sampler's; the
    answers are drawn from a seeded stream (a pick among the ten, kept across conditions with
    probability 0.6) with justifications that sometimes mention authority.
    """
    from lib.authority import conditions as cond
    from lib.authority import corpus as corp
    from lib.authority.prompts import INSTRUCTIONS
    from lib.authority.scoring import DIMENSIONS

    c = corp.synthetic_corpus(seed, topics=list(topics))
    cs = cond.build_conditions(c, seed=seed)
    authors = {k: g.sort_values("position") for k, g in c.authors.groupby("paper_id")}
    papers = {}
    for p in c.papers.to_dict("records"):
        papers.setdefault(p["topic"], []).append(dict(
            p, citation_count=int(p["citation_count"]), year=int(p["year"]),
            authors=[{"name": a["name"], "h_index": None if np.isnan(a["h_index"]) else a["h_index"],
                      "affiliations": list(a["affiliations"])} for a in authors[p["paper_id"]].to_dict("records")]))
    root.mkdir(parents=True, exist_ok=True)
    (root / "scholar_papers.json").write_text(json.dumps(papers))
    meta = cs.papers.set_index(["condition", "paper_id"])
    cauth = {k: g.sort_values("position") for k, g in cs.authors.groupby(["condition", "paper_id"])}
    cand = cond.build_candidate_sets(c, seed=seed)
    queries = c.queries.groupby("topic", sort=False).head(n_queries)
    sets: dict[str, list] = {}
    for q in queries.to_dict("records"):
        ids = cand.loc[cand["query_id"] == q["query_id"]].sort_values("position")["paper_id"].tolist()
        entry = {"query_id": q["query_id"], "topic": q["topic"], "query": q["query"], "candidates": {}}
        for name in cond.CONDITIONS:
            rows = []
            for pid in ids:
                m = meta.loc[(name, pid)]
                rows.append({"paper_id": pid, "condition": name, "venue": m["venue"],
                             "citation_count": int(m["citation_count"]), "boosted": bool(m["boosted"]),
                             "swap_direction": m["swap_direction"],
                             "authors": [{"name": a["name"], "h_index": None if np.isnan(a["h_index"]) else a["h_index"],
                                          "affiliations": list(a["affiliations"])}
                                         for a in cauth[(name, pid)].to_dict("records")],
                             "authority_components": {**{d: round(float(m[f"x_{d}"]), 4) for d in DIMENSIONS},
                                                      "composite": round(float(m["composite"]), 4)}})
            entry["candidates"][name] = rows
        sets.setdefault(q["topic"], []).append(entry)
    (root / "experiment_sets.json").write_text(json.dumps(sets))
    rng = random.Random(seed)
    rows = []
    for model in models:
        for q in queries.to_dict("records"):
            for ins in INSTRUCTIONS:
                first = rng.randint(1, 10)
                for name in cond.CONDITIONS:
                    k = first if name == "original" or rng.random() < 0.6 else rng.randint(1, 10)
                    rows.append({"model": model, "variant": ins, "condition": name, "topic": q["topic"],
                                 "query_id": q["query_id"], "response": rng.choice(_JUSTIFICATIONS).format(k=k),
                                 "elapsed_seconds": round(rng.uniform(0.5, 4.0), 3), "recommended": k})
    (root / "results").mkdir(exist_ok=True)
    (root / "results" / "results_tiny.json").write_text(json.dumps({"metadata": {"synthetic": True}, "results": rows}))
    if pilot_models:
        write_authority_pilot(root, c, cand, queries, pilot_models, rng)
    return len(rows)


def write_authority_pilot(root: Path, c, cand: pd.DataFrame, queries: pd.DataFrame, models: Sequence[str],
                          rng: random.Random) -> None:
    """``results/1n_pilot/1n_pilot_<model>_<ts>.json`` as ``run_1n_experiment.py`` writes them (spec A.6):
    10 × 10 (fixed, source) runs per query, the fixed card wearing the source's metadata; the
    fixed paper is kept with a probability rising with the worn venue and h-index; 1 in 50 runs
    fails to parse."""
    from lib.authority.scoring import raw_components

    comps = raw_components(c.papers[["paper_id", "venue", "citation_count"]], c.authors).set_index("paper_id")
    folder = root / "results" / "1n_pilot"
    folder.mkdir(parents=True, exist_ok=True)
    for model in models:
        out = []
        for q in queries.to_dict("records"):
            ids = cand.loc[cand["query_id"] == q["query_id"]].sort_values("position")["paper_id"].tolist()
            for f in range(len(ids)):
                for src in range(len(ids)):
                    w = comps.loc[ids[src]]
                    wear = {"max_h": float(w["max_h"]), "median_h": float(w["median_h"]),
                            "citations": float(w["citations"]), "venue_score": float(w["venue"]),
                            "affiliation_score": float(w["affiliation"])}
                    p = 0.05 + 0.5 * wear["venue_score"] + 0.3 * min(wear["max_h"] / 100.0, 1.0)
                    parsed = len(out) % 50 != 49
                    kept = parsed and rng.random() < p
                    out.append({"topic": q["topic"], "query": q["query"], "model": model, "fixed_paper_idx": f,
                                "fixed_paper_id": ids[f], "fixed_paper_title": "", "source_paper_idx": src,
                                "source_paper_id": ids[src], "is_baseline": f == src,
                                "picked_paper_idx": (f if kept else (f + 1) % 10) if parsed else None,
                                "recommended_fixed_paper": kept, "fixed_paper_original_meta": {},
                                "fixed_paper_wearing_meta": wear, "source_meta": wear,
                                "response": f"Paper {f + 1 if kept else (f + 1) % 10 + 1}." if parsed else "no answer",
                                "latency": 1.0, "parse_success": parsed})
        meta = {"experiment_type": "1:N flip pilot", "model": model, "total_runs": len(out),
                "successful": sum(r["parse_success"] for r in out), "timestamp": "20260301_120000"}
        tag = model.replace(":", "_").replace(".", "_")
        (folder / f"1n_pilot_{tag}_20260301_120000.json").write_text(json.dumps({"metadata": meta, "results": out}))


# ---- AttriBench CSVs ----------------------------------------------------------------------------
def write_attribench_release(root: Path, *, n_authors: int = 400, seed: int = 7) -> list[Path]:
    """Write the five AttriBench CSVs (release headers) from a small synthetic twin; returns their paths."""
    from lib.attribution import build
    from lib.attribution import dataset as ds
    from lib.attribution.download import FILES

    tw = build.build_twin(n_authors, seed, runs=3, n_matchings=20)
    root.mkdir(parents=True, exist_ok=True)
    out = []
    frames = {"universe_authors.csv": tw.universe[list(ds.UNIVERSE_COLUMNS)]}
    for kind in build.KINDS:
        frames[f"{kind}_with_quotes.csv"] = tw.datasets[kind]
        frames[f"{kind}_with_quotes_random_300matchings.csv"] = tw.subsets[kind]
    for f in FILES:
        df = frames[f.name]
        if f.kind == "quotes":
            df = df.reset_index(drop=True)[list(ds.QUOTE_COLUMNS[1:])]
            df.insert(0, "", range(len(df)))
        out.append(root / f.name)
        df.to_csv(out[-1], index=False)
    return out


def attribench_specs(written: Sequence[Path]) -> tuple:
    """The identities of a fixture's AttriBench files, as :data:`lib.attribution.download.FILES` pins the
    release's (size in characters, data rows, sha256), so its checks can run on the fixture."""
    import dataclasses
    import hashlib

    from lib.attribution.download import BY_NAME

    out = []
    for p in written:
        spec, data = BY_NAME[p.name], p.read_bytes()
        rows = None if spec.rows is None else len(pd.read_csv(p, keep_default_na=False))
        out.append(dataclasses.replace(spec, chars=len(data.decode("utf-8")), rows=rows,
                                       sha256=hashlib.sha256(data).hexdigest()))
    return tuple(out)


# ---- LLMScholarBench ground truth ---------------------------------------------------------------
_LONG_ETHNICITY = {"Black": "Black or African American", "Hispanic": "Hispanic or Latino"}
_TOPICS = {"Condensed Matter Physics": 1001, "Education": 1002}
TARBALL_CSVS = ("authors_demographics.csv", "authors_stats.csv", "authors_aps_stats.csv", "authors_mapping.csv",
                "publications.csv", "publications_mapping.csv", "authorships.csv", "publications_topic.csv",
                "topics.csv")


def release_tables(world) -> dict[str, pd.DataFrame]:
    """The world as the release's CSV tables, with the reference's column sets and quirks."""
    a = world.authors.sort_values("author_id")
    demo = pd.DataFrame({
        "id_author": a["author_id"], "display_name": a["display_name"], "created_date": "2023-01-01",
        "updated_date": "2024-01-01", "orcid": "", "gender_nq": "Unknown",
        "alternative_names": a["alt_names"].map(lambda x: str(list(x))), "longest_name": a["longest_name"],
        "last_name": a["longest_name"].str.split().str[-1], "first_name": a["longest_name"].str.split().str[0],
        "ethnicity_dx": a["perceived_ethnicity"].map(lambda e: _LONG_ETHNICITY.get(e, e)), "ethnicity_ec": "",
        "ethnicity": a["perceived_ethnicity"].map(lambda e: _LONG_ETHNICITY.get(e, e)),
        "gender": a["perceived_gender"]})
    stats = pd.DataFrame({
        "id_author": a["author_id"], "name": a["display_name"], "created_date": "2023-01-01",
        "updated_date": "2024-01-01", "orcid": "", "works_count": a["works_count"],
        "cited_by_count": a["cited_by_count"], "h_index": a["h_index"], "i10_index": a["i10_index"],
        "two_year_mean_citedness": 1.5, "min_year": a["career_start"], "max_year": a["career_end"],
        "career_age": a["career_age"], "e_index": 0.5, "citations_per_paper_age": a["citations_per_paper_age"],
        "rr1_rank_publications": a["works_count"].rank(method="min", ascending=False).astype(int),
        "rr1_rank_publications_percentile": 50.0,
        "rr2_rank_citations": a["cited_by_count"].rank(method="min", ascending=False).astype(int),
        "rr2_rank_citations_percentile": 50.0})
    aps = pd.DataFrame({
        "id_author": a["author_id"], "aps_works_count": a["aps_works_count"],
        "aps_cited_by_count": a["aps_cited_by_count"], "aps_h_index": a["h_index"], "aps_i10_index": a["i10_index"],
        "aps_e_index": 0.0,
        "aps_years_of_activity": [f"[{s}, {e}]" for s, e in zip(a["career_start"], a["career_end"])],
        "aps_career_age": a["career_age"], "aps_citations_per_paper_age": 0.1})
    mapping = pd.DataFrame({"id_author_oa": np.r_[a["author_id"], a["author_id"][:5]],
                            "id_author_aps": np.arange(len(a) + 5) + 900_000})
    p = world.publications.sort_values("publication_id")
    pubs = pd.DataFrame({"id_publication": p["publication_id"], "doi": p["doi"], "title": "t",
                         "publication_date": [f"{y}-03-01" for y in p["year"]], "language": "en",
                         "cited_by_count": p["cited_by_count"]})
    pmap = pd.DataFrame({"oa_id": p["publication_id"], "aps_id": np.arange(len(p)), "id_journal": 1})
    ships = world.authorships.assign(id_institution=7).rename(columns={"publication_id": "id_publication",
                                                                       "author_id": "id_author"})
    ships = pd.concat([ships, ships.iloc[:3].assign(id_institution=8)])  # one row per institution
    topic_of = {s: _TOPICS.get(s, 2000 + i) for i, s in enumerate(sorted(p["subfield"].unique()))}
    ptopic = pd.DataFrame({"id_publication": p["publication_id"], "id_topic": p["subfield"].map(topic_of)})
    topics = pd.DataFrame({"id_topic": list(topic_of.values()), "domain_name": "Physical Sciences",
                           "field_name": "Physics and Astronomy", "subfield_name": list(topic_of)})
    e = world.coauthorships
    co = pd.concat([e[["src", "dst"]], e[["dst", "src"]].set_axis(["src", "dst"], axis=1),
                    e[["src", "dst"]].iloc[:4], pd.DataFrame({"src": [e["src"].iloc[0]], "dst": [e["src"].iloc[0]]})])
    return {"authors_demographics.csv": demo, "authors_stats.csv": stats, "authors_aps_stats.csv": aps,
            "authors_mapping.csv": mapping, "publications.csv": pubs, "publications_mapping.csv": pmap,
            "authorships.csv": ships, "publications_topic.csv": ptopic, "topics.csv": topics,
            "coauthorships.csv": co}


def pca_model_bytes(world) -> bytes:
    """``pca_cosine_similarity_model.h5`` in the reference's HDF5 layout (§4.3 item 4)."""
    import h5py

    from lib.scholar.metrics import similarity_embedding

    z = similarity_embedding(world.authors)
    buf = io.BytesIO()
    with h5py.File(buf, "w") as h:
        h["ids"] = z.index.to_numpy()
        h["embedding_"] = z.to_numpy()
        h["explained_variance_ratio_"] = np.full(z.shape[1], 1.0 / z.shape[1])
        h["pca/components_"] = np.eye(z.shape[1])
        h["pca/mean_"] = np.zeros(z.shape[1])
        h.attrs["meta_json"] = json.dumps({"feature_cols": ["works_count"], "n_components_": z.shape[1],
                                           "rbf_sigma_": None, "embedding_l2_normalized_": True})
    return buf.getvalue()


def release_csv(df) -> bytes:
    """A table as the release's CSV bytes."""
    return df.to_csv(index=False).encode()


def _targz(path: Path, members: dict[str, bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def write_release(world, root: Path, layout: str, *, tables=None, raw: dict[str, bytes] | None = None) -> Path:
    """``world`` as the ground-truth release in one of three layouts; returns the path to hand to
    the importer (lib.groundtruth.release).

    reference: GTBuilder/APS/data/final_dataset.tar.gz (final_dataset/<table>.csv) with the edge list
               and the PCA model next to it in results/augmented_aps/ (reference §4.1, §5, §7);
    folder:    every file unpacked under release/final_dataset/;
    tarball:   one final_dataset.tar.gz holding every file, given as the path itself.
    ``raw`` replaces a file's bytes (malformed-file tests).
    """
    from lib.groundtruth.release import PCA_MODEL

    files = {n: release_csv(df) for n, df in (tables or release_tables(world)).items()}
    files[PCA_MODEL] = pca_model_bytes(world)
    files.update(raw or {})
    files = {n: b for n, b in files.items() if b is not None}
    if layout == "reference":
        _targz(root / "GTBuilder/APS/data/final_dataset.tar.gz",
               {f"final_dataset/{n}": b for n, b in files.items() if n in TARBALL_CSVS})
        side = root / "results/augmented_aps"
        side.mkdir(parents=True)
        for n in set(files) - set(TARBALL_CSVS):
            (side / n).write_bytes(files[n])
        return root
    if layout == "folder":
        d = root / "release" / "final_dataset"
        d.mkdir(parents=True)
        for n, b in files.items():
            (d / n).write_bytes(b)
        return root
    return _targz(root / "final_dataset.tar.gz", {f"final_dataset/{n}": b for n, b in files.items()})


def write_ground_truth(root: Path, world) -> Path:
    """``world`` as the LLMScholarBench ground-truth release, unpacked-folder layout (:func:`write_release`)."""
    write_release(world, root, "folder")
    return root


# ---- all four -----------------------------------------------------------------------------------
def write_tiny_release(root: Path, *, seed: int = 7, n_authors: int = 120) -> dict[str, Path]:
    """Every release under ``root`` in the folder names of params/release.yaml; returns {real_data key: folder}.

    A small synthetic world (``n_authors``) is the ground truth; the LLMScholarBench answers name
    its authors.
    """
    from lib.groundtruth.world import build_world

    world = build_world(seed, n_authors)
    out = {"authority_dataset_dir": root / AUTHORITY_DIR, "attribench_dir": root / ATTRIBENCH_DIR,
           "raw_responses_dir": root / LSB_DIR, "ground_truth_dir": write_ground_truth(root / GT_DIR, world)}
    write_authority_release(out["authority_dataset_dir"], seed=seed)
    write_attribench_release(out["attribench_dir"], seed=seed)
    write_lsb_release(out["raw_responses_dir"], world.authors["display_name"].tolist(), seed=seed)
    return out
