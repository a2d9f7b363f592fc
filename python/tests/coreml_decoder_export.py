"""The cached decoders of decoders.py as stateful Core ML programs (iOS18
`ct.StateType`): each layer's KV cache and the position are Core ML states
that the program reads (`read_state`) and writes in place
(`slice_update`, `coreml_update_state`).

  .venv/bin/python coreml_decoder_export.py weights FAMILY OUT_DIR
  .venv-coreml/bin/python coreml_decoder_export.py convert OUT_DIR

`weights` (under .venv: torch 2.9 and transformers) builds transformers'
tiny GPT-2 or LLaMA (decoders.build_transformers) and writes into OUT_DIR:
- `weights.npz`: `decoders.CachedDecoder`'s state_dict and the config
  (`config.family`, `config.heads`, `config.kv_heads`, `config.eps`);
- `reference.npz`: greedy decoding of `decoders.PROMPT` by transformers'
  own model (`tokens`, `logits`: decoders.reference_greedy) and by the
  cached decoder with its cache rounded to fp16 as Core ML keeps it
  (`fp16_cache_tokens`, `fp16_cache_logits`).

`convert` (under .venv-coreml: coremltools 9 and torch 1.13, no
transformers) rebuilds the same network from `weights.npz` as a module that
torch.jit.trace records faithfully (`TracedDecoder`: the position is a
tensor, never a Python int, so the trace keeps it a run-time value), checks
its eager greedy decoding against `reference.npz`, traces it and converts it
with coremltools into `OUT_DIR/decoder.mlpackage`: input `input_ids`
[1, 1..64] int32, output `logits` [1, s, vocab] fp32, states
`<block>.cache.keys|values` [1, kv_heads, 1024, head_dim] and `pos` [1].
Core ML states are fp16 only (coremltools refuses others when it saves:
"State only support fp16 dtype"), so the converter casts what it reads
from a state to fp32 and what it writes back to fp16; the program computes
in fp32 (`compute_precision=FLOAT32`). The position is an fp16 state too:
integers up to 2048 are exact in fp16, the cache holds 1024.
"""
import os
import sys
import warnings

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decoders  # noqa: E402


# ---------------------------------------------------------------- weights


def write_weights(family, out):
    """Under .venv: weights.npz and reference.npz (see the docstring)."""
    import logging
    logging.disable(logging.WARNING)
    os.makedirs(out, exist_ok=True)
    model = decoders.build_transformers(family, "tiny")
    tokens, logits = decoders.reference_greedy(model)
    decoder = decoders.CachedDecoder(model, family).eval()
    config = model.config
    arrays = {k: v.detach().numpy() for k, v in decoder.state_dict().items()}
    arrays["config.family"] = np.array(family)
    arrays["config.heads"] = np.array(config.num_attention_heads)
    arrays["config.kv_heads"] = np.array(
        getattr(config, "num_key_value_heads", None)
        or config.num_attention_heads)
    arrays["config.eps"] = np.array(
        getattr(config, "rms_norm_eps", None)
        or getattr(config, "layer_norm_epsilon"), np.float64)
    np.savez(os.path.join(out, "weights.npz"), **arrays)
    # What the Core ML program computes: the same network whose cache and
    # position round-trip through fp16 states.
    net = TracedDecoder(np.load(os.path.join(out, "weights.npz")),
                        fp16_cache=True)
    with torch.no_grad():
        h_tokens, h_logits = decoders.greedy(
            lambda ids: net(torch.from_numpy(ids)).numpy())
    np.savez(os.path.join(out, "reference.npz"),
             prompt=np.array(decoders.PROMPT), tokens=tokens, logits=logits,
             fp16_cache_tokens=h_tokens, fp16_cache_logits=h_logits)
    print(f"{family}: tokens {tokens.tolist()}; with an fp16 cache the "
          f"logits move {np.abs(h_logits - logits).max():.2g}, tokens equal: "
          f"{np.array_equal(h_tokens, tokens)}")


# ---------------------------------------------------------------- network


class LayerNorm(torch.nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden))
        self.bias = torch.nn.Parameter(torch.zeros(hidden))
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x, (x.shape[-1],), self.weight, self.bias,
                            self.eps)


class RMSNorm(torch.nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        scale = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * (x * scale)


class Cache(torch.nn.Module):
    """decoders.KVCache with the position a 0-d int64 tensor."""

    def __init__(self, kv_heads, head_dim, fp16):
        super().__init__()
        shape = (1, kv_heads, decoders.MAX_POSITIONS, head_dim)
        self.register_buffer("keys", torch.zeros(shape))
        self.register_buffer("values", torch.zeros(shape))
        self.fp16 = fp16

    def forward(self, k, v, p, end):
        if self.fp16:
            k, v = k.half().float(), v.half().float()
        self.keys[:, :, p:end] = k
        self.values[:, :, p:end] = v
        return self.keys[:, :, :end], self.values[:, :, :end]


def linear(out_features, in_features, bias=True):
    return torch.nn.Linear(in_features, out_features, bias=bias)


class GPT2Block(torch.nn.Module):
    def __init__(self, hidden, ffn, heads, eps, fp16):
        super().__init__()
        self.ln_1, self.ln_2 = LayerNorm(hidden, eps), LayerNorm(hidden, eps)
        self.c_attn = linear(3 * hidden, hidden)
        self.c_proj = linear(hidden, hidden)
        self.fc, self.proj = linear(ffn, hidden), linear(hidden, ffn)
        self.heads = heads
        self.cache = Cache(heads, hidden // heads, fp16)

    def forward(self, x, mask, p, end):
        s, hidden = x.shape[1], x.shape[2]
        qkv = self.c_attn(self.ln_1(x)).view(1, s, 3, self.heads,
                                             hidden // self.heads)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        k, v = self.cache(k, v, p, end)
        a = decoders.attend(q, k, v, mask, 1).transpose(1, 2).reshape(
            1, s, hidden)
        x = x + self.c_proj(a)
        return x + self.proj(F.gelu(self.fc(self.ln_2(x)),
                                    approximate="tanh"))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaBlock(torch.nn.Module):
    def __init__(self, hidden, ffn, heads, kv_heads, eps, fp16):
        super().__init__()
        head_dim = hidden // heads
        self.input_norm = RMSNorm(hidden, eps)
        self.post_norm = RMSNorm(hidden, eps)
        self.q = linear(heads * head_dim, hidden, False)
        self.k = linear(kv_heads * head_dim, hidden, False)
        self.v = linear(kv_heads * head_dim, hidden, False)
        self.o = linear(hidden, heads * head_dim, False)
        self.gate = linear(ffn, hidden, False)
        self.up = linear(ffn, hidden, False)
        self.down = linear(hidden, ffn, False)
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.cache = Cache(kv_heads, head_dim, fp16)

    def forward(self, x, mask, cos, sin, p, end):
        s = x.shape[1]
        h = self.input_norm(x)
        q = self.q(h).view(1, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(h).view(1, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v(h).view(1, s, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k, v = self.cache(k, v, p, end)
        a = decoders.attend(q, k, v, mask, self.heads // self.kv_heads)
        x = x + self.o(a.transpose(1, 2).reshape(1, s, -1))
        h = self.post_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class TracedDecoder(torch.nn.Module):
    """decoders.CachedDecoder rebuilt from its state_dict (`weights`, the
    arrays of weights.npz) for torch.jit.trace: the position `pos` is an
    fp32 buffer of shape [1] (a Core ML state), turned into an int64 tensor
    that bounds the slices, so the trace keeps it a run-time value.
    `fp16_cache` rounds what is written to the cache to fp16, as Core ML's
    fp16 states do (eager only: the converted program rounds through its
    states; positions up to 2048 are exact in fp16)."""

    def __init__(self, weights, fp16_cache=False):
        super().__init__()
        family = str(weights["config.family"])
        heads = int(weights["config.heads"])
        kv_heads = int(weights["config.kv_heads"])
        eps = float(weights["config.eps"])
        vocab, hidden = weights["embed.weight"].shape
        self.is_gpt2 = family == "gpt2"
        prefix = "gpt2_blocks." if self.is_gpt2 else "llama_blocks."
        layers = len({k.split(".")[1] for k in weights.files
                      if k.startswith(prefix)})
        self.register_buffer("pos", torch.zeros(1))
        self.register_buffer("causal", torch.from_numpy(weights["causal"]))
        self.embed = torch.nn.Embedding(vocab, hidden)
        if self.is_gpt2:
            ffn = weights["gpt2_blocks.0.fc.weight"].shape[0]
            self.wpe = torch.nn.Embedding(decoders.MAX_POSITIONS, hidden)
            self.norm = LayerNorm(hidden, eps)
            self.blocks = torch.nn.ModuleList(
                GPT2Block(hidden, ffn, heads, eps, fp16_cache)
                for _ in range(layers))
        else:
            ffn = weights["llama_blocks.0.gate.weight"].shape[0]
            self.norm = RMSNorm(hidden, eps)
            self.blocks = torch.nn.ModuleList(
                LlamaBlock(hidden, ffn, heads, kv_heads, eps, fp16_cache)
                for _ in range(layers))
            self.register_buffer("cos", torch.from_numpy(weights["cos"]))
            self.register_buffer("sin", torch.from_numpy(weights["sin"]))
        self.lm_head = linear(vocab, hidden, False)
        state = {}
        for key in weights.files:
            if key.startswith("config.") or key == "pos":
                continue
            if key in ("cos", "sin") and self.is_gpt2:
                continue
            if key == "wpe.weight" and not self.is_gpt2:
                continue
            name = key.replace(prefix, "blocks.")
            state[name] = torch.from_numpy(np.array(weights[key]))
        self.load_state_dict(state, strict=False)
        missing = set(self.state_dict()) - set(state) - {"pos"}
        if missing:
            raise ValueError(f"weights.npz lacks {sorted(missing)}")

    def forward(self, input_ids):
        s = input_ids.shape[1]
        p = self.pos[0].long()
        end = p + s
        mask = self.causal[p:end, :end]
        x = self.embed(input_ids)
        if self.is_gpt2:
            x = x + self.wpe.weight[p:end].unsqueeze(0)
            for block in self.blocks:
                x = block(x, mask, p, end)
        else:
            cos, sin = self.cos[p:end], self.sin[p:end]
            for block in self.blocks:
                x = block(x, mask, cos, sin, p, end)
        self.pos.add_(s)
        return self.lm_head(self.norm(x))

    def reset(self):
        for block in self.blocks:
            block.cache.keys.zero_()
            block.cache.values.zero_()
        self.pos.zero_()


# ---------------------------------------------------------------- convert


def convert(out):
    """Under .venv-coreml: decoder.mlpackage (see the docstring)."""
    import logging
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    import coremltools as ct
    weights = np.load(os.path.join(out, "weights.npz"))
    reference = np.load(os.path.join(out, "reference.npz"))
    family = str(weights["config.family"])
    net = TracedDecoder(weights).eval()
    with torch.no_grad():
        tokens, logits = decoders.greedy(
            lambda ids: net(torch.from_numpy(ids)).numpy())
    diff = float(np.abs(logits - reference["logits"]).max())
    if not np.array_equal(tokens, reference["tokens"]) or diff > 1e-4:
        sys.exit(f"coreml_decoder_export: the rebuilt {family} decoder "
                 f"disagrees with transformers (tokens equal: "
                 f"{np.array_equal(tokens, reference['tokens'])}, logits "
                 f"{diff:.2g})")
    net.reset()
    with torch.no_grad():
        traced = torch.jit.trace(net, torch.tensor([decoders.PROMPT[:2]]),
                                 check_trace=False)
    net.reset()
    states = [ct.StateType(wrapped_type=ct.TensorType(
        shape=buffer.shape, dtype=np.float16), name=name)
        for name, buffer in net.named_buffers()
        if name == "pos" or ".cache." in name]
    model = ct.convert(
        traced,
        inputs=[ct.TensorType(name="input_ids",
                              shape=(1, ct.RangeDim(1, 64, default=1)),
                              dtype=np.int32)],
        outputs=[ct.TensorType(name="logits", dtype=np.float32)],
        states=states, minimum_deployment_target=ct.target.iOS18,
        compute_precision=ct.precision.FLOAT32, convert_to="mlprogram",
        skip_model_load=True)
    path = os.path.join(out, "decoder.mlpackage")
    model.save(path)
    print(f"{family}: wrote {path} (states: "
          f"{', '.join(s.name for s in states)}); the rebuilt decoder is "
          f"within {diff:.2g} of transformers")


def main():
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "weights":
        write_weights(args[1], args[2])
    elif len(args) == 2 and args[0] == "convert":
        convert(args[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
