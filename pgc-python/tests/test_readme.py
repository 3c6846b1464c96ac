"""The Python examples of the README's Python section run as written
(from the repository's root), but for the Ray and Spark recipes, which
name files of the reader's (test_ray.py tests the Ray one)."""

import os
import re

import pytest
from conftest import ROOT


def examples() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("\n## Python\n") :]
    section = section[: section.index("\n## ", 1)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 6
    return [b for b in blocks if "ray." not in b and "spark" not in b]


@pytest.mark.parametrize("code", examples())
def test_readme_example_runs(code, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    assert os.getcwd() == str(ROOT)
