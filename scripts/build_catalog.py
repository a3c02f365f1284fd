"""Build src/vramdoctor/catalog/models.json from ../shared/data/configs (run once; the output is committed).

Each entry: the real config.json, the exact checkpoint bytes where the source
gave them (`*.index_total_size.txt`), and where both came from.

Entries marked `"curated": true` were added by hand from other public copies
(vendored configs in mlc-llm, tt-metal, aiconfigurator, ...; `source` and
`source_notes` say which and how each was checked). They are not in the shared
folder, so a rebuild keeps them as they are in the current models.json.
"""

import json
import sys
from pathlib import Path

src = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/configs")
out = Path(__file__).resolve().parent.parent / "src/vramdoctor/catalog/models.json"
models = {}
for line in (src / "index.jsonl").read_text().splitlines():
    rec = json.loads(line)
    model_id = rec["model_id"].split(" (")[0].replace("(-Chat)", "")
    if rec["config_file"].startswith("derivative__"):  # a user's re-save: never under the original's name
        model_id = rec["config_file"].removesuffix(".config.json").replace("__", "/")
    cfg_file = src / rec["config_file"]
    try:
        cfg = json.loads(cfg_file.read_text())
    except (OSError, json.JSONDecodeError):
        continue
    if "num_hidden_layers" not in cfg and "text_config" not in cfg and "n_layer" not in cfg:
        continue  # GGUF stubs hold only model_type
    stem = rec["config_file"].removesuffix(".config.json")
    size_file = src / f"{stem}.index_total_size.txt"
    total = rec.get("total_size_bytes")
    if total is None and size_file.exists():
        digits = "".join(ch for ch in size_file.read_text().split("\n")[0] if ch.isdigit())
        total = int(digits) if digits else None
    size_source = "checkpoint index metadata.total_size" if total else None
    shards = src / f"{stem}.lfs_shard_sizes.txt"
    if total is None and shards.exists():
        total = sum(int(line.split()[-1]) for line in shards.read_text().splitlines() if line.strip())
        size_source = "sum of safetensors shard file sizes (headers included)"
    quant = src / f"{stem}.hf_quant_config.json"
    models[model_id] = {
        "config": cfg,
        "total_size_bytes": total,
        "total_size_source": size_source,
        "hf_quant_config": json.loads(quant.read_text()) if quant.exists() else None,
        "source": f"{rec['source_repo']}@{rec['commit'][:12]}:{rec['source_path']}",
    }
if out.exists():  # keep the hand-sourced entries (see the docstring)
    for model_id, entry in json.loads(out.read_text())["models"].items():
        if entry.get("curated") and model_id not in models:
            models[model_id] = entry
out.write_text(json.dumps({"models": dict(sorted(models.items()))}, indent=1, sort_keys=False) + "\n")
print(f"{len(models)} models -> {out}")
