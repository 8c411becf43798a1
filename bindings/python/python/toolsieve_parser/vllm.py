"""toolsieve inside vLLM: one tool parser and one reasoning parser per
format, registered as `toolsieve_<format>`.

`pip install toolsieve-parser` registers them through vLLM's
`vllm.general_plugins` entry point; `--tool-parser-plugin
toolsieve_parser.vllm_plugin` (or that file's path) does the same by hand.
Then::

    vllm serve Qwen/Qwen3-8B --enable-auto-tool-choice \\
        --tool-call-parser toolsieve_hermes --reasoning-parser toolsieve_hermes

Both parsers are engine-based (`engine_based_streaming = True`): vLLM hands
them each new piece of text once, and calls `finish_streaming()` at the
end, so a response costs linear time however it is cut. The tool parser
reads no reasoning (vLLM gives reasoning to the reasoning parser, or, with
none configured, shows it as content). vLLM is imported only when these
are used: the core package does not depend on it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Dict, Optional, Sequence

from ._native import (
    Parser,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    TextDelta,
    formats,
)
from ._stream import plugin_name, plugin_parser, reasoning_tags


def register() -> None:
    """Registers `toolsieve_<format>` for every format with vLLM's tool and
    reasoning parser managers (the `vllm.general_plugins` entry point)."""
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    for format in formats():
        name = plugin_name(format)
        ToolParserManager.register_module(name=name, module=tool_parser_class(format))
        ReasoningParserManager.register_module(name=name, module=reasoning_parser_class(format))


@lru_cache(maxsize=None)
def _tool_base() -> type:
    """The tool parser class, built on vLLM's `ToolParser` when first asked
    for (so that importing this module does not import vLLM)."""
    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
        ExtractedToolCallInformation,
        FunctionCall,
        ToolCall,
        make_tool_call_id,
    )
    from vllm.tool_parsers.abstract_tool_parser import ToolParser

    class ToolsieveToolParser(ToolParser):
        """A toolsieve parser as a vLLM tool parser (see the module docs)."""

        engine_based_streaming = True
        toolsieve_format = "hermes"

        def __init__(self, tokenizer: Any, tools: Optional[list] = None, **kwargs: Any) -> None:
            super().__init__(tokenizer, tools)
            self._parser: Optional[Parser] = None
            self._calls = 0
            self._given_ids: set = set()

        def adjust_request(self, request: Any) -> Any:
            request = super().adjust_request(request)
            # Markers such as `<tool_call>` are special tokens in many
            # vocabularies: detokenized without them, no call can be found.
            # Nor may the detokenizer space them apart (`<|open|> tools
            # <|sep|>`): vLLM spaces special tokens unless both flags are off.
            if request.tools and request.tool_choice != "none" and hasattr(request, "skip_special_tokens"):
                request.skip_special_tokens = False
                if hasattr(request, "spaces_between_special_tokens"):
                    request.spaces_between_special_tokens = False
            return request

        def extract_tool_calls(self, model_output: str, request: Any) -> Any:
            piece = plugin_parser(self.toolsieve_format, self.tools).parse_piece(model_output)
            given: set = set()
            calls = [
                ToolCall(
                    id=self._call_id(call, given),
                    type="function",
                    function=FunctionCall(name=call.tool_name, arguments=call.input),
                )
                for call in piece.calls
            ]
            return ExtractedToolCallInformation(
                tools_called=bool(calls), tool_calls=calls, content=piece.text or None
            )

        def extract_tool_calls_streaming(
            self,
            previous_text: str,
            current_text: str,
            delta_text: str,
            previous_token_ids: Sequence[int],
            current_token_ids: Sequence[int],
            delta_token_ids: Sequence[int],
            request: Any,
        ) -> Any:
            if self._parser is None:
                self._parser = plugin_parser(self.toolsieve_format, self.tools)
                self._calls = 0
                self._given_ids = set()
            return self._delta(self._parser.feed_piece(delta_text))

        def finish_streaming(self) -> Any:
            """The end of the stream: what the parser held back, calls cut
            short (their text), and the parser ready for the next stream."""
            if self._parser is None:
                return None
            parser, self._parser = self._parser, None
            return self._delta(parser.finish_piece())

        @staticmethod
        def _call_id(call: Any, given: set) -> str:
            # The model's own id (Kimi's `functions.f:0`, Mistral's
            # `[CALL_ID]`), unless an earlier call of the answer had it.
            if call.model_call_id and call.model_call_id not in given:
                given.add(call.model_call_id)
                return call.model_call_id
            return make_tool_call_id()

        def _delta(self, piece: Any) -> Any:
            calls = piece.calls
            if not calls:
                return DeltaMessage(content=piece.text) if piece.text else None
            tool_calls = []
            for index, call in enumerate(calls, self._calls):
                tool_calls.append(
                    DeltaToolCall(
                        index=index,
                        id=self._call_id(call, self._given_ids),
                        type="function",
                        function=DeltaFunctionCall(name=call.tool_name, arguments=call.input),
                    )
                )
                # What vLLM checks at the end for arguments not yet sent:
                # all of them were.
                self.prev_tool_call_arr.append({"name": call.tool_name, "arguments": call.input})
                self.streamed_args_for_tool.append(call.input)
                self.current_tool_id = index
            self._calls += len(calls)
            return DeltaMessage(content=piece.text or None, tool_calls=tool_calls)

    return ToolsieveToolParser


def tool_parser_class(format: str) -> type:
    """vLLM's tool parser class for a toolsieve format."""
    return type(
        "Toolsieve" + plugin_name(format).title().replace("_", "") + "ToolParser",
        (_tool_base(),),
        {"toolsieve_format": format, "__module__": __name__},
    )


@lru_cache(maxsize=None)
def _reasoning_base() -> type:
    from vllm.entrypoints.generate.base.protocol import DeltaMessage
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParser

    class ToolsieveReasoningParser(ReasoningParser):
        """A toolsieve parser reading only reasoning, as a vLLM reasoning
        parser: reasoning ends at the end tag, or at once when the output
        begins with something else than the start tag."""

        engine_based_streaming = True
        toolsieve_format = "hermes"
        toolsieve_reasoning: Optional[Dict[str, Any]] = None

        def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
            super().__init__(tokenizer, *args, **kwargs)
            self._tags = reasoning_tags(self.toolsieve_format, self.toolsieve_reasoning)
            self._stream: Optional[_ReasoningStream] = None

        @property
        def reasoning_start_str(self) -> Optional[str]:
            return self._tags["start"]

        @property
        def reasoning_end_str(self) -> Optional[str]:
            return self._tags["end"]

        def _parser(self) -> Parser:
            return Parser(self.toolsieve_format, reasoning=self._tags, read_calls=False)

        def _open_at(self, token_ids: Sequence[int]) -> bool:
            """Whether the text of `token_ids` leaves a reasoning block open."""
            text = self.model_tokenizer.decode(list(token_ids)) if token_ids else ""
            return text.rfind(self._tags["start"]) > text.rfind(self._tags["end"])

        def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
            text = self.model_tokenizer.decode(list(input_ids)) if input_ids else ""
            end = text.rfind(self._tags["end"])
            return end >= 0 and end > text.rfind(self._tags["start"])

        def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Any) -> bool:
            return self._stream is not None and self._stream.ended

        def has_engine_confirmed_reasoning_end(self) -> bool:
            return self._stream is not None and self._stream.ended

        def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
            if self._open_at(prompt_token_ids[-64:]):
                self._tags["starts_open"] = True

        def extract_content_ids(self, input_ids: list) -> list:
            end_id = self.vocab.get(self._tags["end"])
            if end_id is None or end_id not in input_ids:
                return input_ids
            return input_ids[len(input_ids) - input_ids[::-1].index(end_id) :]

        def extract_reasoning(self, model_output: str, request: Any) -> "tuple[Optional[str], Optional[str]]":
            stream = _ReasoningStream(self._parser())
            reasoning, content = stream.split(stream.parser.parse(model_output), final=True)
            return (reasoning if stream.had_reasoning else None), (content or None)

        def extract_reasoning_streaming(
            self,
            previous_text: str,
            current_text: str,
            delta_text: str,
            previous_token_ids: Sequence[int],
            current_token_ids: Sequence[int],
            delta_token_ids: Sequence[int],
        ) -> Any:
            if self._stream is None:
                self._stream = _ReasoningStream(self._parser())
            return _message(DeltaMessage, *self._stream.split(self._stream.parser.feed(delta_text)))

        def finish_streaming(self) -> Any:
            if self._stream is None:
                return None
            stream, self._stream = self._stream, None
            return _message(DeltaMessage, *stream.split(stream.parser.finish(), final=True))

    return ToolsieveReasoningParser


def _message(message_type: type, reasoning: str, content: str) -> Any:
    if not reasoning and not content:
        return None
    return message_type(reasoning=reasoning or None, content=content or None)


class _ReasoningStream:
    """Splits a reasoning-only parser's events into reasoning and content,
    and tells when reasoning is over: at its end tag, or at the first text
    that is not whitespace when the output did not open with reasoning."""

    def __init__(self, parser: Parser) -> None:
        self.parser = parser
        self.ended = False
        self.had_reasoning = False
        self._blank = ""

    def split(self, events: Sequence[Any], final: bool = False) -> "tuple[str, str]":
        reasoning: list = []
        content: list = []
        for event in events:
            if isinstance(event, (ReasoningStart, ReasoningDelta)):
                # Whitespace before the reasoning block is content.
                content.append(self._blank)
                self._blank = ""
                self.had_reasoning = True
                if isinstance(event, ReasoningDelta):
                    reasoning.append(event.delta)
            elif isinstance(event, ReasoningEnd):
                self.ended = True
            elif isinstance(event, TextDelta):
                if self.ended:
                    content.append(event.delta)
                elif event.delta.strip():
                    # No reasoning block opens the output: it is all content.
                    self.ended = True
                    content.append(self._blank + event.delta)
                    self._blank = ""
                else:
                    self._blank += event.delta
        if final:
            content.append(self._blank)
            self._blank = ""
        return "".join(reasoning), "".join(content)


def reasoning_parser_class(format: str, reasoning: Optional[Dict[str, Any]] = None) -> type:
    """vLLM's reasoning parser class for a toolsieve format, reading the
    format's reasoning tags or `reasoning` (`{"start", "end",
    "starts_open"}`)."""
    return type(
        "Toolsieve" + plugin_name(format).title().replace("_", "") + "ReasoningParser",
        (_reasoning_base(),),
        {"toolsieve_format": format, "toolsieve_reasoning": reasoning, "__module__": __name__},
    )
