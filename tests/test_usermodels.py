"""A profile's own models (``models.<paper>``): validation at profile load, the effective tables,
the papers' grouped tables and figures including them, and the panel's behaviour for them."""
from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
import pytest
import yaml

from lib import config, paths, registry

EXAMPLES = paths.ROOT / "params" / "examples"
OWN = "qwen3:8b"


def _profile(tmp_path, models: dict, **extra) -> config.Profile:
    doc = {"name": "t", "synthetic": True, "seed": 1, "world": {"n_authors": 100}, "models": models, **extra}
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(doc))
    return config.load_profile(path)


def _csv(tmp_path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


@pytest.fixture(scope="module")
def example():
    return config.load_profile(EXAMPLES / "own_model_panel.yaml")


def test_worked_examples_validate(example):
    real = config.load_profile(EXAMPLES / "own_model.yaml")
    assert real.synthetic == "mixed" and set(real.models) == set(registry.papers())
    assert {m.mode for m in real.models.values()} == {"replace"} and {m.mode for m in example.models.values()} == {"add"}
    from lib.authority import inputs as ai
    from lib.scholar import models as lsb

    only = ai.resolve(real)          # replace: the one model, no tier ablation, the pilot falls back to it
    assert (only.main_models, only.ablation, only.headline, only.pilot_models) == ((OWN,), None, [OWN], (OWN,))
    assert lsb.for_profile(real)["key"].tolist() == ["qwen3-8b-ollama"]


@pytest.mark.parametrize("paper, text, pattern", [
    ("llmscholarbench", "key,api_model,provider_sub_provider,temperature,reasoning,size_class\n"
                        "mine,qwen3:8b,ollama,0.5,T,XXL\n",
     r"mine.csv row 2 \(mine\): field size_class expects one of \['S', 'M', 'L', 'XL', 'S \(P\)'.*got 'XXL'"),
    ("authority_bias", "id,provider\nqwen3:8b,ollama\n", r"mine.csv: missing column\(s\) \['cohort'\]; required: id, cohort, provider"),
    ("authority_bias", "id,provider,cohort\nqwen3:8b,ollama,huge\n",
     r"mine.csv row 2 \(qwen3:8b\): field cohort expects one of \['open', 'frontier', 'ablation'\], got 'huge'"),
    ("attribution_bias", "version,provider\ngpt-5.1,openai\n",
     r"mine.csv row 2 \(gpt-5.1\): field version: 'gpt-5.1' is already a model of attribution_models.csv"),
    ("attribution_bias", "version,provider,family\na,ollama,providers\na,ollama,other\n",
     r"row 3 \(a\): field family expects one of \['', 'providers', 'together'\], got 'other'.*"
     r"row 3 \(a\): field version: duplicate 'a' \(also row 2\)"),
    ("authority_bias", "id,provider,cohort,role\nsmall-closed,openai,ablation,ablation\n",
     r"field role: 2 tier-ablation models \['gpt-4o-mini', 'small-closed'\]"),
])
def test_bad_tables_stop_at_profile_load(tmp_path, paper, text, pattern):
    path = _csv(tmp_path, "mine.csv", text)
    with pytest.raises(config.ProfileError, match=rf"(?s)key .models.{paper}.file.: .*{pattern}"):
        _profile(tmp_path, {paper: {"file": path}})


def test_unknown_paper_and_missing_file(tmp_path):
    with pytest.raises(config.ProfileError) as exc:
        _profile(tmp_path, {"authority": {"file": "nope.csv"}, "attribution_bias": {"file": str(tmp_path / "x.csv")}})
    msg = str(exc.value)
    assert "key 'models.authority': unknown paper (did you mean 'authority_bias'?)" in msg
    assert "key 'models.attribution_bias.file': no file" in msg


def test_effective_tables_add_and_replace(tmp_path, example):
    from lib.attribution import models as at
    from lib.authority import inputs as ai
    from lib.scholar import models as lsb

    s = lsb.for_profile(example)
    assert len(s) == 25 and s.iloc[-1][["key", "provider", "access", "size_class", "model_class"]].tolist() == [
        "qwen3-8b-ollama", "ollama", "open", "S", "reasoning"]
    inputs = ai.resolve(example)
    assert inputs.main_models[-2:] == (OWN, "gpt-4o-mini") and inputs.ablation == "gpt-4o-mini"
    assert OWN in inputs.headline and inputs.cohorts[OWN] == "open" and inputs.by_id([OWN])[0].temperature == 0.8
    t6 = at.table6(at.for_profile(example))
    assert t6.iloc[-1][["model", "version", "family"]].tolist() == ["Qwen3-8B (Ollama)", OWN, "providers"]
    path = _csv(tmp_path, "own.csv", "version,provider,model\nmy/llm,together,Mine\n")
    only = _profile(tmp_path, {"attribution_bias": {"file": path, "mode": "replace"}})
    table = at.for_profile(only)
    from lib.attribution import runs

    assert runs.paper_models(table) == ["my/llm"] and runs.runner_family("my/llm", table) == "together"


def test_scholar_grouped_tables_include_own_model(example, isolated_outputs):
    from lib.scholar import attempts, models as lsb

    table = lsb.for_profile(example)
    t1 = lsb.table1(table)
    assert "qwen3-8b-ollama" in set(t1["Small (< 10B)"])
    attrs = table.set_index("key").loc["qwen3-8b-ollama", list(attempts.MODEL_COLUMNS)]
    for col, order in lsb.GROUP_ORDER.items():       # every infrastructure panel has the model's group
        assert str(attrs[col]) in order


def _texts(fig) -> str:
    return " ".join(t.get_text() for t in fig.findobj(matplotlib.text.Text))


def test_attribution_figures_and_claims_include_own_model(example, isolated_outputs):
    from tests.attribution.test_claims import scored

    from lib import claims
    from lib.attribution import claims as atc, figures, models as at

    frame = scored(models=("gpt-5.1", OWN), n=20, generations=1)
    names = at.display_names(at.for_profile(example))
    frame = frame.assign(model=frame["model"].map(names))
    for fid in ("at-fig4", "at-fig5", "at-fig6", "at-fig7", "at-fig13", "at-fig14", "at-fig15", "at-fig16"):
        fig = figures.response_figure(fid, frame)
        assert "Qwen3-8B (Ollama)" in _texts(fig), fid
        plt.close(fig)
    verdicts = atc.check_all(frame, synthetic=True)
    assert verdicts and all(v.status in claims.STATUSES for v in verdicts.values())


def test_authority_tables_pool_own_model_in_its_cohort(example, isolated_outputs):
    from lib.authority import analysis as an, claims as abc, conditions, corpus, inputs as ai, prompts, responses as rs

    release = paths.ROOT / "tests" / "data" / "golden" / "authority" / "release"
    c, cs = corpus.load_released(release), conditions.conditions_from_release(release)
    req = prompts.build_main_requests(c, n_queries=None, condition_set=cs)
    raw = rs.attach_request_ids(corpus.load_released_responses(release), req)
    f = rs.label_responses(raw, req, c, cs)
    donor = sorted(f["model"].unique())[0]
    f = pd.concat([f, f[f["model"] == donor].assign(model=OWN)], ignore_index=True)
    cohorts = ai.resolve(example).cohorts
    t12 = an.instruction_effect_by_model(f, "anti_authority", groups=cohorts)
    assert OWN in set(t12["name"])
    base = an.instruction_effect_by_model(f[f["model"] != OWN], "anti_authority", groups=cohorts)
    pooled = lambda t: t[(t["level"] == "group") & (t["name"] == "open")]["pairs"].sum()       # noqa: E731
    assert pooled(t12) > pooled(base)              # the own model counts in its cohort's pooled row
    for table in (an.model_susceptibility(f), an.inference_time(f), an.flip_direction(f, by="model")):
        assert OWN in set(table["model"])
    verdicts = abc.check_all({}, f, synthetic=True, cohorts=cohorts)
    assert verdicts
    alone = an.agreement_summary(f[f["model"] == OWN])          # mode: replace with one model: no pairs
    assert alone["pairs"].tolist() == [0, 0, 0] and alone["mean"].isna().all()


def test_panel_derives_own_models_from_their_groups(example):
    from lib.panel import Panel, attribution, authority, core, latent
    from lib.panel.profiles import all_profiles

    try:
        Panel(example.seed, own_models=registry.own_models(example))
        p = all_profiles()[OWN]
        assert p.own and p.papers == ("llmscholarbench", "authority_bias", "attribution_bias") and p.tier == "open"
        assert all_profiles()["qwen/qwen3-8b"].own is False               # the paper's qwen3-8b is untouched
        fit = authority.fitted()["models"]
        open_fit = [fit[m] for m in fit if authority.cohort(m) == "open"]
        own = authority.model_params(example.seed)[OWN]
        assert own["tau"]["none"] == pytest.approx(sum(f["tau"]["none"] for f in open_fit) / len(open_fit))
        assert own["credit_ceiling"] == pytest.approx(sum(f["ceiling"] for f in open_fit) / len(open_fit))
        for d in ("intersectional", "multirace"):      # the family's mean published/placed direct accuracy
            fam = [attribution._t(m, d, "direct_accuracy") for m, q in all_profiles().items()
                   if "attribution_bias" in q.papers and not q.own and q.family == "providers"]
            assert attribution.model_params(example.seed)[OWN]["target_direct_accuracy"][d] == pytest.approx(
                sum(fam) / len(fam))
            assert attribution.dataset_rate(attribution.model_params(example.seed)[OWN], d, "direct", False) == \
                pytest.approx(sum(fam) / len(fam), abs=0.005)
        first = latent.lsb_models(example.seed)[OWN]
        status, _, body = Panel(example.seed).complete({"model": "qwen3-8b-ollama", "messages": [
            {"role": "user", "content": "hello"}]})
        assert status == 200 and latent.lsb_models(example.seed)[OWN] == first      # deterministic by seed
    finally:
        core.set_own_models({})
    assert OWN not in all_profiles()


def test_panel_server_process_serves_own_models(example):
    import httpx

    from lib import endpoints

    with endpoints.open_endpoint(example, with_world=False) as endpoint:
        listed = httpx.get(endpoint.base_url.rstrip("/") + "/models", timeout=30).json()["data"]
        status = httpx.post(endpoint.base_url.rstrip("/") + "/chat/completions", timeout=30, json={
            "model": "qwen3-8b-ollama", "messages": [{"role": "user", "content": "hello"}]}).status_code
    attrs = {m["id"]: m["attributes"] for m in listed}
    assert attrs[OWN]["own"] and attrs[OWN]["tier"] == "open" and attrs[OWN]["family"] == "providers"
    assert status == 200
