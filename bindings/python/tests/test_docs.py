"""The Python examples of the docs run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DOCS = [ROOT / "docs" / "python.md", ROOT / "bindings" / "python" / "README.md"]
EXAMPLES = [
    pytest.param(block, id=f"{doc.name}#{i}")
    for doc in DOCS
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", doc.read_text(), re.S))
]


def test_the_docs_have_examples():
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("code", EXAMPLES)
def test_example_runs(code):
    exec(compile(code, "<docs>", "exec"), {})
