"""KV-cache decoders for the state acceptance of issue "State as a
first-class, fast path": transformers' GPT-2 and LLaMA (RoPE, RMSNorm,
SwiGLU, grouped-query attention) built from their configs with random
weights, and the same networks as scripted PyTorch modules whose KV cache
and position live in registered buffers.

  .venv/bin/python decoders.py FAMILY SIZE OUT_DIR [--no-onnx] [--no-script]

FAMILY: gpt2 or llama. SIZE: `tiny` (2 layers, hidden 64: seconds, for the
tests) or `small` (GPT-2-small's shape: 12 layers, hidden 768, 12 heads,
vocabulary 50257; the LLaMA of that shape has 12 query and 4 key/value
heads and an MLP of 2048). Writes into OUT_DIR:

- `decoder.pt`: the scripted cached decoder (`CachedDecoder`). `forward(
  input_ids [1, s] int64) -> logits [1, s, vocab]` writes the s new keys
  and values into per-layer cache buffers [1, kv_heads, MAX_POSITIONS,
  head_dim] at the position buffer (slice assignment) and advances it
  (`add_`); `reset()` zeroes them (`zero_`).
- `decoder.onnx`: transformers' model exported by torch.onnx's TorchScript
  exporter at opset 17 with past/present pairs, as transformers exports
  decoders: inputs `input_ids` [1, seq], `past_key_values.<l>.key|value`
  [1, kv_heads, past, head_dim]; outputs `logits`,
  `present.<l>.key|value` [1, kv_heads, past + seq, head_dim].
- `reference.npz`: greedy decoding by transformers' own model (its
  DynamicCache): `prompt`, `tokens` [NEW_TOKENS] and `logits`
  [NEW_TOKENS, vocab], the last position's logits of each step (the
  prompt's step first).

Before writing, the script checks that the scripted decoder (eager) and the
exported graph's shapes agree with transformers: the scripted decoder's
greedy tokens must equal the reference's and its logits stay within 1e-4.

Runs under the project's .venv (torch 2.9, transformers).
"""
import logging
import math
import os
import sys
import warnings
from typing import List

import numpy as np
import torch
import torch.nn.functional as F

PROMPT = [3, 17, 5, 29, 11, 7, 2, 19]
NEW_TOKENS = 32
MAX_POSITIONS = 1024

SIZES = {
    # hidden, layers, heads, kv_heads (llama), ffn (llama), vocab
    "tiny": dict(hidden=64, layers=2, heads=4, kv_heads=2, ffn=128,
                 vocab=1000),
    "small": dict(hidden=768, layers=12, heads=12, kv_heads=4, ffn=2048,
                  vocab=50257),
}


def build_transformers(family, size, seed=0):
    """transformers' causal LM of `family` and `size`, random weights (GPT-2's
    drawn with 5x its default spread: with the default, greedy decoding
    repeats one token, which would hide a cache that is not read)."""
    import transformers as tf
    s = SIZES[size]
    torch.manual_seed(seed)
    if family == "gpt2":
        config = tf.GPT2Config(
            vocab_size=s["vocab"], n_embd=s["hidden"], n_layer=s["layers"],
            n_head=s["heads"], n_positions=MAX_POSITIONS, bos_token_id=0,
            eos_token_id=0, initializer_range=0.1)
        model = tf.GPT2LMHeadModel(config)
    elif family == "llama":
        config = tf.LlamaConfig(
            vocab_size=s["vocab"], hidden_size=s["hidden"],
            intermediate_size=s["ffn"], num_hidden_layers=s["layers"],
            num_attention_heads=s["heads"],
            num_key_value_heads=s["kv_heads"],
            max_position_embeddings=MAX_POSITIONS, bos_token_id=0,
            eos_token_id=0, tie_word_embeddings=False)
        model = tf.LlamaForCausalLM(config)
    else:
        sys.exit(f"decoders: unknown family '{family}' (gpt2, llama)")
    model.config._attn_implementation = "eager"
    return model.eval()


def reference_greedy(model, prompt=PROMPT, new_tokens=NEW_TOKENS):
    """Greedy decoding with transformers' model and its own KV cache:
    (tokens [new_tokens] int64, logits [new_tokens, vocab] float32)."""
    tokens, logits = [], []
    ids = torch.tensor([prompt])
    past = None
    with torch.no_grad():
        for _ in range(new_tokens):
            out = model(input_ids=ids, past_key_values=past, use_cache=True)
            past = out.past_key_values
            last = out.logits[0, -1]
            logits.append(last.numpy().copy())
            tokens.append(int(last.argmax()))
            ids = torch.tensor([[tokens[-1]]])
    return np.array(tokens, np.int64), np.stack(logits)


class KVCache(torch.nn.Module):
    """One layer's keys and values, [1, kv_heads, MAX_POSITIONS, head_dim]
    buffers written at the run-time position and read up to it."""

    def __init__(self, kv_heads: int, head_dim: int):
        super().__init__()
        shape = (1, kv_heads, MAX_POSITIONS, head_dim)
        self.register_buffer("keys", torch.zeros(shape))
        self.register_buffer("values", torch.zeros(shape))

    def forward(self, k, v, p: int):
        end = p + k.shape[2]
        self.keys[:, :, p:end] = k
        self.values[:, :, p:end] = v
        return self.keys[:, :, :end], self.values[:, :, :end]

    @torch.jit.export
    def reset(self):
        self.keys.zero_()
        self.values.zero_()


def attend(q, k, v, mask, groups: int):
    """Scaled dot-product attention of q [1, H, s, d] over k, v
    [1, H / groups, n, d] with an additive mask [s, n]."""
    if groups > 1:
        k = k.repeat_interleave(groups, dim=1)
        v = v.repeat_interleave(groups, dim=1)
    scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(q.shape[-1])
    return torch.matmul(torch.softmax(scores + mask, dim=-1), v)


class GPT2Block(torch.nn.Module):
    def __init__(self, block, heads: int):
        super().__init__()
        self.ln_1, self.ln_2 = block.ln_1, block.ln_2
        hidden = block.ln_1.weight.shape[0]
        # transformers' Conv1D keeps [in, out] weights.
        self.c_attn = torch.nn.Linear(hidden, 3 * hidden)
        self.c_attn.weight.data = block.attn.c_attn.weight.data.t().clone()
        self.c_attn.bias.data = block.attn.c_attn.bias.data.clone()
        self.c_proj = torch.nn.Linear(hidden, hidden)
        self.c_proj.weight.data = block.attn.c_proj.weight.data.t().clone()
        self.c_proj.bias.data = block.attn.c_proj.bias.data.clone()
        ffn = block.mlp.c_fc.weight.shape[1]
        self.fc = torch.nn.Linear(hidden, ffn)
        self.fc.weight.data = block.mlp.c_fc.weight.data.t().clone()
        self.fc.bias.data = block.mlp.c_fc.bias.data.clone()
        self.proj = torch.nn.Linear(ffn, hidden)
        self.proj.weight.data = block.mlp.c_proj.weight.data.t().clone()
        self.proj.bias.data = block.mlp.c_proj.bias.data.clone()
        self.heads = heads
        self.cache = KVCache(heads, hidden // heads)

    def forward(self, x, mask, p: int):
        s, hidden = x.shape[1], x.shape[2]
        qkv = self.c_attn(self.ln_1(x)).view(1, s, 3, self.heads,
                                             hidden // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        k, v = self.cache(k, v, p)
        a = attend(q, k, v, mask, 1).transpose(1, 2).reshape(1, s, hidden)
        x = x + self.c_proj(a)
        return x + self.proj(F.gelu(self.fc(self.ln_2(x)),
                                    approximate="tanh"))


class RMSNorm(torch.nn.Module):
    def __init__(self, norm):
        super().__init__()
        self.weight = norm.weight
        self.eps: float = norm.variance_epsilon

    def forward(self, x):
        scale = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * (x * scale)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaBlock(torch.nn.Module):
    def __init__(self, layer, heads: int, kv_heads: int):
        super().__init__()
        self.input_norm = RMSNorm(layer.input_layernorm)
        self.post_norm = RMSNorm(layer.post_attention_layernorm)
        attn, mlp = layer.self_attn, layer.mlp
        self.q, self.k, self.v, self.o = (attn.q_proj, attn.k_proj,
                                          attn.v_proj, attn.o_proj)
        self.gate, self.up, self.down = mlp.gate_proj, mlp.up_proj, \
            mlp.down_proj
        self.heads, self.kv_heads = heads, kv_heads
        self.cache = KVCache(kv_heads, attn.head_dim)

    def forward(self, x, mask, cos, sin, p: int):
        s = x.shape[1]
        h = self.input_norm(x)
        q = self.q(h).view(1, s, self.heads, -1).transpose(1, 2)
        k = self.k(h).view(1, s, self.kv_heads, -1).transpose(1, 2)
        v = self.v(h).view(1, s, self.kv_heads, -1).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k, v = self.cache(k, v, p)
        a = attend(q, k, v, mask, self.heads // self.kv_heads)
        x = x + self.o(a.transpose(1, 2).reshape(1, s, -1))
        h = self.post_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class CachedDecoder(torch.nn.Module):
    """transformers' GPT-2 or LLaMA with its KV cache and position in
    buffers; see the module docstring."""

    def __init__(self, model, family: str):
        super().__init__()
        config = model.config
        self.is_gpt2 = family == "gpt2"
        heads = config.num_attention_heads
        self.register_buffer("pos", torch.zeros((), dtype=torch.int64))
        # Additive causal mask: row i may see columns 0..i.
        self.register_buffer("causal", torch.full(
            (MAX_POSITIONS, MAX_POSITIONS), -1e9).triu(1))
        if self.is_gpt2:
            body = model.transformer
            self.embed, self.wpe, self.norm = body.wte, body.wpe, body.ln_f
            self.gpt2_blocks = torch.nn.ModuleList(
                GPT2Block(b, heads) for b in body.h)
            self.llama_blocks = torch.nn.ModuleList()
            self.register_buffer("cos", torch.zeros(0))
            self.register_buffer("sin", torch.zeros(0))
        else:
            body = model.model
            self.embed, self.norm = body.embed_tokens, RMSNorm(body.norm)
            self.wpe = torch.nn.Embedding(1, 1)
            self.gpt2_blocks = torch.nn.ModuleList()
            self.llama_blocks = torch.nn.ModuleList(
                LlamaBlock(l, heads, config.num_key_value_heads)
                for l in body.layers)
            rotary = body.rotary_emb
            positions = torch.arange(MAX_POSITIONS, dtype=torch.float32)
            freqs = positions[:, None] * rotary.inv_freq[None, :].float()
            emb = torch.cat((freqs, freqs), dim=-1)
            self.register_buffer("cos", emb.cos() * rotary.attention_scaling)
            self.register_buffer("sin", emb.sin() * rotary.attention_scaling)
        self.lm_head = model.lm_head

    def forward(self, input_ids):
        p = int(self.pos)
        s = input_ids.shape[1]
        end = p + s
        mask = self.causal[p:end, :end]
        x = self.embed(input_ids)
        if self.is_gpt2:
            x = x + self.wpe.weight[p:end].unsqueeze(0)
            for block in self.gpt2_blocks:
                x = block(x, mask, p)
        else:
            cos, sin = self.cos[p:end], self.sin[p:end]
            for block in self.llama_blocks:
                x = block(x, mask, cos, sin, p)
        self.pos.add_(s)
        return self.lm_head(self.norm(x))

    @torch.jit.export
    def reset(self):
        for block in self.gpt2_blocks:
            block.cache.reset()
        for block in self.llama_blocks:
            block.cache.reset()
        self.pos.zero_()


def greedy(step, prompt=PROMPT, new_tokens=NEW_TOKENS):
    """Greedy decoding with `step(ids [1, s] int64 ndarray) -> logits
    [1, s, vocab]`, which keeps its cache: (tokens, last-position logits)."""
    tokens, logits = [], []
    ids = np.array([prompt], np.int64)
    for _ in range(new_tokens):
        last = np.asarray(step(ids))[0, -1]
        logits.append(last.astype(np.float32))
        tokens.append(int(last.argmax()))
        ids = np.array([[tokens[-1]]], np.int64)
    return np.array(tokens, np.int64), np.stack(logits)


class PastPresent(torch.nn.Module):
    """transformers' model as a function of input_ids and the flattened
    past keys and values, returning logits and the present ones."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, past: List[torch.Tensor]):
        from transformers import DynamicCache
        cache = DynamicCache()
        for layer in range(len(past) // 2):
            cache.update(past[2 * layer], past[2 * layer + 1], layer)
        n = past[0].shape[2]
        positions = torch.arange(input_ids.shape[1]).unsqueeze(0) + n
        out = self.model(input_ids=input_ids, past_key_values=cache,
                         position_ids=positions, use_cache=True)
        present = []
        for layer in out.past_key_values.layers:
            present += [layer.keys, layer.values]
        return (out.logits, *present)


def export_onnx(model, path):
    """Exports `model` with past/present pairs (see the module docstring)."""
    config = model.config
    layers = config.num_hidden_layers
    kv_heads = getattr(config, "num_key_value_heads", None) or \
        config.num_attention_heads
    head_dim = config.hidden_size // config.num_attention_heads
    past = [torch.randn(1, kv_heads, 3, head_dim) for _ in range(2 * layers)]
    names = []
    for layer in range(layers):
        names += [f"{layer}.key", f"{layer}.value"]
    axes = {1: "seq"}
    dynamic = {"input_ids": axes, "logits": axes}
    for n in names:
        dynamic["past_key_values." + n] = {2: "past"}
        dynamic["present." + n] = {2: "total"}
    with torch.no_grad():
        torch.onnx.export(
            PastPresent(model), (torch.tensor([[1, 2]]), past), path,
            opset_version=17, dynamo=False,
            input_names=["input_ids"] + ["past_key_values." + n
                                         for n in names],
            output_names=["logits"] + ["present." + n for n in names],
            dynamic_axes=dynamic)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    family, size, out = args[:3]
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    os.makedirs(out, exist_ok=True)
    model = build_transformers(family, size)
    tokens, logits = reference_greedy(model)
    decoder = CachedDecoder(model, family).eval()
    with torch.no_grad():
        got_tokens, got_logits = greedy(
            lambda ids: decoder(torch.from_numpy(ids)).numpy())
    diff = float(np.abs(got_logits - logits).max())
    if not np.array_equal(got_tokens, tokens) or diff > 1e-4:
        sys.exit(f"decoders: the cached {family} decoder disagrees with "
                 f"transformers (tokens equal: "
                 f"{np.array_equal(got_tokens, tokens)}, logits {diff:.2g})")
    decoder.reset()
    if "--no-script" not in sys.argv:
        torch.jit.script(decoder).save(os.path.join(out, "decoder.pt"))
    if "--no-onnx" not in sys.argv:
        export_onnx(model, os.path.join(out, "decoder.onnx"))
    np.savez(os.path.join(out, "reference.npz"), prompt=np.array(PROMPT),
             tokens=tokens, logits=logits)
    print(f"{family} {size}: tokens {tokens.tolist()}, cached decoder "
          f"within {diff:.2g} of transformers")


if __name__ == "__main__":
    main()
