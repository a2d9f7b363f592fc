"""Small PyTorch models exported to ONNX at test time (no downloads)."""

import io

import torch
import torch.nn as nn


class SmallCNN(nn.Module):
    """Conv + batch norm + ReLU + max pool, a grouped conv, average pool,
    flatten, linear and softmax: the layers of a typical image classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, groups=2)
        self.avg = nn.AvgPool2d(2, count_include_pad=False)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = self.avg(torch.sigmoid(self.conv2(x)))
        x = torch.flatten(x, 1)
        return torch.softmax(self.fc(x), dim=1)


class MLP(nn.Module):
    """Two linear layers with tanh and a residual sum; two outputs."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 12)
        self.fc2 = nn.Linear(12, 6)

    def forward(self, x):
        h = torch.tanh(self.fc1(x))
        return self.fc2(h) + x, h.exp()


def make_cnn():
    torch.manual_seed(0)
    model = SmallCNN().eval()
    # Non-trivial running statistics so that batch norm matters.
    model.bn1.running_mean.uniform_(-0.5, 0.5)
    model.bn1.running_var.uniform_(0.5, 2.0)
    return model, torch.randn(2, 3, 16, 16)


def make_mlp():
    torch.manual_seed(1)
    return MLP().eval(), torch.randn(3, 6)


def export_onnx(model, example, path=None, dynamic_batch=False):
    """Exports `model` with torch.onnx.export (opset 13) to `path`, or returns
    the serialized bytes when `path` is None."""
    target = path if path is not None else io.BytesIO()
    n_out = 2 if isinstance(model, MLP) else 1
    outputs = ["out%d" % i for i in range(n_out)]
    torch.onnx.export(
        model, example, target, opset_version=13, input_names=["x"],
        output_names=outputs,
        dynamic_axes=({"x": {0: "N"}, **{o: {0: "N"} for o in outputs}}
                      if dynamic_batch else None))
    return path if path is not None else target.getvalue()
