"""Which GPU of the server decides: the pipeline stage with the least room (see `parallel`), and, where other
processes hold memory on some GPUs (`--gpu-used`), the rank whose free memory decides under the engine's rule
(each engine's module says its rule: `engines/vllm_ranks.py`, `engines/sglang.py` `SglangRules.budget` and
`imbalance`, `engines/llamacpp.py` `LlamaCppRules.free`). Pure.

A rank is a GPU of the server's tensor_parallel_size x pipeline_parallel_size, 0-based: stage x tensor_parallel_size
+ tensor rank, as vLLM and SGLang number their global ranks (a stage's GPUs are consecutive); llama.cpp's GPUs are
its devices in order.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engines import EngineRules, Settings
from .errors import UsageError
from .parallel import stages
from .spec import ModelSpec
from .units import parse_bytes

#: the most GPUs `--gpu-used` takes in one server (each gets a row of figures)
MAX_RANKS = 4096


def parse_gpu_used(text: str) -> tuple[tuple[int, int], ...]:
    """'0:2GiB,3:1.5GiB' -> ((0, 2 GiB), (3, 1.5 GiB)) in rank order. Raises UsageError naming --gpu-used."""
    hint = ("Write RANK:SIZE pairs, comma-separated, the ranks 0-based over the server's -tp x -pp GPUs: "
            "--gpu-used 0:2GiB,3:1.5GiB.")
    out: dict[int, int] = {}
    for part in (text or "").split(","):
        rank, colon, size = part.strip().partition(":")
        shown = part.strip() if len(part.strip()) <= 40 else part.strip()[:40] + "..."
        if not colon or not rank.strip().isdigit():
            raise UsageError(f"cannot read '{shown}' as RANK:SIZE.", option="--gpu-used", hint=hint)
        if len(rank.strip()) > 9:  # (int() of a very long string is slow or refused; no server has 10^9 GPUs)
            raise UsageError(f"GPU '{shown.split(':')[0]}' is not one of any server's GPUs.", option="--gpu-used",
                             hint=hint)
        r = int(rank)
        if r in out:
            raise UsageError(f"GPU {r} is given twice.", option="--gpu-used", hint="Give each GPU once.")
        out[r] = parse_bytes(size.strip(), option="--gpu-used")
    return tuple(sorted(out.items()))


def check_gpu_used(s: Settings, gpu_bytes: int) -> None:
    """Every rank given is a GPU of this server, and what others hold is less than the GPU's memory."""
    if not s.gpu_used:
        return
    world = s.world_size
    if world > MAX_RANKS:
        raise UsageError(f"takes servers of up to {MAX_RANKS:,} GPUs; this one has {world:,}.", option="--gpu-used")
    for r, b in s.gpu_used:
        if r >= world:
            raise UsageError(f"GPU {r} is not one of this server's: -tp {s.tensor_parallel_size} x -pp "
                             f"{s.pipeline_parallel_size} has ranks 0-{world - 1}.", option="--gpu-used",
                             hint="Ranks count the server's GPUs from 0, stage by stage (stage x tp + tensor rank).")
        if b >= gpu_bytes:
            raise UsageError(f"GPU {r}: {b / 2**30:.2f} GiB is at least the GPU's whole memory "
                             f"({gpu_bytes / 2**30:.2f} GiB).", option="--gpu-used",
                             hint="Give what other processes hold, as nvidia-smi shows it before the server starts.")


@dataclass(frozen=True, kw_only=True)
class Decision:
    """model: the stage whose figures the estimate shows; settings: with `rank` the GPU whose ledger it is;
    stage_rows / stage_note: per pipeline stage (see `Estimate.pipeline_stages`); deciding_rank: the GPU whose other
    processes decide the answer (its pool is the smallest, or its start check fails), None where they change
    nothing; rows: every rank's figures where `--gpu-used` is given; note: the deciding rank in words."""

    model: ModelSpec
    settings: Settings
    stage_rows: tuple
    stage_note: str | None
    deciding_rank: int | None
    rows: tuple
    note: str | None


def _figures(rules: EngineRules, part: ModelSpec, s: Settings, gpu_bytes: int) -> dict:
    b = rules.budget(part, s, gpu_bytes)
    pool = b.kv_pool_bytes or 0
    ref = b.refusal
    return {"kv_pool_bytes": max(0, pool), "kv_pool_shortfall_bytes": max(0, -pool),
            "kv_pool_tokens": rules.pool_tokens(part, s, pool), "refusal": ref, "pooled": b.kv_pool_bytes is not None}


def _key(f: dict, used: int, rank: int) -> tuple:
    ref = f["refusal"]
    order = 0 if ref is not None and ref.certain else 1 if ref is not None else 2
    return order, f["kv_pool_tokens"], f["kv_pool_bytes"], -f["kv_pool_shortfall_bytes"], -used, rank


def decide(model: ModelSpec, rules: EngineRules, s: Settings, gpu_bytes: int) -> Decision:
    """The stage and the rank that decide (see the module docstring): a rank that fails the engine's start check
    first, then the one with the fewest tokens of room; ties to the one others use most, then the lowest."""
    if rules.name == "llamacpp":
        return _llamacpp(model, rules, s)
    pp, tp = s.pipeline_parallel_size, s.tensor_parallel_size
    parts = stages(model, pp, rules.name) if pp > 1 else [model]
    given = dict(s.gpu_used)
    stage_rows, picks, start = [], [], 0
    for k, part in enumerate(parts):
        ranks = [r for r in given if k * tp <= r < (k + 1) * tp] if given else []
        idle = next((r for r in range(k * tp, (k + 1) * tp) if r not in given), None) if given else None
        cands = [(r, _figures(rules, part, s.with_(rank=r), gpu_bytes)) for r in ranks]
        if not given or idle is not None:
            cands.append((idle, _figures(rules, part, s.with_(rank=idle), gpu_bytes)))
        r, f = min(cands, key=lambda c: _key(c[1], s.used_on(c[0]), c[0] if c[0] is not None else -1))
        picks.append((k, r, f, dict(cands)))
        stage_rows.append({"stage": k + 1, "layers": f"{start}-{start + part.num_decoder_layers - 1}",
                           "weights_bytes": rules.weights_bytes(part, s), "kv_pool_bytes": f["kv_pool_bytes"],
                           "kv_pool_shortfall_bytes": f["kv_pool_shortfall_bytes"],
                           "kv_pool_tokens": f["kv_pool_tokens"]})
        start += part.num_decoder_layers
    k, rank, f, _ = min(picks, key=lambda p: _key(p[2], s.used_on(p[1]), p[1] if p[1] is not None else -1))
    stage_note = None
    if pp > 1:
        each = ", ".join(format(row["kv_pool_tokens"], ",") for row in stage_rows)
        stage_note = (f"pipeline stage {k + 1} of {pp} (layers {stage_rows[k]['layers']}) decides the pool: its "
                      f"{stage_rows[k]['kv_pool_tokens']:,} tokens of room are the fewest of the stages ({each}); the "
                      "figures above are that stage's")
    if not given:
        return Decision(model=parts[k], settings=s, stage_rows=tuple(stage_rows) if pp > 1 else (),
                        stage_note=stage_note, deciding_rank=None, rows=(), note=None)
    alone = _figures(rules, parts[k], s.with_(gpu_used=(), rank=None), gpu_bytes)
    changed = (f["kv_pool_bytes"], f["kv_pool_tokens"]) != (alone["kv_pool_bytes"], alone["kv_pool_tokens"])
    decides = f["refusal"] is not None or (changed if f["pooled"] else s.used_on(rank) > 0)
    rows = []
    for kk, _r, _f, cands in picks:
        idle = next((c for c in cands if c not in given), None)
        for r in range(kk * tp, (kk + 1) * tp):
            fr = cands.get(r) if r in cands else cands[idle]
            ref = fr["refusal"]
            rows.append({"rank": r, "stage": kk + 1, "used_bytes": s.used_on(r), "free_bytes": gpu_bytes - s.used_on(r),
                         "kv_pool_bytes": fr["kv_pool_bytes"], "kv_pool_tokens": fr["kv_pool_tokens"],
                         "starts": True if ref is None else (False if ref.certain else None)})
    note = _note(rules, s, rank if decides else None, f, alone, gpu_bytes)
    return Decision(model=parts[k], settings=s.with_(rank=rank), stage_rows=tuple(stage_rows) if pp > 1 else (),
                    stage_note=stage_note, deciding_rank=rank if decides else None, rows=tuple(rows), note=note)


def _note(rules: EngineRules, s: Settings, rank: int | None, f: dict, alone: dict, gpu_bytes: int) -> str:
    gib = 2**30
    held = ", ".join(f"GPU {r} {b / gib:.2f} GiB" for r, b in s.gpu_used)
    if f["refusal"] is not None:
        return f"{f['refusal'].why} (other processes hold: {held})"
    if rank is None:
        return (f"other processes hold {held}; under {rules.name}'s rule that changes no pool here: "
                + ("vLLM sizes the same pool on every GPU from total x gpu_memory_utilization, and each GPU's free "
                   "memory covers its request with vLLM's own memory beside it" if rules.name == "vllm" else
                   "every GPU keeps its room"))
    if not f["pooled"]:
        return (f"GPU {rank} decides: other processes hold {s.used_on(rank) / gib:.2f} GiB there, the least room of "
                f"the server's GPUs (other processes hold: {held}); the figures above are GPU {rank}'s")
    less = alone["kv_pool_bytes"] - f["kv_pool_bytes"]
    return (f"GPU {rank} decides the pool: other processes hold {s.used_on(rank) / gib:.2f} GiB there, and the engine "
            f"sizes one pool for all from the GPU with the least room ({less / gib:.2f} GiB less than with the GPUs "
            f"free; other processes hold: {held}); the figures above are GPU {rank}'s")


def _llamacpp(model: ModelSpec, rules, s: Settings) -> Decision:
    """llama.cpp: the layers split by each GPU's free memory; the GPU with the least room left decides."""
    if not s.gpu_used:
        return Decision(model=model, settings=s, stage_rows=(), stage_note=None, deciding_rank=None, rows=(),
                        note=None)
    k = rules._decisive(model, s)
    rows = tuple({**d, "free_bytes": s.gpu_memory_bytes - d["used_bytes"]} for d in rules.devices(model, s))
    gib = 2**30
    held = ", ".join(f"GPU {r} {b / gib:.2f} GiB" for r, b in s.gpu_used)
    note = (f"GPU {k} decides: llama.cpp splits the layers by each GPU's free memory (llama-model.cpp load_tensors; "
            f"other processes hold {held}), and GPU {k} has the least room left beside its layers and their KV cache "
            f"({len(rows[k]['layers'])} of the {model.num_decoder_layers + 1} layers); the figures above are GPU {k}'s")
    return Decision(model=model, settings=s.with_(rank=k), stage_rows=(), stage_note=None, deciding_rank=k,
                    rows=rows, note=note)


def refusal_advice(rules: EngineRules, s: Settings, gpu_bytes: int, ledger) -> list[tuple[str, str, str]]:
    """(change, flags, detail) for a start check the engine fails (`ledger`: the estimate's `_Ledger`, whose
    `with_settings` re-estimates): vLLM the largest gpu_memory_utilization that every GPU's free memory covers
    (`engines/vllm_ranks.py` `start_utilization`); SGLang the switch of its balance check; and for all, the memory
    the other processes hold."""
    ref = ledger.budget.refusal
    if ref is None:
        return []
    gib = 2**30
    out = []
    r = ref.rank
    if rules.name == "vllm":
        from .engines import vllm_ranks

        v = vllm_ranks.release_of(s.engine_version)
        u = vllm_ranks.start_utilization(v, s, gpu_bytes)
        if 0 < u < s.gpu_memory_utilization:
            at = ledger.with_settings(s.with_(gpu_memory_utilization=u))
            pool = at.budget.kv_pool_bytes or 0
            free = gpu_bytes - s.used_most
            own = vllm_ranks.own_memory_at_snapshot_bytes(v, s.tensor_parallel_size)
            holds = at.starts(s.max_model_len, s.concurrency)
            out.append(("a utilization that starts", f"--gpu-memory-utilization {u:g}",
                        f"the most that {vllm_ranks.gpu(r)}'s {free / gib:.2f} GiB free ({free / gpu_bytes:.3f} of "
                        f"{gpu_bytes / gib:.2f} GiB) covers with up to {own / gib:.2f} GiB of vLLM's own memory beside "
                        f"it; the pool is then {max(0, pool) / gib:.2f} GiB"
                        + ("" if holds else f", which holds no {s.max_model_len}-token sequence: shorten the context "
                                            "too")))
    if rules.name == "sglang":
        out.append(("warn instead of refusing", "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=0",
                    "SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1 in older releases: SGLang then sizes every GPU's pool "
                    f"from GPU {r}'s free memory, {max(0, ledger.budget.kv_pool_bytes or 0) / gib:.2f} GiB"))
    if r is not None and s.used_on(r):
        out.append((f"free GPU {r}", "", f"stop what holds {s.used_on(r) / gib:.2f} GiB on GPU {r}, or serve on GPUs "
                    "no other process uses (CUDA_VISIBLE_DEVICES)"))
    return out
