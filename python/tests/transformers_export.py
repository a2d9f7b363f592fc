"""Exports a small transformer of one family from Hugging Face
`transformers` to ONNX with dynamic axes, and PyTorch's outputs for it.

  .venv/bin/python transformers_export.py FAMILY EXPORTER OUT_DIR

FAMILY: bert, distilbert, gpt2, llama (RoPE, RMSNorm, SwiGLU, grouped-query
attention: 4 query heads, 2 key/value heads), t5 (the encoder), vit,
whisper (the encoder). Each is built from its config with random weights
(seed 0, nothing downloaded): hidden size 64, 2 layers, 4 heads, so that a
test exports, imports and runs it in seconds. The attention is the
`eager` implementation (the SDPA one was not tried).

EXPORTER: `legacy17` (torch.onnx.export(dynamo=False), opset 17, batch and
sequence axes dynamic through dynamic_axes) or `dynamo18` (torch 2.x's
default exporter, torch.export with Dim.AUTO on the same axes; it writes
opset 18 and IR 10).

Writes OUT_DIR/model.onnx and OUT_DIR/reference.npz: for batch 1 and 3
(text models: sequence 16 and 7; ViT: 32x32 images; Whisper: 16 mel bins
x 64 frames, its fixed length) the inputs `b<N>_in<i>` and PyTorch's
`b<N>_out` (last_hidden_state, float32). Runs under the project's .venv
(torch 2.9, transformers; scripts/requirements/transformers.txt).
"""
import logging
import os
import sys
import warnings

import numpy as np
import torch
import transformers as tf

VOCAB = 1000
SIZES = dict(hidden=64, layers=2, heads=4, ffn=128)


def build(family):
    """The model, its kind (text, image, audio) and its input names."""
    h, n, a, f = (SIZES[k] for k in ("hidden", "layers", "heads", "ffn"))
    text = ("text", ["input_ids", "attention_mask"])
    if family == "bert":
        return tf.BertModel(tf.BertConfig(
            vocab_size=VOCAB, hidden_size=h, num_hidden_layers=n,
            num_attention_heads=a, intermediate_size=f,
            max_position_embeddings=128)), *text
    if family == "distilbert":
        return tf.DistilBertModel(tf.DistilBertConfig(
            vocab_size=VOCAB, dim=h, n_layers=n, n_heads=a, hidden_dim=f,
            max_position_embeddings=128)), *text
    if family == "gpt2":
        return tf.GPT2Model(tf.GPT2Config(
            vocab_size=VOCAB, n_embd=h, n_layer=n, n_head=a, n_positions=128,
            bos_token_id=0, eos_token_id=0)), *text
    if family == "llama":
        return tf.LlamaModel(tf.LlamaConfig(
            vocab_size=VOCAB, hidden_size=h, intermediate_size=f,
            num_hidden_layers=n, num_attention_heads=a, num_key_value_heads=2,
            max_position_embeddings=128)), *text
    if family == "t5":
        return tf.T5EncoderModel(tf.T5Config(
            vocab_size=VOCAB, d_model=h, d_kv=h // a, d_ff=f, num_layers=n,
            num_heads=a)), *text
    if family == "vit":
        return tf.ViTModel(tf.ViTConfig(
            hidden_size=h, num_hidden_layers=n, num_attention_heads=a,
            intermediate_size=f, image_size=32, patch_size=8)), "image", \
            ["pixel_values"]
    if family == "whisper":
        return tf.WhisperModel(tf.WhisperConfig(
            vocab_size=VOCAB, d_model=h, encoder_layers=n,
            encoder_attention_heads=a, decoder_layers=1,
            decoder_attention_heads=a, encoder_ffn_dim=f, decoder_ffn_dim=f,
            num_mel_bins=16, max_source_positions=32, pad_token_id=0,
            bos_token_id=1, eos_token_id=2,
            decoder_start_token_id=1)).encoder, "audio", ["input_features"]
    sys.exit(f"transformers_export: unknown family '{family}'")


class TextModel(torch.nn.Module):
    """last_hidden_state of a text model from input_ids and attention_mask."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        extra = {} if isinstance(self.model, (tf.DistilBertModel,
                                              tf.T5EncoderModel)) \
            else {"use_cache": False}
        return self.model(input_ids=input_ids, attention_mask=attention_mask,
                          **extra).last_hidden_state


class OneInputModel(torch.nn.Module):
    """last_hidden_state of a model with one input (`name`)."""

    def __init__(self, model, name):
        super().__init__()
        self.model, self.name = model, name

    def forward(self, x):
        return self.model(**{self.name: x}).last_hidden_state


def make_inputs(kind, batch, seq, rng):
    if kind == "text":
        ids = rng.integers(0, VOCAB, (batch, seq), dtype=np.int64)
        mask = np.ones((batch, seq), np.int64)
        mask[-1, seq - 2:] = 0  # a padded row: the mask matters
        return [ids, mask]
    if kind == "image":
        return [rng.standard_normal((batch, 3, 32, 32)).astype(np.float32)]
    return [rng.standard_normal((batch, 16, 64)).astype(np.float32)]


def main():
    family, exporter, out = sys.argv[1:4]
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model, kind, names = build(family)
    model.config._attn_implementation = "eager"
    model.eval()
    wrapper = (TextModel(model) if kind == "text" else
               OneInputModel(model, names[0])).eval()
    rng = np.random.default_rng(0)
    cases = {1: make_inputs(kind, 1, 16, rng), 3: make_inputs(kind, 3, 7, rng)}
    example = tuple(torch.from_numpy(a) for a in cases[3])
    axes = {0: "batch", 1: "seq"} if kind == "text" else {0: "batch"}
    path = os.path.join(out, "model.onnx")
    with torch.no_grad():
        if exporter == "legacy17":
            torch.onnx.export(
                wrapper, example, path, opset_version=17, dynamo=False,
                input_names=names, output_names=["last_hidden_state"],
                dynamic_axes={**{n: axes for n in names},
                              "last_hidden_state": axes})
        elif exporter == "dynamo18":
            auto = torch.export.Dim.AUTO
            shapes = tuple({d: auto for d in axes} for _ in names)
            program = torch.onnx.export(
                wrapper, example, dynamo=True, opset_version=18,
                input_names=names, output_names=["last_hidden_state"],
                dynamic_shapes=shapes, verbose=False)
            program.save(path)
        else:
            sys.exit(f"transformers_export: unknown exporter '{exporter}'")
        arrays = {}
        for batch, inputs in cases.items():
            for i, a in enumerate(inputs):
                arrays[f"b{batch}_in{i}"] = a
            arrays[f"b{batch}_out"] = wrapper(
                *(torch.from_numpy(a) for a in inputs)).numpy()
    np.savez(os.path.join(out, "reference.npz"), **arrays)


if __name__ == "__main__":
    main()
