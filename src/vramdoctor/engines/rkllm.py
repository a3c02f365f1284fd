"""RKLLM (airockchip/rknn-llm) and the RKNN runtime under it: LLMs and their vision encoders on Rockchip NPUs (RK3588,
RK3576). The NPU's memory is the board's own RAM, handed out by the rknpu driver (its DMA heap, `CMA` where the
kernel gives one); a model's weights are allocated when it is initialised (`rkllm_init` for the language model, with its
KV cache for `max_context_len`; `rknn_init` for each `.rknn` model beside it, a vision encoder), and nothing more is
allocated per request.

Sources (rknn-llm: rkllm-runtime's log, `I rkllm: rkllm-runtime version: ...`, `I rkllm: loading rkllm model from
PATH`, `I rkllm: rkllm-toolkit version: ..., max_context_limit: 4096, npu_core_num: 3, target_platform: RK3588,
model_dtype: W8A8`, `E rkllm: rkllm_init failed`; the examples' `rkllm init success`, `init_imgenc fail!`; rknpu2's
`E RKNN: [time] failed to malloc npu memory, size: N, flags: 0x2`, then `load model file error!`, `Import rknn model
failed!`, `rknn_init, load model failed!`); RKLLMParam's `max_context_len`, the toolkit's `quantized_dtype` (w8a8,
w4a16).
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import count, fig, msg, rx

LOG = LogWords(
    fingerprint=rx(r"\bI rkllm: |\bE rkllm: |\bE RKNN: |\brkllm_init\b|\brknn_init\b|\brkllm-runtime version\b"),
    messages=(
        # rknpu2's allocation of NPU memory that failed (its size in bytes): placed by what follows it or the step
        msg(r"\bfailed to malloc npu memory\b", "oom"),
        # ... then its own words that the model it was loading could not be (rknn_init / rkllm_init return an
        # error): the allocation was that model's weights
        msg(r"\bload model file error!|\bImport rknn model failed!|\brknn_init, load model failed!|"
            r"\bE rkllm: rkllm_init failed\b", "wrapper", "WEIGHTS"),
        # the runtime's query of the board it runs on that failed, before any model is read ("RKLLM starting, please
        # wait...", "rkllm-runtime version: 1.0.1", then "Query platform error!"): no Rockchip NPU it knows, or its
        # rknpu driver missing or too old for the runtime; not memory
        msg(r"^\s*(?:E (?:rkllm|RKNN): (?:\[[\d:.]+\] )?)?Query platform error!?\s*$", "not_oom", code="gpu-driver-error"),
    ),
    not_oom_advice={
        "gpu-driver-error": "the RKLLM runtime could not query the board's NPU platform: a board without a Rockchip NPU "
                            "it supports (RK3588, RK3576), or an rknpu driver missing or older than the runtime needs "
                            "(`cat /sys/kernel/debug/rknpu/version`); update the driver or use the runtime built for it.",
    },
    frames={"WEIGHTS": rx(r"\bloading rkllm model from\b|\brkllm_init\b|\brknn_init\b")},
    milestones=(("weights_done", rx(r"^\s*rkllm init success\b|\bLLM Model loaded in\b")),),
    figures=(
        fig("max_model_len", r"\bmax_context_len\s*[=:]\s*(\d+)", count),
        fig("quantization", r"\bmodel_dtype: (W\d+A\d+\w*)", lambda m: m.group(1).lower()),
    ),
)

ENGINE = Engine(
    name="rkllm", label="RKLLM", log=LOG, aliases=("rknn-llm", "rknn"),
    flags={"max_model_len": "max_context_len {n} (RKLLMParam)",
           "quantization": "a model converted to w4a16 (rkllm-toolkit quantized_dtype)",
           "quantization_4bit": "a model converted to w4a16 (rkllm-toolkit quantized_dtype)"},
)
