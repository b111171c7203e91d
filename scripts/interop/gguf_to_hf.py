"""Convert the tiny GGUF (tiny_gguf.py) to a Hugging Face checkpoint folder for `transformers serve`.

    python scripts/interop/gguf_to_hf.py TINY.gguf OUT_DIR

Run with the transformers interop environment's python. transformers reads the GGUF's weights
and tokenizer itself; the folder adds what a GGUF-derived config lacks (``architectures``) and a
plain chat template (the GGUF carries none), so the server can load and prompt it.
"""
from __future__ import annotations

import sys
from pathlib import Path

from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaForCausalLM

CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>{% endif %}")


def main(argv=None) -> int:
    gguf, out = (argv or sys.argv[1:])[:2]
    src = Path(gguf)
    loaded = AutoModelForCausalLM.from_pretrained(src.parent, gguf_file=src.name)
    # a model loaded from GGUF counts as quantized and will not save: the same weights, unquantized
    cfg = loaded.config
    if hasattr(cfg, "quantization_config"):
        del cfg.quantization_config
    cfg.architectures = ["LlamaForCausalLM"]
    model = LlamaForCausalLM(cfg)
    model.load_state_dict(loaded.state_dict())
    tok = AutoTokenizer.from_pretrained(src.parent, gguf_file=src.name)
    tok.chat_template = CHAT_TEMPLATE
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
