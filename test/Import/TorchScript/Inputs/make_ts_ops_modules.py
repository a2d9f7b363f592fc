"""Writes scripted modules whose recurrent or dropout ops the importer
refuses, for recurrent-dropout-errors.test. Usage: make_ts_ops_modules.py DIR
"""
import os
import sys

import torch
import torch.nn as nn


class Dropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(x)


class Projected(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 4, proj_size=2)

    def forward(self, x):
        return self.lstm(x)[0]


out = sys.argv[1]
# Left in training mode: dropout is random there.
torch.jit.save(torch.jit.script(Dropout()), os.path.join(out, "dropout-train.pt"))
torch.jit.save(torch.jit.script(Projected().eval()), os.path.join(out, "lstm-proj.pt"))
