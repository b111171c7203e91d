"""LLMScholarBench behaviour: lists of scholars recalled from the world (panel.md "LLMScholarBench").

One attempt is generated in four steps, all from the request's generators:

1. outcome: valid with probability q(T) (per attempt); an invalid attempt is a full refusal
   with probability ψ, else a placeholder echo, an empty array, prose without a list or
   unrecoverable JSON. Refusal language (the keyword rule of reference §2.4) is present in
   every full refusal and with probability ρ' elsewhere, so the attempt-level rate is ρ(T).
2. list: a stable core list per (model, prompt, temperature) drawn from the *core* generator
   (no replicate / attempt in its seed); each run keeps a core entry with probability κ(T)
   and redraws the others. An entry is a real author with the real share f(T)/(1 − typo
   share) (else a hallucinated recombined name, mostly with a blended surname absent from the
   world); real authors come from the task's pool with the task
   accuracy (field / epoch window / seniority), from the anchor's neighbourhood for real
   twins, from the requested group for constrained prompts (compliance share).
3. surface: real names rendered as display name or, with the variant rate, as initials,
   without middle name, an alternative form or with a surname typo; a kept core entry keeps
   the core's rendering (the core generator), so kept names are the same strings in every run;
   a share of positions (the duplicate rate) repeat another entry of the list.
4. form: clean JSON, verbose (preamble, fences, note), recoverable malformed JSON (wrapper
   object, truncated list, the misspelled key "Nime" the reference repairs), and for reasoning
   models a reasoning trace (``message.reasoning``; Gemini returns none).
"""
from __future__ import annotations

import json
from collections import OrderedDict

import numpy as np

from lib.panel import calibration as cal
from lib.panel import composition, latent, texts
from lib.panel.profiles import ModelProfile, all_profiles
from lib.panel.prompts import Task
from lib.panel.world import YEAR_NOW, AuthorIndex

#: Intended refusal reason mix per task group (panel design; reference §3.3 shows baseline
#: refusals are ~95 % contradictory-like, constrained prompts add ~25 % unethical).
FAMILY_MIX = {
    "baseline": {"Contradictory request": 0.80, "Lack of information": 0.15, "Other or no explanation": 0.05},
    "twins_fake": {"Contradictory request": 0.90, "Lack of information": 0.08, "Other or no explanation": 0.02},
    "twins_real": {"Lack of information": 0.60, "Contradictory request": 0.35, "Other or no explanation": 0.05},
    "cp_identity": {"Unethical request": 0.60, "Contradictory request": 0.30, "Lack of information": 0.05,
                    "Other or no explanation": 0.05},
    "cp_other": {"Contradictory request": 0.60, "Lack of information": 0.30, "Unethical request": 0.05,
                 "Other or no explanation": 0.05},
}
POOL_SETS_CACHED = 512   # (model, task) pool sets kept; ≤ 0.4 MB per pool (30 000 cap)
INVALID_FORMS = latent.INVALID_FORMS
MALFORMED_FORMS = ("wrapper", "truncated", "misspelled")


def task_group(param: str) -> str:
    if param.startswith(("fictitious", "movie", "politic")):
        return "twins_fake"
    if param.startswith(("famous", "random", "twin")):
        return "twins_real"
    if param.startswith("top_") and "_bias_" in param:
        return "cp_identity" if ("gender" in param or "ethnicity" in param) and "equal" not in param else "cp_other"
    return "baseline"


def _choice(rng: np.random.Generator, options) -> str:
    return options[int(rng.integers(len(options)))]


def _weighted(rng: np.random.Generator, mix: dict) -> str:
    keys = list(mix)
    p = np.array([mix[k] for k in keys], dtype=float)
    return keys[int(np.searchsorted(np.cumsum(p / p.sum()), rng.random(), side="right").clip(0, len(keys) - 1))]


class ScholarBehaviour:
    def __init__(self, index: AuthorIndex, seed: int):
        self.index, self.seed = index, seed
        self._cal: dict[str, tuple[float, float]] = {}
        self._skews: dict[str, composition.GenderSkew] = {}
        self._map: tuple[float, float] | None = None
        self._lw: dict[tuple, np.ndarray] = {}
        self._masks: dict[tuple, np.ndarray] = {}
        self._pool_sets: OrderedDict[tuple, tuple] = OrderedDict()

    # ---- latent per model --------------------------------------------------------------------------
    def _skew(self, model: str) -> composition.GenderSkew:
        """The model's expected list parity as a function of γ_F (at β solved for γ_F = 0)."""
        if model not in self._skews:
            lat = latent.lsb_models(self.seed)[model]
            lists = composition.ListParity(*composition.baseline_lists(self.seed, model),
                                           seed=latent.seed_int(self.seed, "list-parity", model))
            beta0 = self.index.calibrate_beta(lat.par_cit_target, 0.0, lat.gamma_nonwhite)
            self._skews[model] = composition.GenderSkew(self.index, beta0, lat.gamma_nonwhite, lists)
        return self._skews[model]

    def parity_map(self) -> tuple[float, float]:
        """(a, s): gender-parity targets are a + s · published par_g, within every published
        model's reach in this world (:func:`lib.panel.composition.reachable_targets`)."""
        if self._map is None:
            lsb = latent.lsb_models(self.seed)
            models = cal.lsb_models_with_published_rows()
            self._map = composition.reachable_targets({m: lsb[m].par_gender_target for m in models},
                                                      {m: self._skew(m).floor for m in models},
                                                      {m: self._skew(m).peak for m in models})
        return self._map

    def _calibrated(self, model: str) -> tuple[float, float]:
        """(β, γ_F) of the model in this world (cached): γ_F gives the expected list-level gender
        parity its target (:meth:`parity_map`), then β the recall's citation-prominence parity
        its published par_cit. A grounded configuration keeps its base model's γ_F shifted by
        the RAG prior."""
        if model not in self._cal:
            lat = latent.lsb_models(self.seed)[model]
            prof = all_profiles()[model]
            if prof.grounded:
                gamma_f = self._calibrated(prof.api_model)[1] + cal.PRIORS["rag_gender_skew_shift"]
            else:
                a, s = self.parity_map()
                gamma_f = self._skew(model).solve(a + s * lat.par_gender_target)
            self._cal[model] = (self.index.calibrate_beta(lat.par_cit_target, gamma_f, lat.gamma_nonwhite), gamma_f)
        return self._cal[model]

    def beta(self, model: str) -> float:
        """Prominence exponent β: the population-level citation-prominence parity of the model's
        recall equals its published par_cit (world-dependent)."""
        return self._calibrated(model)[0]

    def gamma_female(self, model: str) -> float:
        """Log-odds multiplier γ_F of authors whose name does not read as male in the model's
        recall (world-dependent, solved for the model's published gender parity)."""
        return self._calibrated(model)[1]

    def _log_w(self, model: str, female_shift: float = 0.0) -> np.ndarray:
        """Log recall weights; a prompt that raises the names that read as female (the "diverse"
        prompt) gets its own β, so that it changes gender only, not the citation profile or the
        ethnicity mix (App. C.3 "only gender")."""
        key = (model, female_shift)
        if key not in self._lw:
            lat = latent.lsb_models(self.seed)[model]
            beta, gamma_f = self._calibrated(model)
            if female_shift:
                beta = self.index.calibrate_beta(lat.par_cit_target, gamma_f, lat.gamma_nonwhite, female_shift)
            self._lw[key] = self.index.log_weights(beta, gamma_f, lat.gamma_nonwhite, female_shift)
            self.index.register_order(self._lw[key])
        return self._lw[key]

    # ---- pools ---------------------------------------------------------------------------------------
    def _anchor(self, task: Task) -> int | None:
        ix = self.index
        if not task.param.startswith(("famous", "random", "twin_unknown")):
            return None
        order = ix.by_citations
        h = latent.seed_int("twin-anchor", task.detail.get("twin", task.param))
        if task.param.startswith("famous"):
            band = order[: max(5, min(50, ix.n // 100))]
        else:
            band = order[int(0.2 * ix.n): max(int(0.5 * ix.n), int(0.2 * ix.n) + 1)]
        return int(band[h % len(band)])

    def pools(self, model: str, task: Task):
        """(in-task pool, out-of-task pool or None, extra pools for 'equal' constraints), cached."""
        key = (model, task.family, task.param, task.detail.get("twin"), task.detail.get("start"),
               task.detail.get("end"), task.detail.get("field"), task.detail.get("constraint"))
        hit = self._pool_sets.get(key)
        if hit is None:
            hit = self._pool_sets[key] = self._make_pools(model, task)
            if len(self._pool_sets) > POOL_SETS_CACHED:   # bounded memory: least recently used out
                self._pool_sets.popitem(last=False)
        else:
            self._pool_sets.move_to_end(key)
        return hit

    def _mask(self, key: tuple, make) -> np.ndarray:
        """Model-independent task masks, computed once per index."""
        m = self._masks.get(key)
        if m is None:
            m = self._masks[key] = make()
        return m

    def _make_pools(self, model: str, task: Task):
        ix, p = self.index, task.param
        lw = self._log_w(model)
        general = ix.pool((model, "all"), None, lw)
        fam = task.family
        if fam in ("field", "epoch", "seniority"):
            if fam == "field":
                key = ("field", task.detail.get("field", p))
                make = lambda: ix.field == key[1]  # noqa: E731
            elif fam == "epoch":
                y0 = int(task.detail.get("start", 2000))
                key = ("epoch", y0, int(task.detail.get("end", y0 + 10)))
                make = lambda: ~((ix.end < key[1]) | (ix.start > key[2]))  # noqa: E731
            else:
                key = ("seniority", p)
                make = lambda: (YEAR_NOW - ix.start + 1 <= 10) if p == "early_career" else (YEAR_NOW - ix.start + 1 >= 20)  # noqa: E731
            m = self._mask(key, make)
            # out-of-task draws: the general pool with in-task authors rejected (no second pool)
            return ix.pool((model,) + key, m, lw), (*general, m), None
        if fam == "twins":
            a = self._anchor(task)
            if a is None:
                return general, None, None
            lw_t = lw - ((np.log1p(ix.h) - np.log1p(ix.h[a])) / 0.5) ** 2
            co = ix.coauthors(a)
            if co.size:
                lw_t = lw_t.copy()
                lw_t[co] += 2.0
            m = ix.field == ix.field[a]
            m[a] = False
            return ix.pool((model, "twin", a), m, lw_t), general, None
        if fam == "biased_top_k":
            c = task.detail.get("constraint", "")
            if c == "diverse":
                lw_d = self._log_w(model, cal.PRIORS["cp_diverse_gender_shift"])
                return ix.pool((model, "diverse"), None, lw_d), None, None
            if c == "gender_equal":
                return general, general, [ix.pool((model, "g", 1), ix.female, lw),
                                          ix.pool((model, "g", 0), self._mask(("male",), lambda: ~ix.female), lw)]
            if c == "ethnicity_equal":
                return general, general, [ix.pool((model, "e", k), self._mask(("eth", k), lambda k=k: ix.eth == k), lw)
                                          for k in range(4)]
            masks = {"gender_female": lambda: ix.female, "gender_male": lambda: ~ix.female,
                     "gender_neutral": ix.is_neutral_first, "ethnicity_asian": lambda: ix.eth == 0,
                     "ethnicity_black": lambda: ix.eth == 1, "ethnicity_latino": lambda: ix.eth == 2,
                     "ethnicity_white": lambda: ix.eth == 3, "citations_high": lambda: ix.cites > 1000,
                     "citations_low": lambda: ix.cites < 1000}
            if c in masks:
                return ix.pool((model, "cp", c), self._mask(("cp", c), masks[c]), lw), general, None
        return general, None, None

    # ---- entries -------------------------------------------------------------------------------------
    def _hallucinate(self, rng: np.random.Generator, lat) -> str:
        ix = self.index
        for _ in range(6):
            first = _choice(rng, ix.first_names(rng.random() < 0.3))
            if rng.random() < lat.blended_hallucination:
                a, b = _choice(rng, ix.last_names), _choice(rng, ix.last_names)
                last = (a[: max(2, len(a) // 2)] + b[len(b) // 2:]).capitalize()
            else:
                last = _choice(rng, ix.last_names)
            if not ix.exists(first, last):
                return f"{first} {last}"
        return f"{first} {last}"

    def _fill(self, rng, lat, params, pools, slots: list[int], exclude: set) -> list[tuple]:
        """Entries for the given list slots: hallucinated with 1 − f, else real from the pool the
        task sends this slot to; all real draws of one pool are made together (distinct authors)."""
        in_pool, out_pool, equal = pools
        n = len(slots)
        fake = rng.random(n) >= params["real_share"]
        u = rng.random(n)
        acc = params["task_accuracy"]
        compliance = cal.PRIORS["cp_compliance"]
        choice = []
        for i, slot in enumerate(slots):
            if fake[i]:
                choice.append(None)
            elif equal:
                choice.append(equal[slot % len(equal)] if u[i] < compliance else out_pool)
            elif out_pool is None:
                choice.append(in_pool)
            elif acc == acc:             # restricted task: in-task with the task accuracy
                choice.append(in_pool if u[i] < acc else out_pool)
            elif params["family"] == "biased_top_k":
                choice.append(in_pool if u[i] < compliance else out_pool)
            else:                        # real twins: the anchor's neighbourhood most of the time
                choice.append(in_pool if u[i] < 0.8 else out_pool)
        out: list[tuple | None] = [None] * n
        seen = set(exclude)
        for pool in {id(c): c for c in choice if c is not None}.values():
            want = [i for i, c in enumerate(choice) if c is pool]
            got = self.index.draw(rng, pool, len(want), seen)
            seen.update(got)
            for i, g in zip(want, got):
                out[i] = ("real", g)
        return [e if e is not None else ("fake", self._hallucinate(rng, lat)) for e in out]

    def entries(self, model: str, task: Task, params: dict, core_rng, run_rng) -> tuple[list[tuple], list]:
        """One run's list: the core entries it keeps (κ) and redraws for the others, then duplicates.

        Returns the entries and, per position, the name as the core writes it (None where the run
        redrew or duplicated the position): a kept entry keeps its surface form too, so a run that
        keeps κ of the core shares those names with the next run, as the consistency calibration
        (:func:`lib.panel.latent.lsb_task`, κ² = 2C/(1 + C)) assumes. Rendering a kept name anew in
        every run made it a variant in one run and not the next (variant rate 5-20 %), and measured
        consistency came out about 15 % under the published values."""
        lat = latent.lsb_models(self.seed)[model]
        pools = self.pools(model, task)
        n = latent.list_length(lat, task.family, int(task.detail.get("k", 100)))
        core = self._fill(core_rng, lat, params, pools, list(range(n)), set())
        core_names = [self._name(core_rng, e, lat) for e in core]      # the same in every run
        keep = run_rng.random(n) < params["kappa"]
        redraw = [i for i in range(n) if not keep[i]]
        fresh = self._fill(run_rng, lat, params, pools, redraw, {e[1] for e in core if e[0] == "real"})
        run = list(core)
        surface = [core_names[i] if keep[i] else None for i in range(n)]
        for i, e in zip(redraw, fresh):
            run[i] = e
        # duplicates: a share of positions repeat another (non-duplicated) entry of the list
        dup = run_rng.random(len(run)) < params["duplicate_rate"]
        dup[0] = False
        keep = np.flatnonzero(~dup)
        for i in np.flatnonzero(dup).tolist():
            run[i] = run[int(keep[int(run_rng.integers(len(keep)))])]
            surface[i] = None
        return run, surface

    # ---- rendering -------------------------------------------------------------------------------------
    def _name(self, rng, e, lat) -> str:
        if e[0] == "fake":
            return e[1]
        ix, p = self.index, e[1]
        name = ix.display[p]
        if rng.random() < lat.variant_rate:   # four variant kinds, equally likely
            first, middle, last = ix.first[p], ix.middle[p], ix.last[p]
            kind = int(rng.integers(4))
            alt = ix.alt[p]
            if kind == 0 and first:
                return f"{first[0]}. {last}"
            if kind == 1 and middle:
                return f"{first} {last}"
            if kind == 2 and isinstance(alt, (list, tuple, np.ndarray)) and len(alt):
                return str(alt[int(rng.integers(len(alt)))])
            if kind == 3 and len(last) >= 5:
                j = int(rng.integers(1, len(last) - 2))
                return f"{first} {last[:j] + last[j + 1] + last[j] + last[j + 2:]}".strip()
        return name

    def _extra(self, rng, e, key: str, task: Task) -> str:
        ix = self.index
        if key == "Years":
            y0 = int(task.detail.get("start", 2000))
            if e[0] == "real" and rng.random() < 0.7:
                return f"{ix.start[e[1]]}-{ix.end[e[1]]}"
            s = y0 + int(rng.integers(-5, 6))
            return f"{s}-{s + int(rng.integers(5, 25))}"
        if key == "Career Age":
            if e[0] == "real":
                return str(max(1, YEAR_NOW - int(ix.start[e[1]]) + 1 + int(rng.integers(-3, 4))))
            return str(int(rng.integers(3, 10)) if task.param == "early_career" else int(rng.integers(20, 46)))
        if key == "DOI":
            if e[0] == "real":
                dois = ix.dois(e[1])
                if dois:
                    in_field = [d for d, f in dois if f == task.detail.get("field")]
                    pick = in_field if in_field and rng.random() < 0.8 else [d for d, _ in dois]
                    return pick[int(rng.integers(len(pick)))]
            j = _choice(rng, ("B", "Lett", "A", "D", "E"))
            return f"10.1103/PhysRev{j}.{int(rng.integers(1, 110))}.{int(rng.integers(0, 999999)):06d}"
        return ""

    def _items(self, rng, run, lat, task: Task, surface: list) -> list[dict]:
        """The list's JSON items; ``surface``: the kept core names (None: render with ``rng``)."""
        keys = task.detail.get("keys", ("Name",))
        items = []
        for e, name in zip(run, surface):
            item = {"Name": name if name is not None else self._name(rng, e, lat)}
            for k in keys[1:]:
                item[k] = self._extra(rng, e, k, task)
            items.append(item)
        return items

    @staticmethod
    def _json(items, rng) -> str:
        return json.dumps(items, ensure_ascii=False, indent=2 if rng.random() < 0.5 else None)

    def _valid_text(self, rng, items, lat, hedge_in_content: bool) -> tuple[str, str]:
        form, text = self._valid_form(rng, items, lat, hedge_in_content)
        if hedge_in_content and form != "verbose":
            text = _choice(rng, texts.PREAMBLE_HEDGE) + "\n\n" + text
        return form, text

    def _valid_form(self, rng, items, lat, hedge_in_content: bool) -> tuple[str, str]:
        if rng.random() < lat.malformed_share:
            form = _choice(rng, MALFORMED_FORMS)
            if form == "wrapper":
                return form, json.dumps({"Scientists": items}, ensure_ascii=False, indent=2)
            if form == "truncated" and len(items) >= 2:
                full = json.dumps(items, ensure_ascii=False)
                cut = full.rfind("{") + int(rng.integers(3, 9))
                return form, full[:cut]
            if form == "misspelled":
                bad = [dict(it) for it in items]
                j = int(rng.integers(len(bad)))
                bad[j] = {("Nime" if k == "Name" else k): v for k, v in bad[j].items()}
                return form, json.dumps(bad, ensure_ascii=False)
        if hedge_in_content or rng.random() < lat.verbose_share:
            pre = _choice(rng, texts.PREAMBLE_HEDGE if hedge_in_content else texts.PREAMBLE_PLAIN)
            note = _choice(rng, texts.NOTE_PLAIN)
            body = json.dumps(items, ensure_ascii=False, indent=2)
            return "verbose", f"{pre}\n\n```json\n{body}\n```\n\n{note}".rstrip()
        return "clean", self._json(items, rng)

    def _invalid_text(self, rng, items, task: Task) -> tuple[str, str]:
        form = _weighted(rng, INVALID_FORMS)
        if form == "placeholder":
            keys = task.detail.get("keys", ("Name",))
            n = max(3, min(len(items), 10))
            # the prompt's example echoed with its "..." (not JSON; the reference's repair then finds
            # only "Scientist …" names and labels the attempt invalid)
            ph = [json.dumps({"Name": f"Scientist {i + 1}", **{k: "YYYY-YYYY" if k == "Years" else "##"
                                                              for k in keys[1:]}}) for i in range(n)]
            return form, "[" + ", ".join(ph[:3]) + ", ..., " + ph[-1] + "]"
        if form == "empty":
            return form, "[]"
        if form == "nonsense":
            return form, _choice(rng, texts.NONSENSE)
        names = ", ".join("{Name: " + it["Name"] + "}" for it in items[:8]) or "{Name: }"
        return "broken", "[" + names + ", {Name: "

    def refusal_text(self, rng, task: Task) -> tuple[str, str]:
        family = _weighted(rng, FAMILY_MIX[task_group(task.param)])
        twin = task.detail.get("twin")
        # "{name} is not a physicist" only makes sense for fake twins; real twins get name-free texts
        # or the lack-of-information texts that name them
        named_ok = twin and (task_group(task.param) == "twins_fake" or family != "Contradictory request")
        options = [t for t in texts.REFUSALS[family] if named_ok or "{name}" not in t]
        group = task.param.split("_")[0]
        descr = texts.TWIN_DESCR.get(group, texts.TWIN_DESCR["other"])
        return family, _choice(rng, options).format(name=twin or "", descr=descr)

    # ---- one attempt ------------------------------------------------------------------------------------
    def answer(self, profile: ModelProfile, task: Task, temperature: float, core_rng, run_rng) -> dict:
        params = latent.lsb_task(self.seed, profile.id, task.param, round(float(temperature), 4))
        lat = latent.lsb_models(self.seed)[profile.id]
        has_trace = profile.reasoning and profile.provider != "gemini"
        valid = run_rng.random() < params["q"]
        full_refusal = (not valid) and run_rng.random() < params["refusal_form_share"]
        refusal_language = full_refusal or run_rng.random() < params["refusal_language_other"]
        run, surface = self.entries(profile.id, task, params, core_rng, run_rng)
        items = self._items(run_rng, run, lat, task, surface)
        family = None
        if full_refusal:
            family, content = self.refusal_text(run_rng, task)
            form = "refusal"
        elif valid:
            form, content = self._valid_text(run_rng, items, lat, refusal_language and not has_trace)
        else:
            form, content = self._invalid_text(run_rng, items, task)
            if refusal_language and not has_trace:
                content = _choice(run_rng, texts.PREAMBLE_HEDGE) + "\n\n" + content
        reasoning = None
        if has_trace:
            crit = task.detail.get("criteria", "the criteria")
            pool = texts.TRACE_HEDGE if refusal_language else texts.TRACE_PLAIN
            reasoning = _choice(run_rng, pool).format(criteria=crit)
            if full_refusal:
                reasoning += " " + content
        meta = {"task": "lsb", "family": task.family, "param": task.param, "valid_intended": bool(valid),
                "form": form, "refusal_language": bool(refusal_language), "refusal_family": family,
                "n_names": len(run), "n_real": sum(e[0] == "real" for e in run),
                "real_positions": [int(e[1]) for e in run if e[0] == "real"],
                "names": [it["Name"] for it in items]}
        return {"content": content, "reasoning": reasoning, "meta": meta}
