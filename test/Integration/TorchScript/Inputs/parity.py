"""TorchScript parity suite: each case is scripted with torch.jit.script,
saved with torch.jit.save, imported with `mlprog-translate
--import-torchscript`, run with `mlprog-run` and compared with eager PyTorch.

Usage: parity.py OUT_DIR [-k SUBSTRING] [-j JOBS]
Prints one `PASS name` / `FAIL name: why` line per case and a final
`N passed, M failed` line; exits 1 if any case failed.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import threading
from typing import List, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
RNG = np.random.default_rng(0)
CASES = []


def r(*shape, dtype=np.float32, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def ri(*shape, lo=0, hi=10):
    return RNG.integers(lo, hi, size=shape).astype(np.int64)


def case(name, inputs, rtol=1e-5, atol=1e-6, repeat=1, dynamic=None,
         alt=None):
    """Registers a function or nn.Module factory as a parity case.

    `dynamic` lists, per input, the dims imported as `?` (--input-shapes
    1x?x8); such a case is imported once and run on `inputs` and on `alt`,
    inputs of other extents in those dims, to show the shapes stay dynamic.
    """
    assert (dynamic is None) == (alt is None)
    def register(obj):
        CASES.append(dict(name=name, obj=obj, inputs=inputs, rtol=rtol,
                          atol=atol, repeat=repeat, dynamic=dynamic, alt=alt))
        return obj
    return register


#===--- Elementwise and overloads ---------------------------------------===#

@case("add_tensor_alpha", [r(2, 3), r(2, 3)])
def add_tensor_alpha(a, b):
    return torch.add(a, b, alpha=2)

@case("add_scalar_overload", [r(4)])
def add_scalar(a):
    return a + 3 - 1.5

@case("add_broadcast", [r(2, 3, 4), r(4)])
def add_broadcast(a, b):
    return a + b

@case("sub_mul_div", [r(3, 4), r(3, 4, lo=0.5, hi=2.0)])
def sub_mul_div(a, b):
    return (a - b) * a / b

@case("rsub_scalar", [r(5)])
def rsub_scalar(a):
    return 1 - a

@case("int_tensor_true_div", [ri(6, lo=1), ri(6, lo=1)])
def int_true_div(a, b):
    return a / b

@case("div_floor_mode", [r(6) * 5, r(6, lo=0.5, hi=2)])
def div_floor(a, b):
    return torch.div(a, b, rounding_mode="floor")

@case("remainder_floor_divide", [ri(8, lo=-9, hi=9), ri(8, lo=1, hi=4)])
def rem(a, b):
    return torch.remainder(a, b), torch.floor_divide(a, b)

@case("pow_scalar_tensor", [r(3, 3, lo=0.1, hi=2.0), r(3, 3)])
def pow_(a, b):
    return a ** 2, torch.pow(a, b)

@case("maximum_minimum", [r(3, 4), r(4)])
def maxmin(a, b):
    return torch.maximum(a, b), torch.minimum(a, b)

@case("promote_int_float", [ri(5), r(5)])
def promote(a, b):
    return a + b, a * 2.5

@case("unary_math", [r(2, 5, lo=0.1, hi=3.0)])
def unary_math(x):
    return (torch.exp(x), torch.log(x), torch.sqrt(x), torch.rsqrt(x),
            torch.reciprocal(x), torch.abs(-x), torch.neg(x), torch.sin(x),
            torch.cos(x), torch.erf(x))

@case("rounding", [r(10) * 3])
def rounding(x):
    return torch.floor(x), torch.ceil(x), torch.round(x), torch.sign(x)

@case("activations", [r(3, 7) * 4])
def activations(x):
    return (torch.relu(x), torch.sigmoid(x), torch.tanh(x), F.relu6(x),
            F.hardtanh(x, -1.0, 1.5), F.leaky_relu(x, 0.2), F.elu(x),
            F.gelu(x), F.silu(x), F.hardswish(x), F.hardsigmoid(x),
            F.softplus(x), F.gelu(x, approximate="tanh"), F.mish(x))

@case("clamp_variants", [r(4, 4) * 3])
def clamp(x):
    return (torch.clamp(x, -1.0, 1.0), torch.clamp(x, min=0.5),
            torch.clamp_max(x, 0.25), x.clamp(max=2))

@case("comparisons", [r(3, 4), r(3, 4)])
def comparisons(a, b):
    return a < b, a <= b, a > 0.5, a >= b, a == a, a != b

@case("logical_where", [r(3, 4), r(3, 4)])
def logical_where(a, b):
    m = (a > 0) & (b > 0)
    n = torch.logical_or(a > 1, torch.logical_not(b > -1))
    return torch.where(m, a, b), torch.where(n, a, 0.0), m, n

@case("masked_fill", [r(3, 4)])
def masked_fill(a):
    return a.masked_fill(a > 0.5, -1.0)

#===--- Casts and creation ----------------------------------------------===#

@case("to_dtype_casts", [r(2, 3) * 5])
def casts(x):
    return x.to(torch.int64), x.long().float(), x.to(torch.float64), (x > 0).to(torch.float32)

@case("type_as", [ri(4), r(4)])
def type_as(a, b):
    return a.type_as(b) + b

@case("creation", [r(2, 3)])
def creation(x):
    return (torch.zeros(2, 3) + x, torch.ones([2, 3]) * x,
            torch.full([2, 3], 2.5) - x, torch.zeros_like(x),
            torch.ones_like(x), torch.full_like(x, 7.0))

@case("arange", [r(5)])
def arange(x):
    return (torch.arange(5) , torch.arange(2, 11, 3), torch.arange(0.0, 1.0, 0.25),
            x + torch.arange(5, dtype=torch.float32))

@case("tensor_from_numbers", [r(3)])
def tensor_from_numbers(x):
    return x * torch.tensor([1.0, 2.0, 3.0])

#===--- Contractions ----------------------------------------------------===#

@case("matmul_variants", [r(3, 4), r(4, 5), r(2, 3, 4), r(2, 4, 5)], rtol=1e-4)
def matmuls(a, b, c, d):
    return torch.mm(a, b), torch.matmul(c, b), torch.bmm(c, d), c @ d

@case("linear_module", [r(2, 8)], rtol=1e-4)
def linear_module():
    return nn.Linear(8, 4)

@case("linear_no_bias_3d", [r(2, 3, 8)], rtol=1e-4)
def linear_nb():
    return nn.Linear(8, 4, bias=False)

@case("addmm_t", [r(3), r(2, 4), r(3, 4)], rtol=1e-4)
def addmm(bias, a, w):
    return torch.addmm(bias, a, w.t(), beta=0.5, alpha=2.0)

@case("mlp_sequential", [r(4, 10)], rtol=1e-4)
def mlp():
    return nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 3),
                         nn.Softmax(dim=1))

#===--- Convolution, pooling, normalization -----------------------------===#

@case("conv2d_module", [r(1, 3, 9, 9)], rtol=1e-4, atol=1e-5)
def conv2d():
    return nn.Conv2d(3, 6, 3, stride=2, padding=1)

@case("conv2d_groups_dilation", [r(2, 4, 10, 10)], rtol=1e-4, atol=1e-5)
def conv2d_g():
    return nn.Conv2d(4, 8, 3, padding=2, dilation=2, groups=2, bias=False)

@case("conv2d_depthwise_same", [r(1, 4, 7, 7)], rtol=1e-4, atol=1e-5)
def conv2d_dw():
    return nn.Conv2d(4, 4, 3, padding="same", groups=4)

@case("conv1d_module", [r(2, 3, 16)], rtol=1e-4, atol=1e-5)
def conv1d():
    return nn.Conv1d(3, 5, 4, stride=2)

@case("max_pool2d", [r(1, 2, 9, 9)])
def maxpool(x):
    return F.max_pool2d(x, 3, 2), F.max_pool2d(x, 2, 2, ceil_mode=True), F.max_pool2d(x, 3, 1, 1)

@case("avg_pool2d", [r(1, 2, 8, 8)], rtol=1e-5)
def avgpool(x):
    return F.avg_pool2d(x, 2), F.avg_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)

@case("pool1d_adaptive", [r(1, 2, 8), r(1, 3, 8, 8)], rtol=1e-5)
def pool1d(x, y):
    return F.max_pool1d(x, 2), F.avg_pool1d(x, 4), F.adaptive_avg_pool2d(y, 1), F.adaptive_avg_pool2d(y, (2, 4))

@case("batchnorm2d_eval", [r(2, 3, 4, 4)], rtol=1e-4, atol=1e-5)
def bn_eval():
    m = nn.BatchNorm2d(3)
    m.running_mean.uniform_(-1, 1)
    m.running_var.uniform_(0.5, 2)
    m.weight.data.uniform_(0.5, 1.5)
    return m.eval()

@case("layernorm", [r(2, 5, 8)], rtol=1e-4, atol=1e-5)
def ln():
    m = nn.LayerNorm(8)
    m.weight.data.uniform_(0.5, 1.5)
    return m

@case("layernorm_functional_2d", [r(2, 3, 4)], rtol=1e-4, atol=1e-5)
def ln_f(x):
    return F.layer_norm(x, [3, 4])

@case("batchnorm_training_running_stats", [r(4, 3, 5, 5)], rtol=1e-4,
      atol=1e-5, repeat=3)
def bn_train():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm2d(3)

        def forward(self, x):
            y = self.bn(x)
            return y, self.bn.running_mean, self.bn.running_var
    return M().train()

#===--- Reductions -------------------------------------------------------===#

@case("sum_mean_dims", [r(2, 3, 4)], rtol=1e-5)
def sums(x):
    return (x.sum(), x.sum(1), x.sum([0, 2], keepdim=True), x.mean(),
            torch.mean(x, -1), torch.mean(x, (1, 2), True))

@case("max_min_argmax", [r(3, 5)])
def maxes(x):
    v, i = x.max(1)
    w, j = torch.min(x, 0, keepdim=True)
    return v, i, w, j, x.max(), x.argmax(), x.argmin(1), torch.amax(x, 1)

@case("prod_var_std", [r(3, 4, lo=0.5, hi=1.5)], rtol=1e-4)
def prods(x):
    return x.prod(1), torch.var(x, 1), torch.std(x), torch.var(x, 0, unbiased=False)

@case("int_sum", [ri(3, 4)])
def int_sum(x):
    return x.sum(), x.sum(0)

@case("softmax_logsoftmax", [r(3, 6) * 3], rtol=1e-5)
def softmaxes(x):
    return F.softmax(x, 1), F.log_softmax(x, -1), torch.softmax(x, 0)

#===--- Shapes and indexing ---------------------------------------------===#

@case("view_reshape_flatten", [r(2, 3, 4)])
def views(x):
    return x.view(6, 4), x.reshape(-1), x.reshape(2, -1), torch.flatten(x, 1), x.flatten()

@case("permute_transpose", [r(2, 3, 4)])
def perms(x):
    return x.permute(2, 0, 1), x.transpose(0, 2), x.transpose(-1, -2).contiguous()

@case("unsqueeze_squeeze", [r(3, 1, 4)])
def squeezes(x):
    return x.squeeze(1), x.squeeze(), x.unsqueeze(0), x.unsqueeze(-1)

@case("cat_stack", [r(2, 3), r(2, 3)])
def catstack(a, b):
    return torch.cat([a, b], 0), torch.cat((a, b), 1), torch.stack([a, b]), torch.stack([a, b], -1)

@case("chunk_split", [r(6, 4)])
def chunks(x):
    a, b, c = x.chunk(3)
    d, e = torch.split(x, [1, 3], dim=1)
    f = x.split(4)
    return a, b, c, d, e, f[0], f[1]

@case("slice_select", [r(5, 6)])
def slices(x):
    return x[1:4], x[:, ::2], x[-2:, 1:-1], x[2], x[:, -1], x[1:, 3]

@case("index_select_gather", [r(4, 5), ri(3, hi=4), ri(4, 2, hi=5)])
def gathers(x, i, j):
    return torch.index_select(x, 0, i), torch.gather(x, 1, j)

@case("embedding_module", [ri(2, 3, hi=10)])
def emb():
    return nn.Embedding(10, 4)

@case("expand", [r(3, 1)])
def expands(x):
    return x.expand(3, 4), x.expand(2, -1, 5)

#===--- Python values, lists, tuples ------------------------------------===#

@case("size_len_numtotensor", [r(3, 4)])
def sizes(x):
    n = x.size(0)
    m = x.shape[1]
    return x * n + len(x) + torch.tensor(m) + x.dim()

@case("int_float_scalars", [r(2), 3, 1.5])
def scalars(x, k: int, s: float):
    t = k * 2 + 1
    return x * t + s, torch.tensor(float(k) / 2.0)

@case("item_to_python", [r(1)])
def item(x):
    v = float(x)
    i = int(x * 10)
    return torch.tensor(v * 2.0 + i)

@case("tuple_construct_unpack", [r(3), r(3)])
def tuples(a, b):
    t = (a + b, a - b)
    x, y = t
    return y, x

@case("tuple_input", [r(2, 2), r(2, 2)])
def tuple_input(a, b):
    return helper_tuple((a, b))

def helper_tuple(t: Tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    x, y = t
    return x * y

@case("list_ops", [r(3), r(3)])
def lists(a, b):
    xs: List[torch.Tensor] = [a, b]
    xs.append(a * b)
    return xs[2] + xs[-1] + xs[0], torch.tensor(len(xs))

@case("optional_none_arg", [r(3)])
def optional_none(x):
    return opt_helper(x, None), opt_helper(x, x)

def opt_helper(x: torch.Tensor, y: Optional[torch.Tensor]) -> torch.Tensor:
    if y is None:
        return x
    return x + y

@case("function_call_inlined", [r(3, 3)])
def calls(x):
    return helper_double(helper_double(x))

def helper_double(x):
    return x * 2

#===--- Control flow ----------------------------------------------------===#

@case("if_data_dependent", [r(3), np.array(True), np.array(False)])
def if_dd(x, c: bool, d: bool):
    if c:
        y = x + 1
    else:
        y = x - 1
    if d:
        z = y * 2
    else:
        z = y * 3
    return z

@case("if_tensor_condition", [r(4)])
def if_tensor(x):
    if bool(x.sum() > 0):
        return x * 2
    return -x

@case("if_static_shape", [r(2, 3)])
def if_static(x):
    if x.dim() == 2:
        return x.t()
    return x

@case("for_loop_carried", [r(3, 4, lo=0.5, hi=1.0)])
def for_loop(x):
    z = x
    for i in range(x.size(0)):
        z = z * z
    return z

@case("for_loop_dynamic_trip", [r(4), 5])
def for_dyn(x, n: int):
    acc = x
    for i in range(n):
        acc = acc + float(i)
    return acc

@case("while_loop", [r(4, lo=0.1, hi=0.2)])
def while_loop(x):
    i = 0
    while bool(x.sum() < 10.0):
        x = x * 2
        i += 1
    return x, torch.tensor(i)

@case("loop_list_append", [r(3, 2)])
def loop_list(x):
    outs: List[torch.Tensor] = []
    for i in range(x.size(0)):
        outs.append(x[i] * float(i))
    return torch.stack(outs)

@case("loop_with_if", [r(4), 6])
def loop_if(x, n: int):
    for i in range(n):
        if i % 2 == 0:
            x = x + 1
        else:
            x = x * 0.5
    return x

#===--- In-place ops -----------------------------------------------------===#

@case("inplace_chain", [r(3, 4)])
def inplace(x):
    y = x * 2
    y.add_(1)
    y.relu_()
    y.mul_(3)
    return y

@case("inplace_on_input", [r(4)])
def inplace_input(x):
    x.add_(2)
    return x * x

@case("inplace_module_relu", [r(2, 5)], rtol=1e-5)
def inplace_mod():
    return nn.Sequential(nn.Linear(5, 5), nn.ReLU(inplace=True), nn.Dropout(0.5)).eval()

#===--- Modules and state ------------------------------------------------===#

@case("parameters_and_buffers", [r(2, 3)])
def params():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(3))
            self.register_buffer("b", torch.randn(3))
            self.scale = 2.5

        def forward(self, x):
            return x * self.w + self.b * self.scale
    return M()

@case("counter_setattr", [r(2)], repeat=4)
def counter():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.count = 0

        def forward(self, x):
            self.count += 1
            return x * self.count, torch.tensor(self.count)
    return M()

@case("buffer_inplace_state", [r(3)], repeat=3)
def buffer_state():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("acc", torch.zeros(3))

        def forward(self, x):
            self.acc.add_(x)
            return self.acc * 1.0
    return M()

@case("submodules_unfrozen", [r(1, 3, 8, 8)], rtol=1e-4, atol=1e-5)
def submods():
    return nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(36, 5)).eval()

@case("lstm_cell_scripted", [r(3, 4), r(3, 8), r(3, 8), r(32, 4), r(32, 8),
                            r(32), r(32)], rtol=1e-4, atol=1e-5)
def lstm_cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = torch.mm(x, w_ih.t()) + torch.mm(hx, w_hh.t()) + b_ih + b_hh
    i, f, g, o = gates.chunk(4, 1)
    cy = torch.sigmoid(f) * cx + torch.sigmoid(i) * torch.tanh(g)
    hy = torch.sigmoid(o) * torch.tanh(cy)
    return hy, cy

@case("lstm_loop", [r(5, 2, 3), r(2, 4), r(2, 4), r(16, 3), r(16, 4),
                    r(16), r(16)], rtol=1e-4, atol=1e-5)
def lstm_loop(inp, hx, cx, w_ih, w_hh, b_ih, b_hh):
    hidden = (hx, cx)
    for x in inp.unbind(0):
        hidden = lstm_cell(x, hidden[0], hidden[1], w_ih, w_hh, b_ih, b_hh)
    return hidden


#===--- Dynamic shapes: sizes, int arithmetic, indexing -----------------===#
# Cases with `dynamic=` are imported with `?` extents and run on two input
# sizes (`alt=`).

@case("dyn_size_arith", [r(3, 6)], dynamic=[[0]], alt=[r(5, 6)])
def dyn_size_arith(x):
    n = x.size(0)
    k = x.numel() // 2 - n * 2 + (-n) % 4
    t = torch.tensor(n) * 2
    return x * k + x.dim() - int(t) // 3, t, torch.tensor(x.shape[0] + x.numel())

@case("dyn_numtotensor_int", [r(2, 5, 3)], dynamic=[[1]], alt=[r(2, 9, 3)])
def dyn_numtotensor(x):
    s = x.size(1)
    half = torch.floor_divide(torch.tensor(s), 2)
    return x[:, :int(half)] + 1.0, torch.remainder(torch.tensor(s), 4)

@case("dyn_position_ids", [r(2, 5, 4)], dynamic=[[1]], alt=[r(2, 8, 4)])
def dyn_pos_ids(x):
    s = x.shape[1]
    pos = torch.arange(s).unsqueeze(0).expand(x.size(0), -1)
    odd = torch.arange(1, s, 2)
    return x + pos.unsqueeze(-1).to(x.dtype), pos, odd, torch.arange(0.0, s * 0.5, 0.5)

@case("dyn_heads_view", [r(2, 3, 8)], dynamic=[[0, 1]], alt=[r(3, 5, 8)])
def dyn_heads(x):
    b, s, h = x.size(0), x.size(1), x.size(2)
    q = x.view(b, s, 4, h // 4).transpose(1, 2)
    scores = torch.matmul(q, q.transpose(-1, -2))
    ctx = torch.matmul(scores.softmax(-1), q)
    return ctx.transpose(1, 2).reshape(b, -1, h), q.reshape(b * 4, s, -1)

@case("dyn_vit_reshape", [r(2, 4, 4, 6)], dynamic=[[0, 1, 2]], alt=[r(1, 2, 3, 6)])
def dyn_vit(x):
    n = x.shape[0]
    hidden = x.shape[3]
    return x.reshape(n, -1, hidden), x.flatten(1, 2), x.view(n, x.size(1) * x.size(2), hidden)

@case("dyn_slice_runtime_bounds", [r(2, 12), 2], dynamic=[[1], []], alt=[r(2, 9), 3])
def dyn_slice(x, k: int):
    n = x.size(1)
    return (x[:, n // 4:n - k], x[:, k::2], x[:, ::k], x[:, -k:], x.narrow(1, k, 3),
            x.narrow(1, -k - 2, k), x.select(1, n - 1), x[:, -k], x[:, k])

@case("dyn_new_creation", [r(3, 4)], dynamic=[[0, 1]], alt=[r(2, 6)])
def dyn_creation(x):
    n, m = x.size(0), x.size(1)
    return (x.new_zeros(n, m) + x, x.new_ones([m]), x.new_full((n, 2), 3.0),
            torch.zeros(n, m, dtype=torch.int64), torch.full([m, n], 2.0),
            torch.ones(n) * n, x.new_zeros([2, m]).long(), torch.zeros_like(x) + 1)

@case("dyn_expand", [r(2, 3, 4), r(1, 3, 1)], dynamic=[[0, 2], []], alt=[r(5, 3, 2), r(1, 3, 1)])
def dyn_expand(x, y):
    return y.expand(x.size(0), -1, x.size(2)) + x, y.expand_as(x), x.new_zeros(1).expand(x.size(2))

@case("index_int_tensors", [r(5, 4, 3), ri(3, lo=-5, hi=5), ri(2, 3, hi=4), ri(3, hi=3)])
def index_ints(x, i, j, k):
    return (x[i], x[:, j], x[i, k], x[:, j, 1], x[i, :, k], x[j[0]],
            x[i[:, None], k[None, :]], x[1:3, j], x[:, :, k])

@case("index_int_dynamic", [r(6, 4), ri(3, hi=6), ri(2, 2, hi=4)], dynamic=[[0], [0], []],
      alt=[r(9, 4), ri(5, hi=9), ri(2, 2, hi=4)])
def index_int_dyn(x, i, j):
    return x[i], x[i, 1], x[:, j], x[i.unsqueeze(1), j[0]]

@case("index_bool_masks", [r(4, 5), np.array([True, False, True, True])])
def index_masks(x, m):
    return (x[x > 0], x[m], x[:, x[0] > 0], torch.masked_select(x, x < 0.5),
            torch.masked_select(x, m.unsqueeze(1)), x[m, 1:3])

@case("relative_position_bias_swin", [r(9, 2), ri(4, 4, hi=9)])
def rel_pos_bias(table, index):
    bias = table[index.view(-1)].view(4, 4, -1)
    return bias.permute(2, 0, 1).contiguous().unsqueeze(0)

@case("index_put_variants", [r(5, 4), ri(3, hi=5), r(3, 4), ri(3, lo=-4, hi=4)])
def index_puts(x, i, v, j):
    y = x.clone()
    y[i] = v
    z = x.clone()
    z.index_put_((i,), v, accumulate=True)
    w = x.clone()
    w[w > 0] = 0.0
    u = x.clone()
    u[i, j] = 7.0
    t = x.clone()
    t[:, j] = v[:, 0]
    a = torch.index_put(x, (torch.tensor([0, 0, 2]),), torch.tensor(1.5), accumulate=True)
    return y, z, w, u, t, a

@case("index_put_masks", [r(4, 5), np.array([True, False, True, False])])
def index_put_masks(x, m):
    a = x.clone()
    a[:, x[0] > 0] = 1.0
    b = x.clone()
    b[m] = torch.arange(5, dtype=torch.float32)
    c = x.clone()
    c[x > 1.0] = x[x > 1.0] * 10
    d = x.clone()
    d.index_put_((x < 0,), torch.tensor(2.0), accumulate=True)
    return a, b, c, d

@case("index_put_dynamic", [r(5, 3), ri(2, hi=5)], dynamic=[[0], []], alt=[r(8, 3), ri(2, hi=8)])
def index_put_dyn(x, i):
    y = x.clone()
    y[i] = -1.0
    y[y > 1.0] = 1.0
    return y

@case("inplace_variants_local", [r(3, 4), r(3, 4)])
def inplace_variants(x, y):
    a = x * 1.0
    a.masked_fill_(a > 0.5, -1.0)
    b = x * 1.0
    b.clamp_(-0.5, 0.5)
    c = x * 1.0
    c.copy_(y)
    d = x * 1.0
    d.fill_(3.0)
    e = x * 1.0
    e.zero_()
    f = x * 1.0
    f.index_put_((torch.tensor([2, 0]),), torch.tensor(9.0))
    g = x * 1.0
    g[1:3].fill_(4.0)
    g[:, 0].zero_()
    h = x * 1.0
    h.clamp_min_(0.0).sub_(y).abs_()
    k = x * 1.0
    k.copy_(y[0])
    return a, b, c, d, e, f, g, h, k

@case("inplace_variants_dynamic", [r(3, 4), r(4)], dynamic=[[0], []], alt=[r(6, 4), r(4)])
def inplace_dyn(x, y):
    a = x * 1.0
    a.copy_(y)
    b = x * 1.0
    b.masked_fill_(b < 0, 0.0)
    b.mul_(2.0)
    c = x.new_zeros(x.size(0), 2)
    c.fill_(float(x.size(0)))
    return a, b, c

@case("inplace_unary_table", [r(3, 4, lo=0.1, hi=2.0)], rtol=1e-5, atol=1e-6)
def inplace_unary(x):
    outs: List[torch.Tensor] = []
    a = x * 1.0; outs.append(a.abs_()); a = x * 1.0; outs.append(a.ceil_())
    a = x * 1.0; outs.append(a.cos_()); a = x * 1.0; outs.append(a.erf_())
    a = x * 1.0; outs.append(a.exp_()); a = x * 1.0; outs.append(a.expm1_())
    a = x * 1.0; outs.append(a.floor_()); a = x * 1.0; outs.append(a.log_())
    a = x * 1.0; outs.append(a.log10_()); a = x * 1.0; outs.append(a.log1p_())
    a = x * 1.0; outs.append(a.log2_()); a = x * 1.0; outs.append(a.neg_())
    a = x * 1.0; outs.append(a.reciprocal_()); a = x - 1.0; outs.append(a.relu_())
    a = x * 4.0; outs.append(F.relu6(a, inplace=True)); a = x * 1.0; outs.append(a.round_())
    a = x * 1.0; outs.append(a.rsqrt_()); a = x * 1.0; outs.append(a.sigmoid_())
    a = x - 1.0; outs.append(a.sign_()); a = x * 1.0; outs.append(F.silu(a, inplace=True))
    a = x * 1.0; outs.append(a.sin_()); a = x * 1.0; outs.append(a.sqrt_())
    a = x * 1.0; outs.append(a.tanh_()); a = x - 1.0; outs.append(F.elu_(a))
    a = x - 1.0; outs.append(F.hardsigmoid(a, inplace=True))
    a = x - 1.0; outs.append(F.hardswish(a, inplace=True))
    a = x - 1.0; outs.append(F.hardtanh_(a, -0.5, 0.5))
    a = x - 1.0; outs.append(F.leaky_relu_(a, 0.1))
    a = x - 1.0; outs.append(F.selu(a, inplace=True))
    return outs

@case("inplace_binary_shape_table", [r(3, 4, lo=0.5, hi=2.0), r(3, 4, lo=0.5, hi=2.0), r(4, 4), ri(3, 4, hi=8)])
def inplace_binary(x, y, w, k):
    outs: List[torch.Tensor] = []
    a = x * 1.0; outs.append(a.add_(y, alpha=2)); a = x * 1.0; outs.append(a.sub_(1.5))
    a = x * 1.0; outs.append(a.mul_(y)); a = x * 1.0; outs.append(a.div_(y))
    a = x * 1.0; outs.append(a.pow_(2.0)); a = x * 1.0; outs.append(a.fmod_(0.7))
    a = x * 1.0; outs.append(a.remainder_(y)); a = x * 1.0; outs.append(a.true_divide_(y))
    a = x * 1.0; outs.append(a.eq_(y)); a = x * 1.0; outs.append(a.gt_(1.0))
    a = x * 1.0; outs.append(a.le_(y)); a = x * 1.0; outs.append(a.ne_(1.0))
    a = x * 1.0; outs.append(a.clip_(0.7, 1.2)); a = x * 1.0; outs.append(a.clamp_max_(1.0))
    a = x * 1.0; outs.append(a.addmm_(x, w, beta=0.5))
    a = x * 1.0; outs.append(a.unsqueeze_(0)); a = x * 1.0; outs.append(a.t_())
    a = x * 1.0; outs.append(a.transpose_(0, 1)); a = x.unsqueeze(1) * 1.0; outs.append(a.squeeze_())
    a = x * 1.0; outs.append(a.index_copy_(0, torch.tensor([2, 0]), y[:2]))
    b = k * 1; outs.append(b.floor_divide_(3).float())
    b = k * 1; outs.append(b.bitwise_and_(5).float()); b = k * 1; outs.append(b.bitwise_or_(k // 2).float())
    b = k * 1; outs.append(b.bitwise_not_().float())
    m = x > 1.0; outs.append(m.logical_and_(y > 1.0).float())
    m = x > 1.0; outs.append(m.logical_or_(y > 1.0).float())
    m = x > 1.0; outs.append(m.logical_xor_(y > 1.0).float())
    m = x > 1.0; outs.append(m.logical_not_().float())
    return outs

@case("pad_modes_dynamic", [r(1, 2, 7)], dynamic=[[2]], alt=[r(1, 2, 10)])
def pad_modes(x):
    k = x.size(2) // 4
    return (F.pad(x, [1, 2]), F.pad(x, [2, 0, 1, 1], value=-1.5),
            F.pad(x, [3, 1], mode="reflect"), F.pad(x, [k, k], mode="reflect"),
            F.pad(x, [2, 3], mode="replicate"), F.pad(x, [1, 2], mode="circular"),
            F.pad(x, [-1, 2]))

@case("identity_and_autocast_checks", [r(3)])
def fast_path_checks(x):
    y = x * 2.0
    if y is y and not torch.is_autocast_enabled():
        return y + 1.0
    return y

@case("list_copy_setitem_sum", [r(2, 9, 6)], dynamic=[[1]], alt=[r(2, 5, 6)])
def list_ops_swin(x):
    # swin_t's window shift: a copied int list updated from run-time sizes.
    H = x.size(1)
    pad_b = (7 - H % 7) % 7
    shift = [3, 3]
    shift_size = shift.copy()
    shift_size[0] = pad_b
    shift_size[-1] = H % 2
    return x * float(sum(shift_size)), torch.tensor(shift), torch.tensor(sum(shift))

@case("dyn_size_list_heads_bert", [r(2, 3, 8)], dynamic=[[0, 1]], alt=[r(1, 6, 8)])
def bert_heads(x):
    # transformers' BERT: x.size()[:-1] + (heads, head_size).
    new_shape = x.size()[:-1] + (2, 4)
    y = x.view(new_shape).permute(0, 2, 1, 3)
    z = (y * 2.0).permute(0, 2, 1, 3).contiguous()
    return (z.view(z.size()[:-2] + (8,)), torch.zeros(x.size()),
            x.new_ones(x.shape[1:]), torch.tensor(x.size()[::-1][0:2]))


#===--- Gaps found by the OpInfo suite (scripts/torch_opinfo_conformance.py) ===#

def s0(v):
    """A 0-d float32 array."""
    return np.array(v, dtype=np.float32)

@case("round_decimals", [r(3, 5, lo=-50, hi=50)])
def round_decimals(a):
    return (torch.round(a, decimals=2), torch.round(a, decimals=-1),
            torch.round(a, decimals=0))

@case("reduce_0d", [s0(-1.25)])
def reduce_0d(x):
    m = x.max(0)
    return (x.sum(0), x.amax(-1), x.mean([0], keepdim=True), x.prod(0),
            torch.softmax(x, 0), torch.log_softmax(x, -1), x.argmax(0),
            m[0], m[1], x.cumsum(0), x.permute([]))

@case("broadcast_to", [r(3, 1), r(4)])
def broadcast_to(a, b):
    return torch.broadcast_to(a, (2, 3, 4)), b.broadcast_to([3, 4])

@case("pad_modes", [r(2, 3, 5), r(1, 2, 4, 4)])
def pad_modes(a, b):
    return (F.pad(a, (1, 2)), F.pad(a, (2, 1, 1, 0), value=-3.0),
            F.pad(a, (2, 3), mode="reflect"), F.pad(a, (3, 1), mode="replicate"),
            F.pad(a, (2, 4), mode="circular"),
            F.pad(b, (1, 2, 3, 1), mode="reflect"),
            F.pad(b, (1, 1, 2, 0), mode="replicate"),
            torch.constant_pad_nd(b, [1, 0, 0, 2], 0.5))

@case("view_as_reshape_as", [r(4, 6), r(2, 12), r(3, 8)])
def view_as_reshape_as(a, b, c):
    return a.view_as(b), a.reshape_as(c), b.view_as(c)

@case("cumsum_cumprod", [r(3, 4), ri(2, 5, lo=-3, hi=4)])
def cumsum_cumprod(a, i):
    return (torch.cumsum(a, 1), torch.cumsum(a, -2), torch.cumprod(a, 0),
            torch.cumsum(i, 1), torch.cumprod(i, 1),
            torch.cumsum(i, 0, dtype=torch.float32))

#===--- Recurrent layers, resampling, dropout (ts-ops) -------------------===#

def rnn_module(kind, state, *args, **kwargs):
    """An nn.LSTM/GRU/RNN run without initial state (state=0), with h_0
    (state=1) or with (h_0, c_0) (state=2)."""
    class NoState(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = kind(*args, **kwargs)

        def forward(self, x):
            return self.rnn(x)

    class H(NoState):
        def forward(self, x, h0):
            return self.rnn(x, h0)

    class HC(NoState):
        def forward(self, x, h0, c0):
            return self.rnn(x, (h0, c0))
    return [NoState, H, HC][state]().eval()

@case("lstm_1layer_default_state", [r(5, 2, 3)], rtol=1e-4, atol=1e-5)
def lstm_1layer():
    return rnn_module(nn.LSTM, 0, 3, 4)

@case("lstm_2layer_bidir_batch_first_hx", [r(2, 5, 3), r(4, 2, 6), r(4, 2, 6)],
      rtol=1e-4, atol=1e-5)
def lstm_2layer_bidir():
    return rnn_module(nn.LSTM, 2, 3, 6, num_layers=2, bidirectional=True,
                      batch_first=True)

@case("lstm_no_bias_3layer", [r(4, 3, 5)], rtol=1e-4, atol=1e-5)
def lstm_nobias():
    return rnn_module(nn.LSTM, 0, 5, 3, num_layers=3, bias=False)

@case("gru_2layer_bidir_hx", [r(6, 2, 3), r(4, 2, 5)], rtol=1e-4, atol=1e-5)
def gru_bidir():
    return rnn_module(nn.GRU, 1, 3, 5, num_layers=2, bidirectional=True)

@case("gru_batch_first_no_bias", [r(3, 4, 2)], rtol=1e-4, atol=1e-5)
def gru_nobias():
    return rnn_module(nn.GRU, 0, 2, 4, bias=False, batch_first=True)

@case("rnn_tanh_2layer_hx", [r(5, 2, 3), r(2, 2, 4)], rtol=1e-4, atol=1e-5)
def rnn_tanh():
    return rnn_module(nn.RNN, 1, 3, 4, num_layers=2)

@case("rnn_relu_bidir_batch_first", [r(2, 4, 3)], rtol=1e-4, atol=1e-5)
def rnn_relu():
    return rnn_module(nn.RNN, 0, 3, 4, nonlinearity="relu", bidirectional=True,
                      batch_first=True)

@case("rnn_cells", [r(3, 4), r(3, 5), r(3, 5)], rtol=1e-4, atol=1e-5)
def rnn_cells():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTMCell(4, 5)
            self.gru = nn.GRUCell(4, 5)
            self.tanh = nn.RNNCell(4, 5)
            self.relu = nn.RNNCell(4, 5, bias=False, nonlinearity="relu")

        def forward(self, x, h, c):
            h1, c1 = self.lstm(x, (h, c))
            return (h1, c1, self.gru(x, h), self.tanh(x, h),
                    self.relu(x, h), self.gru(x))
    return M().eval()

@case("lstm_tagger", [ri(2, 7, lo=0, hi=20)], rtol=1e-4, atol=1e-5)
def lstm_tagger():
    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(20, 8)
            self.lstm = nn.LSTM(8, 6, num_layers=2, bidirectional=True,
                                batch_first=True, dropout=0.3)
            self.out = nn.Linear(12, 5)

        def forward(self, tokens):
            y, _ = self.lstm(self.embed(tokens))
            return F.log_softmax(self.out(y), dim=-1)
    return Tagger().eval()

@case("interpolate_nearest", [r(1, 2, 3, 4), r(2, 3, 5), r(1, 1, 2, 3, 2)])
def interp_nearest(x, y, z):
    return (F.interpolate(x, scale_factor=2.0, mode="nearest"),
            F.interpolate(x, size=[5, 7], mode="nearest"),
            F.interpolate(y, scale_factor=3.0),
            F.interpolate(z, size=[3, 4, 4], mode="nearest"),
            F.interpolate(x, scale_factor=1.5, mode="nearest-exact"),
            F.interpolate(x, size=[2, 2], mode="nearest"))

@case("interpolate_linear_modes", [r(1, 2, 3, 4), r(2, 3, 5), r(1, 1, 2, 3, 2)],
      rtol=1e-4, atol=1e-5)
def interp_linear(x, y, z):
    return (F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False),
            F.interpolate(x, size=[5, 7], mode="bilinear", align_corners=True),
            F.interpolate(x, size=[2, 3], mode="bilinear", align_corners=False),
            F.interpolate(y, scale_factor=2.5, mode="linear", align_corners=False),
            F.interpolate(y, size=[8], mode="linear", align_corners=True),
            F.interpolate(z, scale_factor=2.0, mode="trilinear", align_corners=False),
            F.interpolate(z, size=[3, 5, 3], mode="trilinear", align_corners=True),
            F.interpolate(x, scale_factor=1.7, mode="bilinear",
                          recompute_scale_factor=True))

@case("interpolate_bicubic", [r(1, 2, 4, 5)], rtol=1e-4, atol=1e-5)
def interp_bicubic(x):
    return (F.interpolate(x, scale_factor=2.0, mode="bicubic", align_corners=False),
            F.interpolate(x, size=[7, 6], mode="bicubic", align_corners=True),
            F.interpolate(x, size=[3, 3], mode="bicubic", align_corners=False))

@case("interpolate_fractional_scales", [r(1, 2, 7, 9), r(1, 1, 11)],
      rtol=1e-4, atol=1e-5)
def interp_fractional(x, y):
    return (F.interpolate(x, scale_factor=1.3),
            F.interpolate(x, scale_factor=0.7),
            F.interpolate(y, scale_factor=2.2),
            F.interpolate(x, scale_factor=1.5, mode="nearest-exact"),
            F.interpolate(x, scale_factor=0.6, mode="bilinear"),
            F.interpolate(x, scale_factor=0.45, mode="bicubic"),
            F.interpolate(y, size=[4], mode="linear"),
            F.interpolate(x, size=[13, 5], mode="nearest"))

@case("segmentation_head", [r(1, 3, 16, 16)], rtol=1e-4, atol=1e-5)
def seg_head():
    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1),
                                      nn.ReLU(),
                                      nn.Conv2d(8, 8, 3, stride=2, padding=1),
                                      nn.ReLU())
            self.cls = nn.Conv2d(8, 4, 1)
            self.drop = nn.Dropout2d(0.1)

        def forward(self, x):
            f = self.cls(self.drop(self.body(x)))
            a = F.interpolate(f, size=[x.size(2), x.size(3)], mode="bilinear",
                              align_corners=False)
            b = F.interpolate(f, scale_factor=4.0, mode="bilinear",
                              align_corners=True)
            return a.argmax(1), a, b
    return Head().eval()

@case("dropout_family_eval", [r(2, 4, 3)])
def dropout_eval():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.d = nn.Dropout(0.5)
            self.d2 = nn.Dropout2d(0.5)
            self.ad = nn.AlphaDropout(0.5)
            self.fad = nn.FeatureAlphaDropout(0.5)
            self.di = nn.Dropout(0.5, inplace=True)

        def forward(self, x):
            y = x * 2.0
            self.di(y)
            return (self.d(x), self.d2(x), self.ad(x), self.fad(x), y,
                    F.dropout(x, 0.2, self.training, True) + 1.0)
    return M().eval()

#===--- Driver -------------------------------------------------------------===#

def dtype_name(a):
    return {np.float32: "float32", np.float64: "float64", np.int64: "int64",
            np.int32: "int32", np.bool_: "bool"}[a.dtype.type]


def as_array(v):
    if isinstance(v, np.ndarray):
        return v
    if isinstance(v, bool):
        return np.array(v)
    if isinstance(v, int):
        return np.array(v, dtype=np.int64)
    return np.array(v, dtype=np.float64)


def eager_arg(v):
    if isinstance(v, np.ndarray):
        if v.ndim == 0 and v.dtype == np.bool_:
            return bool(v)
        return torch.from_numpy(v.copy())
    return v


def flatten(out):
    if isinstance(out, (tuple, list)):
        result = []
        for o in out:
            result += flatten(o)
        return result
    if isinstance(out, torch.Tensor):
        return [out.detach().numpy().copy()]
    return [np.array(out)]


def input_shape(a, dyn_dims):
    if not a.ndim:
        return "scalar"
    return "x".join("?" if d in dyn_dims else str(e)
                    for d, e in enumerate(a.shape))


def run_inputs(c, d, mlir, inputs, tag):
    """Runs the imported `mlir` on `inputs` and compares with eager PyTorch."""
    eager = c["eager"]
    arrays = [as_array(v) for v in inputs]
    in_files = []
    for i, a in enumerate(arrays):
        f = os.path.join(d, "%sinput_%d.npy" % (tag, i))
        np.save(f, a)
        in_files.append(f)
    ref = None
    with torch.no_grad():
        for _ in range(c["repeat"]):
            ref = flatten(eager(*[eager_arg(v) for v in inputs]))
    out_dir = os.path.join(d, tag + "out") if tag else d
    os.makedirs(out_dir, exist_ok=True)
    cmd = ["mlprog-run", mlir, "--entry", "forward", "--output-dir", out_dir,
           "--repeat", str(c["repeat"])]
    for f in in_files:
        cmd += ["--input", f]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        return False, tag + "run failed: " + (lines[0] if lines else "rc %d" % p.returncode)
    for i, expected in enumerate(ref):
        f = os.path.join(out_dir, "output_%d.npy" % i)
        if not os.path.exists(f):
            return False, tag + "missing output %d" % i
        got = np.load(f)
        if got.shape != expected.shape:
            return False, tag + "output %d shape %s, expected %s" % (i, got.shape, expected.shape)
        if got.dtype != expected.dtype:
            return False, tag + "output %d dtype %s, expected %s" % (i, got.dtype, expected.dtype)
        if expected.dtype.kind == "f":
            if not np.allclose(got, expected, rtol=c["rtol"], atol=c["atol"]):
                err = np.max(np.abs(got.astype(np.float64) - expected))
                return False, tag + "output %d differs (max abs err %g)" % (i, err)
        elif not np.array_equal(got, expected):
            return False, tag + "output %d differs" % i
    if os.path.exists(os.path.join(out_dir, "output_%d.npy" % len(ref))):
        return False, tag + "more outputs than PyTorch"
    return True, "%d outputs" % len(ref)


SCRIPT_LOCK = threading.Lock()


def run_case(c, out_dir):
    name = c["name"]
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    obj = c["obj"]
    # torch.jit.script is not thread-safe: two threads compiling the same
    # library function (F.interpolate) race on the compilation unit.
    with SCRIPT_LOCK:
        if isinstance(obj, type(lambda: 0)) and obj.__code__.co_argcount == 0 and not c["name"].startswith("lstm_cell_scripted"):
            eager = obj()
            scripted = torch.jit.script(eager)
        else:
            eager = obj
            scripted = torch.jit.script(obj)
        c["eager"] = eager
        pt = os.path.join(d, "model.pt")
        torch.jit.save(scripted, pt)
    arrays = [as_array(v) for v in c["inputs"]]
    dynamic = c["dynamic"] or [[] for _ in arrays]
    shapes = ",".join(input_shape(a, dyn) for a, dyn in zip(arrays, dynamic))
    dtypes = ",".join(dtype_name(a) for a in arrays)
    mlir = os.path.join(d, "model.mlir")
    cmd = ["mlprog-translate", "--import-torchscript", pt, "-o", mlir]
    if arrays:
        cmd += ["--input-shapes=" + shapes, "--input-dtypes=" + dtypes]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return False, "import failed: " + p.stderr.strip().splitlines()[0]
    if c["dynamic"]:
        # The signature must keep the `?` extents (nothing made them static).
        with open(mlir) as f:
            sig = next((l for l in f if "@forward(" in l), "")
        if sig.count("?") < sum(len(dyn) for dyn in dynamic):
            return False, "dynamic extents lost: " + sig.strip()
    ok, why = run_inputs(c, d, mlir, c["inputs"], "")
    if ok and c["alt"] is not None:
        ok2, why2 = run_inputs(c, d, mlir, c["alt"], "alt_")
        if not ok2:
            return False, why2
        why += ", 2 input sizes"
    return ok, why


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("-k", default="")
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args()
    cases = [c for c in CASES if args.k in c["name"]]
    def go(c):
        try:
            return c["name"], run_case(c, args.out_dir)
        except Exception as e:  # a failing case must not stop the suite
            return c["name"], (False, "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        results = list(pool.map(go, cases))
    passed = 0
    for name, (ok, why) in results:
        print("%s %s: %s" % ("PASS" if ok else "FAIL", name, why))
        passed += ok
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
