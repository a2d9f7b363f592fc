"""Writes Core ML pipelines (.mlmodel) for pipeline.test with coremltools'
protobuf classes:

  make_pipeline.py OUT_DIR

OUT_DIR/program-nms.mlmodel   pipeline: an ML Program (y = relu(x) + 1),
                              then a nonMaximumSuppression model
OUT_DIR/nested.mlmodel        pipeline classifier: a scaler, then a pipeline
                              holding two ML Programs (relu, then exp)
OUT_DIR/no-program.mlmodel    pipeline of a scaler and an identity model
"""
import os
import sys

import coremltools as ct
from coremltools.converters.mil import Builder as mb
from coremltools.proto import Model_pb2


def program(op):
    @mb.program(input_specs=[mb.TensorSpec(shape=(2, 3))],
                opset_version=ct.target.iOS16)
    def prog(x):
        y = mb.relu(x=x) if op == "relu" else mb.exp(x=x)
        return mb.add(x=y, y=1.0) if op == "relu" else y

    model = ct.convert(prog, convert_to="mlprogram",
                       minimum_deployment_target=ct.target.iOS16,
                       compute_precision=ct.precision.FLOAT32,
                       skip_model_load=True)
    return model.get_spec()


def main(out):
    os.makedirs(out, exist_ok=True)
    spec = Model_pb2.Model(specificationVersion=7)
    spec.pipeline.models.add().CopyFrom(program("relu"))
    spec.pipeline.models.add().nonMaximumSuppression.SetInParent()
    spec.pipeline.names.extend(["detector", "nms"])
    with open(os.path.join(out, "program-nms.mlmodel"), "wb") as f:
        f.write(spec.SerializeToString())

    nested = Model_pb2.Model(specificationVersion=7)
    steps = nested.pipelineClassifier.pipeline
    steps.models.add().scaler.SetInParent()
    inner = steps.models.add()
    inner.pipeline.models.add().CopyFrom(program("relu"))
    inner.pipeline.models.add().CopyFrom(program("exp"))
    with open(os.path.join(out, "nested.mlmodel"), "wb") as f:
        f.write(nested.SerializeToString())

    none = Model_pb2.Model(specificationVersion=7)
    none.pipeline.models.add().scaler.SetInParent()
    none.pipeline.models.add().identity.SetInParent()
    with open(os.path.join(out, "no-program.mlmodel"), "wb") as f:
        f.write(none.SerializeToString())


if __name__ == "__main__":
    main(sys.argv[1])
