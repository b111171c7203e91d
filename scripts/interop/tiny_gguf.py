"""Write a tiny random-weight llama-architecture GGUF for the interop tests (issue 26).

    python scripts/interop/tiny_gguf.py OUT.gguf [--seed 0] [--n-ctx 8192]

Run with the interop environment's python (scripts/interop/setup.sh llama: it has the ``gguf``
package). No weights from a hub: two transformer blocks of width 64 drawn from N(0, 0.02) with a
fixed seed, and a SentencePiece-style ("llama") vocabulary of the 256 byte tokens, <unk>, <s>,
</s>, the printable ASCII characters and "▁"+letter pieces, so any UTF-8 text tokenizes (byte
fallback). The answers are random text: the tests check the round trip, not the words.
"""
from __future__ import annotations

import argparse
import string

import numpy as np
from gguf import GGUFWriter, TokenType

N_EMBD, N_HEAD, N_FF, N_LAYER = 64, 4, 128, 2


def vocabulary() -> tuple[list[str], list[float], list[int]]:
    """Tokens, scores (longer pieces merge first) and types of the byte-fallback vocabulary."""
    toks = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL] + [TokenType.BYTE] * 256
    pieces = ["▁"] + [c for c in string.printable[:94]] + ["▁" + c for c in string.ascii_letters]
    toks += pieces
    types += [TokenType.NORMAL] * len(pieces)
    scores = [0.0] * 259 + [-float(len(p) == 1) for p in pieces]
    return toks, scores, [int(t) for t in types]


def write(path: str, seed: int = 0, n_ctx: int = 8192) -> None:
    rng = np.random.default_rng(seed)
    toks, scores, types = vocabulary()
    n_vocab = len(toks)

    def w(*shape):  # numpy (rows, cols) = ggml (cols, rows): a weight maps cols -> rows
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    g = GGUFWriter(path, "llama")
    g.add_name("interop-tiny-random")
    g.add_file_type(0)                                   # all F32
    g.add_context_length(n_ctx)
    g.add_embedding_length(N_EMBD)
    g.add_block_count(N_LAYER)
    g.add_feed_forward_length(N_FF)
    g.add_head_count(N_HEAD)
    g.add_head_count_kv(N_HEAD)
    g.add_rope_dimension_count(N_EMBD // N_HEAD)
    g.add_layer_norm_rms_eps(1e-5)
    g.add_vocab_size(n_vocab)
    g.add_tokenizer_model("llama")
    g.add_token_list(toks)
    g.add_token_scores(scores)
    g.add_token_types(types)
    g.add_unk_token_id(0)
    g.add_bos_token_id(1)
    g.add_eos_token_id(2)
    g.add_tensor("token_embd.weight", w(n_vocab, N_EMBD))
    for i in range(N_LAYER):
        b = f"blk.{i}."
        g.add_tensor(b + "attn_norm.weight", np.ones(N_EMBD, np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            g.add_tensor(b + name + ".weight", w(N_EMBD, N_EMBD))
        g.add_tensor(b + "ffn_norm.weight", np.ones(N_EMBD, np.float32))
        g.add_tensor(b + "ffn_gate.weight", w(N_FF, N_EMBD))
        g.add_tensor(b + "ffn_up.weight", w(N_FF, N_EMBD))
        g.add_tensor(b + "ffn_down.weight", w(N_EMBD, N_FF))
    g.add_tensor("output_norm.weight", np.ones(N_EMBD, np.float32))
    g.add_tensor("output.weight", w(n_vocab, N_EMBD))
    g.write_header_to_file()
    g.write_kv_data_to_file()
    g.write_tensors_to_file()
    g.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-ctx", type=int, default=8192)
    a = ap.parse_args(argv)
    write(a.out, a.seed, a.n_ctx)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
