#!/usr/bin/env python3
"""PyTorch eager reference figures for tfd's GPU benchmarks.

Measures, in the same way as tfd's benchmarks and on the same shapes:
  matmul      MatMul 8192x8192x8192 in bfloat16: TFLOP/s
              (core/kernels/cuda:matmul_kernels_benchmark, BM_MatMul<bfloat16>/8192)
  fashion_cnn the Fashion-MNIST CNN's training step at batch 256, float32 and
              bfloat16 autocast (tests/gpu:fashion_cnn_gpu_benchmark)
  resnet50    ResNet-50's training step at batch 256, bfloat16 autocast,
              channels_last (tools/bench:resnet50_gpu_benchmark): images/s

Both models are written here with tfd's layer layout (Keras's), not
torchvision's: Conv2D(32, 3, relu) -> MaxPool 2 -> Conv2D(64, 3, relu) ->
MaxPool 2 -> Flatten -> Dense(64, relu) -> Dense(10); and ResNet-50 v1 as
keras.applications builds it (biases on every convolution, the stride of a
block in its first 1x1 convolution, BatchNorm epsilon 1.001e-5). Every
training step is forward, cross-entropy on the logits, backward and one
plain SGD update (learning rate 0.01), with the batch already on the
device, ended by a device synchronization; the figure is the median step.
float32 is full float32 (TF32 off), as tfd's is. The data is tfd's: MatMul
multiplies uniform [-1, 1) matrices (not zeros, which Hopper runs faster),
the CNN trains on tfd's synthetic ramp images and cyclic labels, ResNet-50
on uniform [0, 1) images.

Prints one JSON object per line and nothing else on stdout:
  {"figure": "resnet50_train_bf16", "value": 2650.1, "unit": "images/s", ...}
A figure that cannot be measured is a line with "error". Exit status 1
when no figure could be measured (no CUDA device with --device cuda).

  python3 tools/bench/torch_reference.py                  # on a GPU machine
  python3 tools/bench/torch_reference.py --device cpu --tiny   # a quick check
"""

import argparse
import json
import statistics
import sys
import time


def emit(record):
    print(json.dumps(record), flush=True)


def synchronize(torch, device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def median_seconds(torch, device, fn, warmup, steps):
    """Median wall time of fn() over `steps` calls, each synchronized."""
    for _ in range(warmup):
        fn()
    synchronize(torch, device)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        fn()
        synchronize(torch, device)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def fashion_cnn(nn):
    return nn.Sequential(
        nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 5 * 5, 64), nn.ReLU(), nn.Linear(64, 10))


def resnet50(nn, classes):
    """ResNet-50 v1 in keras.applications' layout (see the module doc)."""

    def conv_bn(cin, cout, kernel, stride):
        return [nn.Conv2d(cin, cout, kernel, stride, padding=kernel // 2, bias=True),
                nn.BatchNorm2d(cout, eps=1.001e-5, momentum=0.01)]

    class Bottleneck(nn.Module):
        def __init__(self, cin, filters, stride, project):
            super().__init__()
            self.main = nn.Sequential(
                *conv_bn(cin, filters, 1, stride), nn.ReLU(),
                *conv_bn(filters, filters, 3, 1), nn.ReLU(),
                *conv_bn(filters, 4 * filters, 1, 1))
            self.shortcut = (nn.Sequential(*conv_bn(cin, 4 * filters, 1, stride))
                             if project else nn.Identity())
            self.relu = nn.ReLU()

        def forward(self, x):
            return self.relu(self.shortcut(x) + self.main(x))

    layers = [*conv_bn(3, 64, 7, 2), nn.ReLU(),
              nn.ZeroPad2d(1), nn.MaxPool2d(3, 2)]
    cin = 64
    for filters, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, filters, stride if i == 0 else 1, i == 0))
            cin = 4 * filters
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, classes)]
    return nn.Sequential(*layers)


def train_step_fn(torch, model, x, y, bf16):
    nn = torch.nn
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=x.device.type, dtype=torch.bfloat16, enabled=bf16):
            logits = model(x)
        # Autocast computes cross-entropy in float32 either way.
        loss = loss_fn(logits.float(), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


def uniform(torch, device, shape, lo, hi, dtype):
    """Uniform [lo, hi) drawn in float32, scaled, then cast: as tfd's
    RandomUniformOn (core/kernels/cuda/benchmark_inputs.h)."""
    return (torch.rand(*shape, device=device) * (hi - lo) + lo).to(dtype)


def measure_matmul(torch, device, n, warmup, steps):
    # Row-major [n, n] bfloat16 in [-1, 1), as matmul_kernels_benchmark's.
    a = uniform(torch, device, (n, n), -1.0, 1.0, torch.bfloat16)
    b = uniform(torch, device, (n, n), -1.0, 1.0, torch.bfloat16)
    seconds = median_seconds(torch, device, lambda: torch.matmul(a, b), warmup, steps)
    emit({"figure": "matmul_%d_bf16" % n, "value": 2.0 * n ** 3 / seconds / 1e12,
          "unit": "TFLOP/s", "median_ms": seconds * 1e3, "steps": steps})


def measure_fashion(torch, device, batch, bf16, warmup, steps):
    model = fashion_cnn(torch.nn).to(device).to(memory_format=torch.channels_last)
    # tfd's SyntheticImages and SyntheticLabels (core/nn/synthetic_images.h):
    # pixel i is (i % 255) / 255, label i is i % 10. With one channel, NCHW
    # and NHWC order the pixels alike.
    pixels = torch.arange(batch * 28 * 28, device=device) % 255
    x = (pixels.float() / 255).reshape(batch, 1, 28, 28).contiguous(
        memory_format=torch.channels_last)
    y = torch.arange(batch, device=device) % 10
    seconds = median_seconds(torch, device, train_step_fn(torch, model, x, y, bf16),
                             warmup, steps)
    emit({"figure": "fashion_cnn_train_%s" % ("bf16" if bf16 else "f32"),
          "value": seconds * 1e3, "unit": "ms/step", "images_per_second": batch / seconds,
          "batch": batch, "steps": steps})


def measure_resnet50(torch, device, batch, size, classes, warmup, steps):
    model = resnet50(torch.nn, classes).to(device).to(memory_format=torch.channels_last)
    params = sum(p.numel() for p in model.parameters())
    # As resnet50_benchmark: uniform [0, 1) float32 images, label i is
    # (7 i) % classes.
    x = torch.rand(batch, 3, size, size, device=device).to(memory_format=torch.channels_last)
    y = (torch.arange(batch, device=device) * 7) % classes
    seconds = median_seconds(torch, device, train_step_fn(torch, model, x, y, True),
                             warmup, steps)
    record = {"figure": "resnet50_train_bf16", "value": batch / seconds, "unit": "images/s",
              "median_ms": seconds * 1e3, "batch": batch, "image_size": size,
              "trainable_parameters": params, "steps": steps}
    if device.type == "cuda":
        record["peak_memory_gib"] = torch.cuda.max_memory_allocated(device) / 2 ** 30
    emit(record)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    parser.add_argument("--only", default="matmul,fashion_cnn,resnet50",
                        help="comma-separated: matmul, fashion_cnn, resnet50")
    parser.add_argument("--batch", type=int, default=256, help="ResNet-50 batch")
    parser.add_argument("--tiny", action="store_true",
                        help="small shapes and few steps: checks the script, measures nothing")
    args = parser.parse_args()

    try:
        import torch
    except ImportError as e:
        emit({"figure": "torch", "error": "PyTorch is not installed: %s" % e})
        return 1
    if args.device == "cuda" and not torch.cuda.is_available():
        emit({"figure": "torch", "error": "no CUDA device visible to PyTorch %s" %
              torch.__version__})
        return 1
    device = torch.device(args.device)
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    # tfd's float32 is full float32 (cuBLAS and cuDNN without TF32).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    info = {"figure": "torch_info", "torch": torch.__version__, "device": str(device),
            "tf32": False, "cudnn_benchmark": True}
    if device.type == "cuda":
        info["gpu"] = torch.cuda.get_device_name(device)
    emit(info)

    tiny = args.tiny
    warmup, steps = (1, 2) if tiny else (3, 10)
    measured = 0
    for name in args.only.split(","):
        try:
            if name == "matmul":
                measure_matmul(torch, device, 256 if tiny else 8192, warmup,
                               steps if tiny else 50)
            elif name == "fashion_cnn":
                for bf16 in (False, True):
                    measure_fashion(torch, device, 8 if tiny else 256, bf16, warmup,
                                    steps if tiny else 50)
            elif name == "resnet50":
                measure_resnet50(torch, device, 2 if tiny else args.batch, 64 if tiny else 224,
                                 1000, warmup, steps)
            else:
                emit({"figure": name, "error": "unknown measurement"})
                continue
            measured += 1
        except Exception as e:  # One failed figure must not hide the others.
            emit({"figure": name, "error": "%s: %s" % (type(e).__name__, e)})
            if device.type == "cuda":
                torch.cuda.empty_cache()
    return 0 if measured else 1


if __name__ == "__main__":
    sys.exit(main())
