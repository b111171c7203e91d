"""Profile validation: every bad profile stops with the file, the key and what was expected."""
import textwrap
from pathlib import Path

import pytest

from lib import config, paths

GOOD = """\
name: t
synthetic: true
seed: 1
world: {n_authors: 10}
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "profile.yaml"
    p.write_text(textwrap.dedent(text))
    return p


@pytest.mark.parametrize("profile", ["quick", "paper"])
def test_shipped_profiles_are_valid(profile):
    prof = config.load_profile(profile)
    assert prof.path.endswith(f"{profile}.yaml")
    assert prof.llm.api_key_env in (None, "OPENROUTER_API_KEY")


def test_the_real_template_stops_until_its_real_inputs_are_given_or_mixed_is_declared(tmp_path):
    """issue 16: real.example.yaml as shipped (synthetic: false, every real_data key null) would label
    the synthetic world, corpus and twin real; it stops naming the three keys, and is valid as mixed."""
    with pytest.raises(config.ProfileError) as exc:
        config.load_profile("real.example")
    lines = str(exc.value).splitlines()
    assert [x.split("key '")[1].split("'")[0] for x in lines] == [
        "real_data.ground_truth_dir", "real_data.authority_dataset_dir", "real_data.attribench_dir"]
    assert "10.5281/zenodo.20417107" in lines[0] and "python -m lib.groundtruth.release check" in lines[0]
    assert "huggingface.co/datasets/uthmanjinadu" in lines[1] and "python -m lib.attribution.download" in lines[2]
    assert all("synthetic: mixed" in x for x in lines)
    text = (paths.PARAMS / "real.example.yaml").read_text().replace("synthetic: false", "synthetic: mixed")
    prof = config.load_profile(write(tmp_path, text))
    assert prof.synthetic == "mixed" and prof.data_label == "mixed" and prof.llm.real_endpoint
    assert sorted(prof.llm.key_variables().values()) == [
        "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "TOGETHER_API_KEY"]


def test_the_real_template_reproduces_each_papers_routing(tmp_path, monkeypatch):
    """issue 16: every provider of the three papers' routing tables is defined (through llm.routes),
    with the URLs of the papers' providers; loading it needs no key, collecting refuses without one."""
    from lib.attribution import models as at_models
    from lib.authority import models as ab_models
    from lib.scholar import models as lsb_models

    text = (paths.PARAMS / "real.example.yaml").read_text().replace("synthetic: false", "synthetic: mixed")
    for var in ("OPENROUTER_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "TOGETHER_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    llm = config.load_profile(write(tmp_path, text)).llm          # valid with every key variable unset
    used = set(lsb_models.routing()["provider"]) | set(ab_models.routing()["provider"]) | set(at_models.routing()["provider"])
    assert {llm.routes.get(p, p) for p in used} == set(llm.providers)
    urls = {n: p.base_url for n, p in llm.providers.items()}
    assert urls == {"openrouter": "https://openrouter.ai/api/v1",
                    "google": "https://generativelanguage.googleapis.com/v1beta/openai/",
                    "ollama": "http://localhost:11434/v1", "openai": "https://api.openai.com/v1",
                    "anthropic": "https://api.anthropic.com/v1/", "together": "https://api.together.xyz/v1"}
    assert llm.providers["ollama"].api_key_env is None and llm.providers["openai"].batch
    for line in text.splitlines():          # each key variable is named in a comment saying to export it
        if "api_key_env:" in line:
            var = line.split(":", 1)[1].strip()
            assert f"export {var}=" in text
    from lib.llm.client import Request
    from lib.llm.providers import MissingKeyError, RoutedEndpoint

    routed = RoutedEndpoint.from_profile(llm)
    req = Request("e", "gemini-2.5-pro-grounded", "gemini-2.5-pro", "top_k", "top_5", 1.0, 0, (), provider="gemini")
    assert routed.provider_of(req) == "google"
    with pytest.raises(MissingKeyError, match=r"provider 'google': environment variable GEMINI_API_KEY is not set "
                                              r"\(profile key llm.providers.google.api_key_env\)"):
        routed.check_keys(routed.split([req]))
    monkeypatch.setenv("GEMINI_API_KEY", "x" * 20)
    routed.check_keys(routed.split([req]))        # set: passes


PROVIDER_BAD = [
    ("llm:\n  providers:\n    openai: {base_ur: 'https://api.openai.com/v1'}\n",
     ["key 'llm.providers.openai.base_ur'", "unknown key", "did you mean 'base_url'"]),
    ("llm:\n  providers:\n    openai: {api_key_env: OPENAI_API_KEY}\n",
     ["key 'llm.providers.openai.base_url'", "required key is missing"]),
    ("llm:\n  providers:\n    openai: {base_url: 'api.openai.com'}\n",
     ["key 'llm.providers.openai.base_url'", "expected an http(s) URL", "'api.openai.com'"]),
    ("llm:\n  providers:\n    openai: {base_url: 'https://api.openai.com/v1', api_key_env: 'my key'}\n",
     ["key 'llm.providers.openai.api_key_env'", "NAME of an environment variable"]),
    ("llm:\n  providers:\n    openai: {base_url: 'https://api.openai.com/v1', requests_per_minute: 0}\n",
     ["key 'llm.providers.openai.requests_per_minute'", "greater than 0"]),
    ("llm:\n  providers:\n    openai: {base_url: 'https://api.openai.com/v1', batch: maybe}\n",
     ["key 'llm.providers.openai.batch'", "boolean", "'maybe'"]),
    ("llm:\n  providers:\n    openai: {base_url: 'https://api.openai.com/v1', request_timeout_s: 0.01}\n",
     ["key 'llm.providers.openai.request_timeout_s'", "at least 1 s"]),
    ("llm:\n  providers:\n    openai: {base_url: 'ftp://x', request_timeout_s: 0.5}\n",     # both, at once
     ["key 'llm.providers.openai.base_url'", "got 'ftp://x'", "key 'llm.providers.openai.request_timeout_s'",
      "got 0.5"]),
    ("llm:\n  providers:\n    Open AI: {base_url: 'https://api.openai.com/v1'}\n",
     ["key 'llm.providers.Open AI'", "expected a provider name"]),
    ("llm:\n  base_url: 'https://openrouter.ai/api/v1'\n  providers:\n    openai: {base_url: 'https://api.openai.com/v1'}\n",
     ["key 'llm.base_url'", "either llm.base_url", "or llm.providers", "not both"]),
    ("llm:\n  routes: {gemini: google}\n  providers:\n    openai: {base_url: 'https://api.openai.com/v1'}\n",
     ["key 'llm.routes.gemini'", "expected the name of a provider of llm.providers (openai)", "'google'"]),
    ("llm:\n  mode: batch\n  providers:\n    openai: {base_url: 'https://api.openai.com/v1'}\n",
     ["key 'llm.mode'", "batch: true on the providers"]),
    # a literal key in a provider entry is refused like anywhere else
    ("llm:\n  providers:\n    openai: {base_url: 'https://api.openai.com/v1', api_key_env: " + "sk-" + "abcdefghijklmnopqrstuvwxyz0123}\n",
     ["key 'llm.providers.openai.api_key_env'", "literal API key"]),
]


@pytest.mark.parametrize("extra,fragments", PROVIDER_BAD)
def test_bad_providers_name_file_key_and_expectation(tmp_path, extra, fragments):
    with pytest.raises(config.ProfileError) as exc:
        config.load_profile(write(tmp_path, GOOD + extra))
    msg = str(exc.value)
    assert "profile.yaml" in msg
    for f in fragments:
        assert f in msg, (f, msg)


def test_providers_give_a_real_endpoint_and_their_keys_are_secrets(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_LOCAL_VLLM_KEYVAR", "canary-vllm-0123456789")
    prof = config.load_profile(write(tmp_path, GOOD.replace("synthetic: true", "synthetic: mixed") + (
        "llm:\n  providers:\n    vllm: {base_url: 'http://127.0.0.1:8000/v1', api_key_env: MY_LOCAL_VLLM_KEYVAR}\n")))
    assert prof.llm.real_endpoint and prof.llm.key_variables() == {"llm.providers.vllm.api_key_env": "MY_LOCAL_VLLM_KEYVAR"}
    assert "canary-vllm-0123456789" in config.secret_values(prof)
    assert "canary-vllm-0123456789" not in config.secret_values(None)


BAD = [
    # (profile text, fragments the message must contain)
    (GOOD + "sede: 3\n", ["profile.yaml", "key 'sede'", "unknown key", "did you mean 'seed'"]),
    (GOOD.replace("n_authors", "n_autors"), ["key 'world.n_autors'", "did you mean 'n_authors'", "expected one of: n_authors"]),
    (GOOD.replace("seed: 1", "seed: one"), ["key 'seed'", "valid integer", "'one'"]),
    (GOOD.replace("synthetic: true", "synthetic: 3"), ["key 'synthetic'", "boolean", "'mixed'"]),
    (GOOD.replace("synthetic: true", "synthetic: partly"), ["key 'synthetic'", "'mixed'", "'partly'"]),
    # mixed declares a real endpoint: without one it is the embedded default, fully synthetic
    (GOOD.replace("synthetic: true", "synthetic: mixed"), ["key 'synthetic'", "llm.base_url is null", "synthetic: true"]),
    (GOOD.replace("seed: 1\n", ""), ["key 'seed'", "required key is missing"]),
    (GOOD.replace("world: {n_authors: 10}", "world: {n_authors: -5}"), ["key 'world.n_authors'", "greater than 0"]),
    # the fake key is assembled here so that secret scanners do not flag the test file itself
    (GOOD + "llm: {api_key_env: " + "sk-" + "abcdefghijklmnopqrstuvwxyz0123}\n", ["key 'llm.api_key_env'", "literal API key"]),
    (GOOD + "llm: {api_key_env: my key}\n", ["key 'llm.api_key_env'", "NAME of an environment variable"]),
    (GOOD + "llm: {api_key: abcdef123456}\n", ["key 'llm.api_key'", "must not hold a secret", "api_key_env"]),
    (GOOD + "notebooks: {03_infra: {}}\n", ["key 'notebooks.03_infra'", "unknown notebook", "03_infrastructure_benchmark"]),
    (GOOD + "promises: [lsb-fig9]\n", ["key 'promises[0]'", "unknown artifact id 'lsb-fig9'"]),
    (GOOD + "promises: [lsb-fig1]\n", ["key 'promises[0]'", "diagram"]),
    (GOOD + "promises: everything\n", ["key 'promises'"]),
    (GOOD + "real_data: {attribench_dir: /no/such/dir}\n", ["key 'real_data.attribench_dir'", "does not exist"]),
    (GOOD + "execution_timeout_s: 10 minutes\n", ["key 'execution_timeout_s'", "integer"]),
    (GOOD + "llm: {panel_transport: socket}\n", ["key 'llm.panel_transport'", "'http'", "'http_thread'", "'in_process'"]),
    ("- just\n- a list\n", ["profile.yaml", "expected a mapping"]),
    ("name: [unclosed\n", ["profile.yaml", "not valid YAML"]),
]


@pytest.mark.parametrize("text,fragments", BAD)
def test_bad_profiles_name_file_key_and_expectation(tmp_path, text, fragments):
    with pytest.raises(config.ProfileError) as exc:
        config.load_profile(write(tmp_path, text))
    for frag in fragments:
        assert frag in str(exc.value), str(exc.value)


def test_a_misspelt_batch_key_gets_the_same_hint_from_a_profile_and_from_an_endpoint_mapping(tmp_path):
    """BatchSettings.from_dict (an endpoint's batch mapping) words errors as the profile loader does."""
    path = write(tmp_path, GOOD + "llm: {batch: {poll_factr: 2, create_tries: 0}}\n")
    with pytest.raises(config.ProfileError) as exc:
        config.load_profile(path)
    with pytest.raises(ValueError) as direct:
        config.BatchSettings.from_dict({"poll_factr": 2, "create_tries": 0}, where=str(path))
    lines = sorted(str(direct.value).splitlines())
    assert lines == sorted(str(exc.value).splitlines())          # tmp_path: shown as given
    assert lines[0] == f"{path}: key 'llm.batch.create_tries': Input should be greater than 0 (got 0)"
    assert lines[1] == (f"{path}: key 'llm.batch.poll_factr': unknown key (did you mean 'poll_factor'?); expected one of: "
                        "max_requests_per_file, max_bytes_per_file, poll_initial_s, poll_max_s, poll_factor, "
                        "create_tries, keep_files, min_requests")


def test_raw_responses_dir_without_a_release_names_the_doi(tmp_path):
    empty = tmp_path / "llmscholarbench"
    empty.mkdir()
    with pytest.raises(config.ProfileError) as exc:
        config.load_profile(write(tmp_path, GOOD + f"real_data: {{raw_responses_dir: {empty}}}\n"))
    assert "key 'real_data.raw_responses_dir'" in str(exc.value) and "10.5281/zenodo.20417107" in str(exc.value)


def test_unknown_profile_name_lists_the_known_ones():
    with pytest.raises(config.ProfileError, match="known profiles: .*quick"):
        config.load_profile("quik")


@pytest.fixture
def fixture_notebooks(monkeypatch):
    monkeypatch.setattr(paths, "NOTEBOOKS", paths.TEST_DATA / "pipeline_notebooks")


@pytest.mark.parametrize("override,fragments", [
    ("{n_rowz: 3}", ["key 'notebooks.01_calibration.n_rowz'", "did you mean 'n_rows'"]),
    ("{n_rows: many}", ["key 'notebooks.01_calibration.n_rows'", "expected int like the default 3", "got str"]),
    ("{n_rows: 2.5}", ["expected int"]),
    ("{profile: paper}", ["set by the runner"]),
])
def test_notebook_overrides_are_checked_against_the_parameters_cell(tmp_path, fixture_notebooks, override, fragments):
    with pytest.raises(config.ProfileError) as exc:
        config.load_profile(write(tmp_path, GOOD + f"notebooks:\n  01_calibration: {override}\n"))
    for frag in fragments:
        assert frag in str(exc.value), str(exc.value)


def test_valid_notebook_override_is_injected(tmp_path, fixture_notebooks):
    prof = config.load_profile(write(tmp_path, GOOD + "notebooks:\n  01_calibration: {n_rows: 5}\n"))
    assert prof.notebook_params("01_calibration") == {"profile": prof.path, "n_rows": 5}
    assert prof.notebook_params("02_collection") == {"profile": prof.path}


def test_every_problem_is_reported_at_once(tmp_path, fixture_notebooks):
    text = GOOD + "promises: [nope]\nnotebooks:\n  01_calibration: {n_rowz: 1}\n"
    with pytest.raises(config.ProfileError) as exc:
        config.load_profile(write(tmp_path, text))
    assert "promises[0]" in str(exc.value) and "n_rowz" in str(exc.value)


def test_secret_values_come_from_named_variables(monkeypatch, tmp_path):
    monkeypatch.setenv("MY_PROVIDER_KEY", "canary-123456")
    monkeypatch.setenv("OTHER_API_KEY", "canary-abcdef")
    prof = config.load_profile(write(tmp_path, GOOD + "llm: {api_key_env: MY_PROVIDER_KEY}\n"))
    secrets = config.secret_values(prof)
    assert "canary-123456" in secrets and "canary-abcdef" in secrets


# ---- real data and import mode (issue 8 items 4-5) ------------------------------------------------
REAL = GOOD.replace("synthetic: true", "synthetic: false")


def test_each_real_data_dir_lists_its_missing_files_all_at_once(tmp_path):
    dirs = {k: tmp_path / k for k in ("ground_truth_dir", "raw_responses_dir", "attribench_dir", "authority_dataset_dir")}
    for d in dirs.values():
        d.mkdir()
    text = GOOD + "real_data: {" + ", ".join(f"{k}: {v}" for k, v in dirs.items()) + "}\n"
    with pytest.raises(config.ProfileError) as exc:
        config.load_profile(write(tmp_path, text))
    lines = str(exc.value).splitlines()
    by_key = {k: [x for x in lines if f"key 'real_data.{k}'" in x] for k in dirs}
    assert len(by_key["attribench_dir"]) == 5 and "universe_authors.csv is missing" in by_key["attribench_dir"][-1]
    assert [x.split(" is missing")[0].split("authority_dataset_dir/")[-1] for x in by_key["authority_dataset_dir"]] == [
        "scholar_papers.json", "experiment_sets.json", "results/*.json"]
    assert len(by_key["raw_responses_dir"]) == 1 and "no config_<model> folder" in by_key["raw_responses_dir"][0]
    assert by_key["ground_truth_dir"] and all("csv" in x for x in by_key["ground_truth_dir"])
    assert len(lines) == sum(map(len, by_key.values()))


def test_release_problems_rejects_an_unknown_key(tmp_path):
    with pytest.raises(KeyError, match="expected one of: ground_truth_dir"):
        config.release_problems("raw_dir", tmp_path)


def test_real_path_resolves_relative_paths_from_the_repo_root(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(config, "release_problems", lambda key, path: seen.append((key, path)) or [])
    prof = config.load_profile(write(tmp_path, GOOD + f"real_data: {{attribench_dir: downloads/ab, raw_responses_dir: {tmp_path}}}\n"))
    assert prof.real_path("attribench_dir") == paths.ROOT / "downloads" / "ab"
    assert prof.real_path("raw_responses_dir") == tmp_path and prof.real_path("ground_truth_dir") is None
    assert seen == [("raw_responses_dir", tmp_path), ("attribench_dir", paths.ROOT / "downloads" / "ab")]


@pytest.mark.parametrize("text,fragments", [
    # a real-data profile without an endpoint may not collect (the embedded panel is synthetic)
    (REAL, ["key 'notebooks.01_calibration.source'", "key 'notebooks.02_collection.source'", "no endpoint",
            "set it to 'release'"]),
    # import mode needs the release and a ground truth
    (GOOD + "notebooks: {01_calibration: {source: release}}\n",
     ["key 'real_data.raw_responses_dir'", "key 'real_data.ground_truth_dir'", "notebooks.01_calibration.source is 'release'"]),
    (GOOD + "notebooks: {02_collection: {source: archive}}\n",
     ["key 'notebooks.02_collection.source'", "expected 'collect' or 'release', got 'archive'"]),
])
def test_import_mode_and_endpoint_rules(tmp_path, text, fragments):
    with pytest.raises(config.ProfileError) as exc:
        config.load_profile(write(tmp_path, text))
    for frag in fragments:
        assert frag in str(exc.value), str(exc.value)


def test_a_real_profile_with_an_endpoint_may_collect(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "release_problems", lambda key, path: [])
    real_data = "real_data: {" + ", ".join(f"{k}: {tmp_path}" for k in (
        "ground_truth_dir", "attribench_dir", "authority_dataset_dir")) + "}\n"
    prof = config.load_profile(write(tmp_path, REAL + "llm: {base_url: 'http://127.0.0.1:9/v1'}\n" + real_data))
    assert prof.llm.base_url and not prof.synthetic and prof.data_label == "real"


def test_a_real_profile_without_its_real_inputs_stops_naming_each_key(tmp_path, monkeypatch):
    """issue 16: synthetic: false with an endpoint but no ground truth, AttriBench release or authority
    corpus stops at validation (each notebook would fall back to a synthetic input labelled real)."""
    monkeypatch.setattr(config, "release_problems", lambda key, path: [])
    endpoint = "llm: {base_url: 'http://127.0.0.1:9/v1'}\n"
    with pytest.raises(config.ProfileError) as exc:
        config.load_profile(write(tmp_path, REAL + endpoint))
    assert sorted(x.split("key '")[1].split("'")[0] for x in str(exc.value).splitlines()) == [
        "real_data.attribench_dir", "real_data.authority_dataset_dir", "real_data.ground_truth_dir"]
    # declared mixed, the same set-up is accepted
    prof = config.load_profile(write(tmp_path, GOOD.replace("synthetic: true", "synthetic: mixed") + endpoint))
    assert prof.data_label == "mixed"


# ---- ranges, forms, encodings, folders (issue 18): each bad value fails at validation, fast -----------
RANGE_BAD = [
    (GOOD.replace("seed: 1", "seed: -5"), ["key 'seed'", "expected an integer >= 0 and < 2**32", "got -5"]),
    (GOOD.replace("seed: 1", f"seed: {2**70}"), ["key 'seed'", "< 2**32"]),
    (GOOD.replace("n_authors: 10", "n_authors: 1000000000000"), ["key 'world.n_authors'", "GiB", "expected at most"]),
    (GOOD + "notebooks: {02_collection: {runs: -3}}\n", ["key 'notebooks.02_collection.runs'", "expected a number >= 1"]),
    (GOOD + "notebooks: {02_collection: {runs: 0}}\n", ["key 'notebooks.02_collection.runs'", ">= 1", "got 0"]),
    (GOOD + "notebooks: {02_collection: {params_per_family: -1}}\n", ["params_per_family'", ">= 0"]),
    (GOOD + "llm: {base_url: 'not a url'}\n", ["key 'llm.base_url'", "expected an http(s) URL",
                                             "or null for the embedded panel", "'not a url'"]),
    (GOOD + "llm: {base_url: 'http://127.0.0.1:99999/v1'}\n", ["key 'llm.base_url'", "http(s) URL"]),
    (GOOD + "llm: {request_timeout_s: 0.0001}\n", ["key 'llm.request_timeout_s'", "at least 1 s", "0.0001"]),
    (GOOD + "execution_timeout_s: 1\n", ["key 'execution_timeout_s'", "at least 60 s per cell", "got 1"]),
    (GOOD + "llm: {max_failed_fraction: 2}\n", ["key 'llm.max_failed_fraction'", "less than or equal to 1"]),
]


@pytest.mark.parametrize("text,fragments", RANGE_BAD)
def test_out_of_range_values_fail_at_validation_in_under_a_second(tmp_path, text, fragments):
    import time

    t0 = time.perf_counter()
    with pytest.raises(config.ProfileError) as exc:
        config.load_profile(write(tmp_path, text))
    assert time.perf_counter() - t0 < 1.0
    assert "profile.yaml" in str(exc.value)
    for frag in fragments:
        assert frag in str(exc.value), str(exc.value)


def test_a_very_high_concurrency_is_accepted_with_a_warning(tmp_path):
    with pytest.warns(config.ProfileWarning, match=r"key 'llm.max_concurrency': 100000 concurrent requests"):
        prof = config.load_profile(write(tmp_path, GOOD + "llm: {max_concurrency: 100000}\n"))
    assert prof.llm.max_concurrency == 100000


def test_a_non_utf8_profile_is_named_with_the_byte(tmp_path):
    p = tmp_path / "profile.yaml"
    p.write_bytes(GOOD.replace("name: t", "name: caf\xe9").encode("latin-1"))
    with pytest.raises(config.ProfileError, match=r"profile.yaml: not UTF-8 text \(byte 9: b'\\xe9'\)"):
        config.load_profile(p)


def test_output_and_cache_folders_must_be_writable_folders(tmp_path, monkeypatch):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    ro = tmp_path / "ro"
    ro.mkdir()
    ok = tmp_path / "new" / "outputs"
    probs = config.folder_problems({"COMPANION_OUTPUTS": a_file, "COMPANION_CACHE": a_file / "cache", "ok": ok})
    assert probs == [f"COMPANION_OUTPUTS: {a_file} is a file; expected a folder",
                     f"COMPANION_CACHE: {a_file / 'cache'} cannot be created: {a_file} is a file; expected a folder"]
    ro.chmod(0o500)
    try:
        if paths.os.access(ro, paths.os.W_OK):     # root: make the permission check see a read-only folder
            monkeypatch.setattr(paths.os, "access", lambda p, mode: Path(p) != ro)
        assert config.folder_problems({"outputs": ro}) == [f"outputs: {ro} is read-only; expected a folder this "
                                                          "user can write"]
    finally:
        ro.chmod(0o700)
