"""Type stubs of the compiled module (see `toolsieve_parser`)."""

from typing import Any, Iterable, List, Literal, Mapping, Optional, Tuple, Union

__version__: str

class ToolsieveError(ValueError):
    """What toolsieve refused: an unknown format or model, a bad tool list
    or request. The message is the Rust error's."""

Input = Union[str, bytes]
Tools = Optional[Iterable[Mapping[str, Any]]]
ReasoningSpec = Union[None, bool, Mapping[str, Any]]

class TextStart:
    id: str
    type: Literal["text-start"]
    def __init__(self, id: str) -> None: ...
    def to_dict(self) -> dict: ...

class TextDelta:
    id: str
    delta: str
    type: Literal["text-delta"]
    def __init__(self, id: str, delta: str) -> None: ...
    def to_dict(self) -> dict: ...

class TextEnd:
    id: str
    type: Literal["text-end"]
    def __init__(self, id: str) -> None: ...
    def to_dict(self) -> dict: ...

class ReasoningStart:
    id: str
    type: Literal["reasoning-start"]
    def __init__(self, id: str) -> None: ...
    def to_dict(self) -> dict: ...

class ReasoningDelta:
    id: str
    delta: str
    type: Literal["reasoning-delta"]
    def __init__(self, id: str, delta: str) -> None: ...
    def to_dict(self) -> dict: ...

class ReasoningEnd:
    id: str
    type: Literal["reasoning-end"]
    def __init__(self, id: str) -> None: ...
    def to_dict(self) -> dict: ...

class ToolInputStart:
    id: str
    tool_name: str
    model_call_id: Optional[str]
    type: Literal["tool-input-start"]
    def __init__(self, id: str, tool_name: str, model_call_id: Optional[str]) -> None: ...
    def to_dict(self) -> dict: ...

class ToolInputDelta:
    id: str
    delta: str
    type: Literal["tool-input-delta"]
    def __init__(self, id: str, delta: str) -> None: ...
    def to_dict(self) -> dict: ...

class ToolInputEnd:
    id: str
    type: Literal["tool-input-end"]
    def __init__(self, id: str) -> None: ...
    def to_dict(self) -> dict: ...

class ToolCall:
    id: str
    tool_name: str
    input: str
    raw_span: Tuple[int, int]
    model_call_id: Optional[str]
    type: Literal["tool-call"]
    def __init__(
        self, id: str, tool_name: str, input: str, raw_span: Tuple[int, int], model_call_id: Optional[str]
    ) -> None: ...
    def to_dict(self) -> dict: ...

class Markup:
    span: Tuple[int, int]
    type: Literal["markup"]
    def __init__(self, span: Tuple[int, int]) -> None: ...
    def to_dict(self) -> dict: ...

class Diagnostic:
    kind: str
    offset: int
    id: Optional[str]
    tool_name: Optional[str]
    message: str
    raw_span: Optional[Tuple[int, int]]
    type: Literal["diagnostic"]
    def __init__(
        self,
        kind: str,
        offset: int,
        id: Optional[str],
        tool_name: Optional[str],
        message: str,
        raw_span: Optional[Tuple[int, int]],
    ) -> None: ...
    def to_dict(self) -> dict: ...

Event = Union[
    TextStart, TextDelta, TextEnd, ReasoningStart, ReasoningDelta, ReasoningEnd,
    ToolInputStart, ToolInputDelta, ToolInputEnd, ToolCall, Markup, Diagnostic,
]

class Piece:
    """A piece's text and reasoning (deltas joined) and the calls that
    completed in it."""

    text: str
    reasoning: str
    calls: List[ToolCall]

class Parser:
    """The streaming parser of one model output in one format."""

    def __init__(
        self,
        format: str,
        tools: Tools = None,
        reasoning: ReasoningSpec = None,
        *,
        delimiters: Optional[Tuple[str, str]] = None,
        bare_call_at_start: Optional[bool] = None,
        read_calls: bool = True,
    ) -> None: ...
    @staticmethod
    def for_model(model: str, tools: Tools = None, *, thinking: Optional[bool] = None) -> "Parser": ...
    @property
    def format(self) -> str: ...
    @property
    def held_back(self) -> int: ...
    def feed(self, data: Input) -> List[Event]: ...
    def finish(self) -> List[Event]: ...
    def reset(self) -> None: ...
    def parse(self, data: Input) -> List[Event]: ...
    def feed_piece(self, data: Input) -> Piece: ...
    def finish_piece(self) -> Piece: ...
    def parse_piece(self, data: Input) -> Piece: ...

def formats() -> List[str]: ...
def format_for_model(model: str) -> str: ...
def format_reasoning(format: str) -> Optional[Tuple[str, str]]: ...
def tool_prompt(format: str, tools: Iterable[Mapping[str, Any]], template: Optional[str] = None) -> str: ...
def rewrite_chat_request(
    format: str, request: Mapping[str, Any], *, prompt_last: bool = False, reasoning_in_history: bool = False
) -> dict: ...
