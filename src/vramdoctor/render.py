"""Renders an Estimate as a table (GiB = 2**30, labelled) or JSON. Computes nothing."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .estimate import Estimate
from .safe import printable
from .units import gib, human

if TYPE_CHECKING:  # rich is imported by render() alone: `--json` never needs it
    from rich.console import Console

VERDICT_TEXT = {
    "fits": "[green]fits[/green]",
    "weights_exceed": "[red]the weights alone exceed the budget[/red]",
    "kv_exceeds": "[yellow]the KV cache exceeds what is left[/yellow]",
    "refused": "[red]does not start[/red]",
}


def to_json(e: Estimate) -> str:
    return json.dumps(e.to_dict(), indent=2, default=str)


def _cell_text(verdict: str, starts: bool | None, concurrent: int, concurrency: int, pooled: bool,
               refusal: str = "", auto: tuple[int | None, int] = (None, 0)) -> str:
    """A grid cell's verdict: with a pool, a cell that does not fit at once still starts and queues; None is
    undetermined (what is not modelled decides it); a start check the engine fails whatever the cell (`refusal`)
    is said as such; Ollama with num_gpu unset starts with the layers that fit (`auto`: those layers, of how many)."""
    if auto[0] is not None:
        return (f"[yellow]starts with {auto[0]} of {auto[1]} layers on the GPU (num_gpu unset); all on the GPU: "
                + ("the weights alone exceed it" if verdict == "weights_exceed" else "the KV cache exceeds what is "
                   "left") + "[/yellow]")
    if refusal and starts is False:
        return f"[red]does not start: {printable(refusal)}[/red]"
    if refusal and starts is None:
        return f"[yellow]undetermined: {printable(refusal)}?[/yellow]"
    if starts is None:
        return (f"[yellow]undetermined: {concurrent} of {concurrency} at once if it starts[/yellow]"
                if verdict == "kv_exceeds" else "[yellow]undetermined: it fits if it starts[/yellow]")
    if verdict == "kv_exceeds" and starts and pooled:
        return f"[yellow]starts; {concurrent} of {concurrency} at once[/yellow]"
    if verdict == "kv_exceeds" and not starts:
        return "[red]does not start: " + ("one sequence exceeds the pool" if pooled else
                                          "the KV cache exceeds what is left") + "[/red]"
    return VERDICT_TEXT[verdict]


def render(e: Estimate, console: "Console") -> None:
    from rich.table import Table

    s = e.settings
    console.print(f"[bold]{printable(e.answer)}[/bold]")
    rules = {"llamacpp": "llama.cpp", "vllm": "vLLM", "sglang": "SGLang"}.get(e.engine, e.engine)
    engine = f"{e.front_end} ({rules}'s rules)" if e.front_end and e.front_end != e.engine else e.engine
    console.print(f"[bold]{printable(e.model)}[/bold] on {printable(e.gpu)} ({gib(e.gpu_memory_bytes)}), engine [bold]{printable(engine)}[/bold], "
                  f"tensor_parallel_size={s.tensor_parallel_size}, kv_cache_dtype={printable(s.kv_cache_dtype)}")
    layers = printable(", ".join(f"{n} {k}" for k, n in e.layer_counts.items()))
    console.print(f"layers: {layers}; the selected cell is [bold]{printable(e.cell_flags)}[/bold]")
    if e.engine_rules:
        console.print(f"rules: {printable(e.engine_rules)}")
    t = Table(title="Ledger per GPU (GiB = 2^30 bytes)", show_lines=False)
    t.add_column("item")
    t.add_column("value", justify="right")
    t.add_column("note")
    t.add_row("weights", gib(e.weights_bytes), printable(("exact: " if e.weights_exact else "") + e.weights_source))
    t.add_row("KV per token", f"{e.kv_bytes_per_token:,} B", "layers that grow with every token")
    if e.kv_window_bytes_per_seq:
        t.add_row("sliding-window KV / seq", human(e.kv_window_bytes_per_seq), "bounded by the window")
    if e.state_bytes_per_seq:
        t.add_row("recurrent state / seq", human(e.state_bytes_per_seq), "fixed size, linear-attention / Mamba")
    if e.engine_kv_bytes_per_token != e.kv_bytes_per_token:
        t.add_row(f"{printable(e.engine)} bytes per pool token", f"{e.engine_kv_bytes_per_token:,} B", "as the engine divides its pool")
    t.add_row(f"KV cache ({s.max_model_len} x {s.concurrency})", gib(e.kv_cache_bytes), "selected cell")
    for o in e.overheads:
        t.add_row(printable(o.name), human(o.bytes), printable(("estimate: " if o.estimated else "") + o.assumption))
    t.add_row("[bold]total[/bold]", f"[bold]{gib(e.total_bytes)}[/bold]",
              f"budget {gib(e.budget_bytes)}")
    if e.kv_pool_bytes is not None:
        t.add_row("KV pool the engine allocates", gib(e.kv_pool_bytes),
                  f"none: the rest is {gib(e.kv_pool_shortfall_bytes)} short" if e.kv_pool_shortfall_bytes else
                  f"{e.kv_pool_tokens:,} tokens of capacity" if e.kv_pool_tokens is not None else "")
    console.print(t)
    if e.grid:
        g = Table(title="KV cache and total per GPU by max_model_len x concurrency (GiB)")
        for col in ("max_model_len", "concurrency", "KV cache", "total", "verdict"):
            g.add_column(col, justify="right" if col != "verdict" else "left")
        for c in e.grid:
            g.add_row(str(c.max_model_len), str(c.concurrency), gib(c.kv_cache_bytes), gib(c.total_bytes),
                      _cell_text(c.verdict, c.starts, c.concurrent, c.concurrency, e.kv_pool_bytes is not None
                                 and e.engine != "llamacpp", e.refusal if e.starts is not True else "",
                                 (c.auto_gpu_layers, e.num_decoder_layers + 1)))
        console.print(g)
    run = min(s.concurrency, e.max_concurrency_fit)
    console.print(f"verdict for {s.max_model_len} x {s.concurrency}: "
                  f"{_cell_text(e.verdict, e.starts, run, s.concurrency, e.kv_pool_bytes is not None and e.engine != 'llamacpp', e.refusal, (e.auto_gpu_layers, e.num_decoder_layers + 1))}")
    if e.verdict == "refused":
        console.print(f"largest max_model_len and most concurrent sequences: none: the server does not start "
                      f"whatever the context ({printable(e.refusal)}); the advice below is what starts it")
    elif e.kv_cache_bytes == 0 and e.engine == "llamacpp":
        console.print(f"no KV cache on the GPU at this {printable(e.gpu_layers_flag)}: the context does not change what "
                      "the GPU holds")
    else:
        console.print(f"largest max_model_len at concurrency {s.concurrency}: {e.max_model_len_fit:,}; "
                      f"most concurrent sequences at {s.max_model_len} tokens: {e.max_concurrency_fit:,}")
    if e.engine == "llamacpp" and e.max_n_gpu_layers_fit is None:
        console.print(f"no {printable(e.gpu_layers_flag)} fits: the compute buffer and context alone exceed the GPU")
    elif e.max_n_gpu_layers_fit is not None:
        n = e.num_decoder_layers
        console.print(f"largest {printable(e.gpu_layers_flag)} that fits: {e.max_n_gpu_layers_fit} of {n + 1} (the output "
                      "layer counts); "
                      f"host memory: {gib(e.host_weights_bytes or 0)} of weights, "
                      f"{gib(e.host_kv_cache_bytes or 0)} of KV cache")
    for a in e.advice:
        if a.flags:
            console.print(f"  -> {printable(a.change)}: [bold]{printable(a.flags)}[/bold] ({printable(a.detail)})")
        else:
            console.print(f"  -> {printable(a.change)}: {printable(a.detail)}")
    for o in e.uncertain:
        if e.starts is not None and o.bytes < 0.01 * e.budget_bytes:
            continue  # too small to change anything here (it stays in the JSON)
        console.print(f"[dim]not modelled: {printable(o.name)}, up to {human(o.bytes)}: {printable(o.assumption)}[/dim]")
    for n in e.notes:
        console.print(f"[dim]note: {printable(n)}[/dim]")
