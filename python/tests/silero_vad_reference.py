"""silero-vad run by onnxruntime on a fixed synthetic audio clip, chunk by
chunk as silero-vad's own OnnxWrapper does at 16 kHz: each call reads
[1, 576] = the last 64 samples of the previous call's input (zeros at
first) followed by the next 512 samples, with state [2, 1, 128] (h, c of the
decoder's LSTM cell) fed back from the previous call's stateN.

  silero_vad_reference.py MODEL.onnx OUT.npz [CHUNKS]

OUT.npz holds `audio` [chunks * 512] and, per chunk k, `input_k` [1, 576],
`prob_k` [1, 1] and `state_k` [2, 1, 128] (the state after chunk k). Run with
a Python that has onnxruntime (test_silero_vad.py picks one)."""

import sys

import numpy as np

CHUNKS = 8
CHUNK = 512
CONTEXT = 64
RATE = 16000


def synthetic_audio(chunks=CHUNKS):
    """Silence, a voiced-like tone burst with harmonics and a noise floor,
    then silence: the probability rises and falls across the chunks."""
    rng = np.random.default_rng(2024)
    t = np.arange(chunks * CHUNK) / RATE
    envelope = np.exp(-((t - t.mean()) / 0.06) ** 2)
    tone = sum(np.sin(2 * np.pi * f * t) / (i + 1)
               for i, f in enumerate((180, 360, 540, 720)))
    audio = 0.4 * envelope * tone * (1 + 0.5 * np.sin(2 * np.pi * 5 * t))
    return (audio + 0.01 * rng.standard_normal(t.shape)).astype(np.float32)


def main():
    import onnxruntime as ort
    model, out = sys.argv[1:3]
    chunks = int(sys.argv[3]) if len(sys.argv) > 3 else CHUNKS
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    # silero_vad_half.onnx has no `sr` input (16 kHz only).
    takes_rate = "sr" in {i.name for i in session.get_inputs()}
    audio = synthetic_audio(chunks)
    state = np.zeros((2, 1, 128), np.float32)
    context = np.zeros((1, CONTEXT), np.float32)
    result = {"audio": audio}
    for k in range(chunks):
        x = np.concatenate([context, audio[None, k * CHUNK:(k + 1) * CHUNK]],
                           axis=1)
        feed = {"input": x, "state": state}
        if takes_rate:
            feed["sr"] = np.array(RATE, np.int64)
        prob, state = session.run(None, feed)
        result["input_%d" % k] = x
        result["prob_%d" % k] = prob
        result["state_%d" % k] = state
        context = x[:, -CONTEXT:]
    np.savez(out, **result)


if __name__ == "__main__":
    main()
