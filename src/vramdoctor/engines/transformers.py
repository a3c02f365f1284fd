"""Hugging Face transformers / accelerate, used directly (`from_pretrained`, `generate`).

Sources: `transformers/modeling_utils.py` (`_load_state_dict_into_meta_model`, "Loading checkpoint shards"),
`transformers/generation/utils.py` (`generate`, `_sample`), accelerate `big_modeling.py` (`dispatch_model`).
"""

from __future__ import annotations

from .interface import Engine, LogWords
from .words import msg, rx

LOG = LogWords(
    load_is_weights=True,  # (its start-up is the weights' load: no pool sized, no warm-up)
    fingerprint=rx(r"transformers/(?:modeling_utils|generation/utils|models/)|from_pretrained|accelerate/|"
                   r"_load_state_dict_into_meta_model|Loading checkpoint shards|"
                   # (FastChat's transformers worker, which Langchain-Chatchat runs: fastchat/serve/model_worker.py, its
                   # load_8bit setting; not its vllm_worker)
                   r"\bfastchat[/.]serve[/.]model_worker\b|\bload_8bit\s*=\s*(?:True|False)\b"),
    # (and bitsandbytes quantizing each weight as it is placed on the GPU: integrations/bitsandbytes.py
    # set_module_quantized_tensor_to_device, bitsandbytes' Params4bit.cuda / Int8Params.cuda)
    frames={"WEIGHTS": rx(r"_load_state_dict_into_meta_model|_load_pretrained_model|dispatch_model|"
                          r"\bload_checkpoint_in_model\b|"
                          # (bitsandbytes' own load of a weight, its Params4bit / Int8Params moved to the GPU and
                          # quantized: not its layers' forward, Linear4bit.forward, which is a model's pass)
                          r"set_module_quantized_tensor_to_device|\bin (?:Params4bit|Int8Params)\.|"
                          r"bitsandbytes/nn/modules\.py\W+line \d+, in (?:cuda|to|_quantize|__new__|from_prequantized)\b|"
                          # (a script's own line that it moves the model it loaded onto the device: "Moving model to
                          # mps...", "moving the model to cuda")
                          r"\b[Mm]oving (?:the )?model to (?:cuda|gpu|mps|xpu|npu|hpu|the GPU|device)\b|"
                          # (an adapter merged into the base weights, each merged weight made on the device: peft's
                          # tuners/lora/model.py merge_and_unload -> _unload_and_optionally_merge -> onload_layer, its
                          # layer's `merge`; unsloth's save.py `_merge_lora` for save_pretrained_merged)
                          r"\bpeft[/\\]tuners[/\\]\S+\.py(?::\d+,|\x22, line \d+,)? in (?:\w+\.)?(?:merge_and_unload|"
                          r"_unload_and_optionally_merge|merge_adapter|merge|onload_layer)\b|"
                          r"\bunsloth[/\\]save\.py(?::\d+,|\x22, line \d+,)? in (?:_merge_lora|unsloth_save_model)\b"),
            # (and a model's own forward pass, its modeling file's `forward` as Python or IPython prints the frame:
            # "transformers/models/gemma3/modeling_gemma3.py:754, in Gemma3TextModel.forward(", accelerate's hook
            # around it, hooks.py `new_forward`: the weights are in place and an input is going through; an engine's
            # start-up frames around it, vLLM's profiling run over its transformers back end, win as start-up steps)
            "RUNTIME": rx(r"generation/utils\.py|\bin _sample\b|\bin generate\b|"
                          # (also a modeling file kept outside transformers, as remote code or copied into a project:
                          # "transformers_modules/InternVL2-4B/modeling_internvl_chat.py", "vlmeval/vlm/qwen2_vl/
                          # modeling_qwen2_5_vl.py\", line 273, in forward", its path's head cut off)
                          r"(?:^|[/\\\s\x22])modeling_\w+\.py(?::\d+,|\x22, line \d+,)? in (?:\w+\.)?forward\b|"
                          r"accelerate[/\\]hooks\.py(?::\d+,|\x22, line \d+,)? in new_forward\b|"
                          # (a model's own inference method in its remote code, as Python or IPython prints the frame:
                          # moondream2's "transformers_modules/.../moondream.py in query(self, image, ...)", Qwen-VL's
                          # "modeling_qwen.py\", line 947, in chat", InternVL's "modeling_internvl_chat.py:285, in
                          # InternVLChatModel.batch_chat(": the weights are in place and an input is going through)
                          r"transformers_modules[/\\]\S+\.py(?::\d+,|\x22, line \d+,)? in (?:\w+\.)?(?:chat|stream_chat|"
                          r"batch_chat|query|caption|detect|point|answer_question|encode_image|generate\w*|forward|"
                          r"predict|infer\w*|transcribe|describe)\b|"
                          # (the eager attention's own lines, its scores over the input: modeling_*.py's
                          # "attn_weights = torch.matmul(query_states, key_states.transpose(2, 3))", the shared
                          # `eager_attention_forward` of 4.48+)
                          r"\btorch\.matmul\(query_states, key_states\.transpose\(2, 3\)\)|\beager_attention_forward\b|"
                          # (... as the vision towers and older modeling files write it, the scores of a query and a
                          # key: "attn_weights = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(self.head_dim)")
                          r"\b(?:attn_weights|attn_scores|attention_scores|scores)\s*=\s*torch\.matmul\(\s*(?:q|query|"
                          r"query_states|query_layer)\s*,\s*(?:k|key|key_states|key_layer)\.transpose\(")},
    # the loader proper: transformers' own from_pretrained (modeling_utils.py, and the Auto classes' in
    # models/auto/auto_factory.py) builds the model and reads its weights, nothing else: frames cut inside it are the
    # load, whatever came below them
    # (and accelerate's, which a model built empty is loaded by: big_modeling.py load_checkpoint_and_dispatch,
    # utils/modeling.py load_checkpoint_in_model, which sets each weight on its device)
    loader=rx(r"transformers[/\\](?:modeling_utils|models[/\\]auto[/\\]auto_factory)\.py\W+line \d+, in from_pretrained\b|"
              r"\b_load_state_dict_into_meta_model\b|\b_load_pretrained_model\b|"
              r"accelerate[/\\](?:big_modeling|utils[/\\]modeling)\.py\W+line \d+, in (?:load_checkpoint_and_dispatch|"
              r"load_checkpoint_in_model)\b"),
    # the quantizer refusing a device map that put modules on the CPU or the disk (quantizers/quantizer_bnb_4bit.py and
    # _8bit.py validate_environment: "Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU
    # RAM to fit the quantized model."): accelerate's map did not fit the weights on the GPU, before any moved
    messages=(
        # generate refusing an input longer than its max_length (generation/utils.py: "Input length of input_ids is
        # 8223, but `max_length` is set to 8024. This can lead to unexpected behavior."), a script's loop reporting it
        # per item ("Error processing index 1: ..."): that input, too long for the limit set; not memory
        msg(r"\bInput length of input_ids is \d+, but `max_length` is set to \d+", "request"),
        msg(r"\bSome modules are dispatched on the CPU or the disk\. Make sure you have enough GPU RAM to fit\b",
                  "oom", "WEIGHTS", "weights-exceed-gpu-memory"),),
    # no KV pool made at start: after the checkpoint's shards are read come the weights moved to the device (a script's
    # `model.to("cuda")` after loading on the CPU) or the first `generate`, whose cache grows with it
    after={"weights_done": ("WEIGHTS", "RUNTIME")},
    # a generation begun: `generate`'s own warnings at each call (generation/utils.py: "Setting `pad_token_id` to
    # `eos_token_id`:2 for open-end generation.", "Both `max_new_tokens` (=200) and `max_length`(=200) seem to have been
    # set.", "Input length of input_ids is 1200, but `max_length` is set to 1024", "The attention mask and the pad
    # token id were not set", "A decoder-only architecture is being used, but right-padding was detected"), and the
    # text2text pipeline's check of each input (pipelines/text2text_generation.py: "Your input_length: 1024 is bigger
    # than 0.9 * max_length: 200")
    milestones=(("requests", rx(r"\bSetting `pad_token_id` to `eos_token_id`:\s*\d+ for open-end generation|"
                                r"\bBoth `max_new_tokens` \(=\d+\) and `max_length` ?\(=\d+\) seem to have been set\b|"
                                r"\bInput length of input_ids is \d+, but `max_length` is set to \d+|"
                                r"\bThe attention mask and the pad token id were not set\b|"
                                r"\bA decoder-only architecture is being used, but right-padding was detected\b|"
                                r"\bYour input_length: \d+ is bigger than 0\.9 \* max_length\b")),),
)

ENGINE = Engine(
    name="transformers", label="transformers", log=LOG, aliases=("hf", "accelerate", "huggingface"),
    flags={"max_model_len": "a shorter input / max_new_tokens ({n})", "max_num_seqs": "a smaller batch ({n})",
           "kv_cache_dtype": "cache_implementation='quantized'", "max_num_batched_tokens": "smaller batches",
           "tensor_parallel_size": "device_map='auto' across GPUs",
           "quantization": "load_in_4bit (bitsandbytes) or an AWQ/GPTQ checkpoint",
           "quantization_4bit": "load_in_4bit (bitsandbytes) or an AWQ/GPTQ checkpoint",
           "cpu_offload": "device_map='auto' with max_memory (the rest on the CPU)",
           "flash_attn": "attn_implementation='sdpa' or 'flash_attention_2'"},
)
