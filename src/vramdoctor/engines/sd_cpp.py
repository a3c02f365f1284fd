"""stable-diffusion.cpp (leejet/stable-diffusion.cpp): image models (SD 1.x/2.x/XL, SD3, Flux, Qwen-Image) on ggml, the
same back ends as llama.cpp, run alone (`sd`, `sd-server`) or inside KoboldCpp and LocalAI. Its memory is each model's
weights, placed in a "params backend buffer" per model (the diffusion model, its text encoders such as CLIP and T5,
the VAE), and the compute buffers each graph allocates when it runs, per image: the text encoders' when the prompt is
read, the diffusion model's while sampling, the VAE's when the latents are decoded (the largest at a large image size).
It keeps no KV cache.

Sources (stable-diffusion.cpp): `ggml_extend.hpp` (`alloc_params_buffer`: "%s params backend buffer size = %.2f MB",
"%s alloc params backend buffer failed, num_tensors = %i"; `alloc_compute_buffer`: "%s compute buffer size: %.2f MB"),
`model.cpp` / `model_loader.cpp` ("loading tensors completed, taking %.2fs"), `stable-diffusion.cpp` ("sampling
completed", "generating image: %i/%i - seed %" , "decoding %zu latents", "get_learned_condition completed"), its
options `-W`/`-H`, `--vae-tiling`, `--clip-on-cpu`, `--vae-on-cpu`, `--offload-to-cpu`, `--type`.
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import msg, rx

#: an image's work under way or done: a request's
_IMAGE = (r"\bgenerating image: \d+/\d+\b|\bsampling completed\b|\bdecoding \d+ latents?\b|\bget_learned_condition "
          r"completed\b|\bencode_first_stage completed\b|\bgenerating \d+ latent images? completed\b|"
          # (the image asked for, stable-diffusion.cpp's generate_image: "txt2img 1536x1536", "img2img 1024x1024")
          r"\b(?:txt2img|img2img|img2vid) \d+x\d+\b")

LOG = LogWords(
    # (a graph's compute buffer that could not be allocated, the text encoder's, the diffusion model's or the VAE's:
    # made for the image under way, as it runs; ggml_extend.hpp: "%s: failed to allocate the compute buffer")
    messages=(msg(r"\b\w+: failed to allocate the compute buffer\b", "oom", "RUNTIME", "compute-buffer-alloc-failed"),),
    fingerprint=rx(r"\bstable-diffusion\.cpp:\d+\b|\bggml_extend\.hpp:\d+\b|\b(?:flux|unet|mmdit|vae|clip|t5)\.hpp:\d+ +- |"
                   r"\bparams backend buffer size =|\balloc params backend buffer failed\b"),
    frames={
        # (a model's weights placed: its params buffer, or the loader reading its tensors)
        "WEIGHTS": rx(r"\balloc params backend buffer failed\b|\bparams backend buffer size =|"
                      r"\bmodel_loader\.cpp:\d+ +- loading (?:\d+/\d+ )?tensors from\b"),
        # (a graph's compute buffer, made when it runs for an image: its size line, then the allocation)
        "RUNTIME": rx(r"\b\w+ compute buffer size: [\d.]+ ?MB\b|" + _IMAGE),
    },
    milestones=(("weights_done", rx(r"\bloading tensors completed, taking\b|\bloading model from '[^'\n]*' completed, taking\b")),
                ("requests", rx(_IMAGE))),
)

ENGINE = Engine(
    name="sd.cpp", label="stable-diffusion.cpp", log=LOG, aliases=("stable-diffusion.cpp", "sd-cpp", "sdcpp"),
    flags={"max_model_len": "a smaller image (-W / -H, {n}) or --vae-tiling",
           "cpu_offload": "--offload-to-cpu, --clip-on-cpu or --vae-on-cpu",
           "quantization": "a quantized model (--type q8_0 or q4_0, or a q4_0 GGUF of it)",
           "quantization_4bit": "a 4-bit model (--type q4_0, or a q4_0 / q4_K GGUF of it)"},
)
