#!/usr/bin/env python3
"""Writes ONNX's node tests, as the onnx package of the project's environment
(.venv, onnx 1.23) defines them, into DIR/node/<case>/{model.onnx,
test_data_set_N/{input,output}_M.pb}: the layout of onnx's backend test data
and of Debian's libonnx-testdata (1.12), which scripts/onnx_conformance.py
runs.

onnx's wheel ships no node test data and its `backend-test-tools
generate-data` writes only the model tests, so this collects the node test
cases from `onnx.backend.test.case.node` (the code that generates onnx's own
committed data) and serializes them the same way.

    .venv/bin/python scripts/gen-onnx-node-tests.py DIR

DIR/onnx-version records the onnx version; a DIR written by the same
version is left as it is.
"""
import os
import shutil
import sys
import warnings

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.backend.test.case import node as node_cases


def serialize(value, value_info):
    """A test value as the proto onnx's backend test data stores."""
    kind = value_info.type.WhichOneof("value")
    if kind == "sequence_type":
        return numpy_helper.from_list(value, value_info.name)
    if kind == "optional_type":
        return numpy_helper.from_optional(value, value_info.name)
    if kind == "map_type":
        return numpy_helper.from_dict(value, value_info.name)
    if isinstance(value, onnx.TensorProto):
        return value
    return numpy_helper.from_array(np.asarray(value), value_info.name)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    stamp = os.path.join(out, "onnx-version")
    if os.path.exists(stamp) and open(stamp).read().strip() == onnx.__version__:
        return
    if os.path.exists(out):
        shutil.rmtree(out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node_cases.collect_testcases(None)
    for case in cases:
        case_dir = os.path.join(out, case.kind, case.name)
        os.makedirs(case_dir)
        with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        graph = case.model.graph
        for i, (inputs, outputs) in enumerate(case.data_sets):
            data_dir = os.path.join(case_dir, f"test_data_set_{i}")
            os.makedirs(data_dir)
            for kind, values, infos in (("input", inputs, graph.input),
                                        ("output", outputs, graph.output)):
                for j, value in enumerate(values):
                    path = os.path.join(data_dir, f"{kind}_{j}.pb")
                    with open(path, "wb") as f:
                        f.write(serialize(value, infos[j]).SerializeToString())
    with open(stamp, "w") as f:
        f.write(onnx.__version__ + "\n")
    print(f"gen-onnx-node-tests: {len(cases)} cases of onnx {onnx.__version__}"
          f" in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
