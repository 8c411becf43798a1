"""Shared by the tests: the golden cases of `testdata/`, and what it takes
to import vLLM's and SGLang's parser code on a machine without a GPU.

Why `stand_in/torch` exists: vLLM 0.33 and SGLang 0.5.23 import `torch`
(and SGLang a transformers model module built on it) when their packages
load, though their tool and reasoning parsers never call it. The real
`torch` wheel with its CUDA libraries is gigabytes, too much for every CI
run, so when `torch` is not installed the tests put an import-time
stand-in first on `sys.path`: a module whose every attribute is an inert
placeholder. It stands in for nothing the parsers use: the parsers under
test, their request and message types, `DelegatingParser` and
`FunctionCallParser` are the servers' own code, run as shipped. SGLang
wraps its transformers patch in `except ImportError`, so that module is
marked missing rather than imported over the stand-in.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

HERE = Path(__file__).resolve().parent
TESTDATA = HERE.parents[2] / "testdata"

if importlib.util.find_spec("torch") is None:
    sys.path.insert(0, str(HERE / "stand_in"))
    sys.modules.setdefault("transformers.models.llama.modeling_llama", None)  # type: ignore[arg-type]


@dataclass
class Case:
    """A golden case: `testdata/<format>/<name>.txt` and its expectations."""

    format: str
    name: str
    raw: bytes
    events: List[dict]
    tools: Optional[list]
    reasoning: Optional[dict]

    @property
    def servable(self) -> bool:
        """Whether a server can give this output as text: its bytes are
        UTF-8 (a detokenizer replaces invalid bytes before any parser sees
        them; the Rust and Python-API tests cover those bytes)."""
        return self.text.encode() == self.raw

    @property
    def text(self) -> str:
        """The output as a server's detokenizer gives it (invalid UTF-8 as
        U+FFFD)."""
        return self.raw.decode("utf-8", "replace")

    def expected(self) -> "Expected":
        return Expected.of(self.events)

    def __repr__(self) -> str:
        return f"{self.format}/{self.name}"


@dataclass
class Expected:
    """What a chat response made from a case's events carries."""

    content: str
    reasoning: str
    calls: List[tuple]
    # Reasoning after text or a call, or a call inside reasoning: vLLM,
    # which gives reasoning and calls to two parsers in turn, cannot say
    # that; SGLang cannot say the latter.
    reasoning_not_first: bool
    call_in_reasoning: bool

    @classmethod
    def of(cls, events: List[dict]) -> "Expected":
        content, reasoning, calls = [], [], []
        seen_text = in_reasoning = not_first = call_inside = False
        for e in events:
            kind = e["type"]
            if kind == "text-delta":
                content.append(e["delta"])
                seen_text = seen_text or bool(e["delta"].strip())
            elif kind == "reasoning-start":
                not_first = not_first or seen_text or bool(calls)
                in_reasoning = True
            elif kind == "reasoning-delta":
                reasoning.append(e["delta"])
            elif kind == "reasoning-end":
                in_reasoning = False
            elif kind == "tool-call":
                not_first = not_first or in_reasoning
                call_inside = call_inside or in_reasoning
                calls.append((e["toolName"], e["input"], e.get("modelCallId")))
        return cls("".join(content), "".join(reasoning), calls, not_first, call_inside)


def golden_cases() -> List[Case]:
    cases = []
    for directory in sorted(p for p in TESTDATA.iterdir() if p.is_dir() and p.name != "bench"):
        for txt in sorted(directory.glob("*.txt")):
            stem = txt.with_suffix("")
            tools_path = Path(str(stem) + ".tools.json")
            reasoning_path = Path(str(stem) + ".reasoning.json")
            cases.append(
                Case(
                    format=directory.name,
                    name=stem.name,
                    raw=txt.read_bytes(),
                    events=[json.loads(line) for line in Path(str(stem) + ".jsonl").read_text().splitlines()],
                    tools=json.loads(tools_path.read_text()) if tools_path.exists() else None,
                    reasoning=json.loads(reasoning_path.read_text()) if reasoning_path.exists() else None,
                )
            )
    return cases


CASES = golden_cases()


# Outputs longer than this (the 64 KB arguments and long prose of the
# goldens) get a sample of the cuttings in the server tests: every cutting
# of them would be hundreds of thousands of server calls, and the Rust
# goldens test every split of them already.
LONG = 4096


def split_points(text: str) -> range:
    """Every split point of a text up to `LONG` characters; 256 spread
    evenly over a longer one."""
    if len(text) <= LONG:
        return range(1, len(text))
    return range(1, len(text), len(text) // 256 + 1)


def delta_sizes(text: str) -> range:
    """Delta sizes: every one from 1 to 64 characters; for a long text,
    1, 2, 3, 7, 16 and 64."""
    return range(1, 65) if len(text) <= LONG else (1, 2, 3, 7, 16, 64)


def chunked(text: str, size: int) -> List[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def print_table(title: str, rows: List[List[str]]) -> None:
    """A markdown table on the test run's output (`pytest -s`), and in
    `$TOOLSIEVE_TABLE_DIR/<title>.md` when that is set."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    text = f"\n### {title}\n\n" + "\n".join(lines) + "\n"
    print(text)
    out = os.environ.get("TOOLSIEVE_TABLE_DIR")
    if out:
        Path(out, title.replace(" ", "_") + ".md").write_text(text)


def merged(events: list) -> List[dict]:
    """Events as dicts with adjacent deltas of one part joined, as the
    Rust goldens store them."""
    out: List[dict] = []
    for event in events:
        d = event.to_dict() if hasattr(event, "to_dict") else dict(event)
        last = out[-1] if out else None
        if (
            last is not None
            and d["type"] in ("text-delta", "reasoning-delta", "tool-input-delta")
            and last["type"] == d["type"]
            and last["id"] == d["id"]
        ):
            last["delta"] += d["delta"]
        else:
            out.append(d)
    return out


# Markers written as single special tokens, as the models' vocabularies have
# them: the servers' own parsers look some of them up by token id.
SPECIAL_TOKENS = [
    "<tool_call>", "</tool_call>", "<think>", "</think>", "<tool_response>", "</tool_response>",
    "<|python_tag|>", "<|eom_id|>", "<|eot_id|>", "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]",
    "<|tool_call|>", "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>",
    "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>",
    "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>", "<｜DSML｜function_calls>", "<minimax:tool_call>", "</minimax:tool_call>",
    "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<|START_ACTION|>", "<|END_ACTION|>",
    "<|channel|>", "<|message|>", "<|end|>", "<|call|>", "<|start|>", "<|constrain|>",
    "<start_function_call>", "<end_function_call>", "<escape>", "<|tool_call>", "<tool_call|>",
    "<function_calls>", "</function_calls>", "functools", "<|START_THINKING|>", "<|END_THINKING|>",
    "<seed:tool_call>", "</seed:tool_call>", "<seed:think>", "</seed:think>", "<seed:eos>",
    "<|open|>", "<|close|>", "<|sep|>",
]


def byte_tokenizer():
    """A real Hugging Face tokenizer, made here: one token per byte, and
    the formats' markers as special tokens. vLLM and SGLang parsers look up
    marker ids in it and decode with it, as with a model's."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    tokenizer = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tokenizer.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer)
    fast.add_special_tokens({"additional_special_tokens": SPECIAL_TOKENS})
    return fast


def token_pieces(tokenizer, text: str) -> List[tuple]:
    """The text as a server streams it, one token a step: (delta_text,
    token_ids), bytes of one character kept together as a detokenizer
    does."""
    pieces, pending = [], []
    for token in tokenizer.encode(text, add_special_tokens=False):
        pending.append(token)
        piece = tokenizer.decode(pending)
        if not piece.endswith("\ufffd") or len(pending) >= 4:
            pieces.append((piece, pending))
            pending = []
    if pending:
        pieces.append((tokenizer.decode(pending), pending))
    return pieces


def require_server(module: str):
    """Imports a server package; CI sets TOOLSIEVE_REQUIRE_SERVERS=1 so a
    missing one fails the run instead of skipping its tests."""
    import pytest

    if os.environ.get("TOOLSIEVE_REQUIRE_SERVERS"):
        return importlib.import_module(module)
    return pytest.importorskip(module)
