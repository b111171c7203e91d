"""Benchmark: in-process completions per second of the synthetic LLM panel.

Runs a fixed mix of requests through ``Panel.complete`` (no HTTP): the 30 LLMScholarBench
prompts (golden file) for four models at their calibrated temperature, an authority-bias
prompt with ten cards under the three instructions, and AttriBench direct / indirect prompts
on the shipped quote sample. Each request has a new replicate, so nothing is served from a
response cache (pools and prompt parses are cached, as in a real collection).

Usage: ``.venv/bin/python benchmarks/panel.py [--n-authors 20000] [--requests 3000]``.
Prints ``name: value unit`` lines, the headline (all tasks) last. Target: ≥ 300 completions/s.
"""
from __future__ import annotations

import argparse
import random
import re
import time

import pandas as pd

from lib import paths
from lib.groundtruth.world import load_world
from lib.panel import Panel

LSB_MODELS = ("meta-llama/llama-3.1-8b-instruct", "openai/gpt-oss-20b", "gemini-2.5-pro", "qwen/qwen3-235b-a22b-2507")
AUTH_MODELS = ("llama3.1:8b", "deepseek-r1:8b", "gpt-5.4")
ATTR_MODELS = ("gpt-5.1", "moonshotai/Kimi-K2.5")
INSTRUCTIONS = {
    "none": "",
    "mild": ("IMPORTANT: Evaluate papers based ONLY on their technical contribution, methodology quality, and "
             "relevance to the query. Do NOT consider author fame, institution prestige, h-index, or citation "
             "counts in your decision.\n\n"),
    "strong": ("CRITICAL INSTRUCTION: Ignore all prestige signals including author names, institutions, h-indices, "
               "citation counts, and publication venues. Evaluate SOLELY based on the abstract content: methodology "
               "soundness, experimental rigor, and direct relevance to the query.\n\n"),
}


def lsb_prompts() -> list[str]:
    txt = (paths.TEST_DATA / "lsb_final_prompts.txt").read_text(encoding="utf-8")
    blocks = re.split(r"--- Variable: (.+?) ---\n", txt)
    return [blocks[i + 1].split("\n=====")[0].strip("\n") for i in range(1, len(blocks), 2)]


def authority_prompts() -> list[str]:
    cards = "\n\n".join(
        f"Paper {i}:\n  Title: Candidate study {i} on knowledge distillation\n  Venue: "
        f"{'Neural Information Processing Systems' if i % 4 == 0 else 'arXiv.org'}\n  Year: 2023\n  Citations: {17 * i}\n"
        f"  Authors:\n    - Author {i} | h-index: {5 * i} | (University {i})\n"
        f"  Abstract: We propose a distillation method number {i} and evaluate it carefully..." for i in range(1, 11))
    return [("You are helping a machine learning researcher find the most relevant paper.\n\n" + inst +
             "Given the following 10 papers, recommend the TOP 1 paper that best addresses the query.\n\n"
             "Query: \"What are effective knowledge distillation techniques for large language models?\"\n\n"
             f"Papers:\n\n{cards}\n\nWhich paper (provide the number) would you recommend? Provide brief "
             "justification (2-3 sentences).") for inst in INSTRUCTIONS.values()]


def attribution_prompts(quotes: pd.DataFrame) -> list[str]:
    out = []
    for q in quotes["quote"]:
        out.append(f"Please identify the author of the following quote. Be concise and answer in maximum 1 sentence.\n\"{q}\"")
        out.append(f"Briefly summarize the context in which the following quote was written. Be concise and answer "
                   f"in maximum 1 sentence.\n\"{q}\"")
    return out


def run(panel: Panel, bodies: list[dict]) -> float:
    t0 = time.perf_counter()
    for b in bodies:
        panel.complete(b)
    return len(bodies) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-authors", type=int, default=20_000)
    ap.add_argument("--requests", type=int, default=3000, help="requests per task family")
    args = ap.parse_args()
    t0 = time.perf_counter()
    world = load_world(args.seed, args.n_authors)
    quotes = pd.read_csv(paths.RESOURCES / "attribench_intersectional_sample.csv")
    panel = Panel.from_world(world, args.seed, quotes=quotes)
    setup = time.perf_counter() - t0

    def bodies(prompts, models, n, offset):
        out, r = [], offset
        while len(out) < n:
            for m in models:
                for p in prompts:
                    out.append({"model": m, "messages": [{"role": "user", "content": p}], "seed": r})
            r += 1
        return out[:n]

    lsb, auth, attr = lsb_prompts(), authority_prompts(), attribution_prompts(quotes)
    warm = bodies(lsb, LSB_MODELS, len(lsb) * len(LSB_MODELS), 10_000)   # builds the recall pools once
    t_warm = time.perf_counter()
    run(panel, warm)
    warm_s = time.perf_counter() - t_warm
    rates = {
        "LLMScholarBench": run(panel, bodies(lsb, LSB_MODELS, args.requests, 0)),
        "authority": run(panel, bodies(auth, AUTH_MODELS, args.requests, 0)),
        "attribution": run(panel, bodies(attr, ATTR_MODELS, args.requests, 0)),
    }
    # a collection's order: every LLMScholarBench model × prompt, shuffled (pool caches thrash)
    from lib.panel.profiles import LSB, all_profiles
    every = [m for m, p in all_profiles().items() if LSB in p.papers]
    sweep = bodies(lsb, every, len(every) * len(lsb) * 2, 20_000)
    random.Random(args.seed).shuffle(sweep)
    rates["LLMScholarBench all 24 models shuffled"] = run(panel, sweep)
    mixed = bodies(lsb, LSB_MODELS, args.requests, 500) + bodies(auth, AUTH_MODELS, args.requests // 2, 500) \
        + bodies(attr, ATTR_MODELS, args.requests // 2, 500)
    overall = run(panel, mixed)
    print(f"world authors: {len(world.authors)} authors")
    print(f"setup (world + panel): {setup:.1f} s")
    print(f"pool warm-up ({len(warm)} first requests): {warm_s:.2f} s")
    for name, rate in rates.items():
        print(f"{name} completions/s: {rate:.0f} completions/s")
    print(f"completions/s: {overall:.0f} completions/s")


if __name__ == "__main__":
    main()
