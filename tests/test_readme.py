"""The README's example runs and prints what the README says."""

import doctest
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_output_is_true():
    text = README.read_text()
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, "README.md", str(README), 0)
    assert test.examples, "README has no >>> example"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0


def test_readme_starts_with_the_two_setup_commands():
    lines = README.read_text().splitlines()
    block = lines[lines.index("```bash") + 1 : lines.index("```bash") + 3]
    assert block == ['pip install . && fastgen bench', 'pip install ".[test]" && pytest -n auto --dist loadfile']


#: Optional extras' modules and the extra that brings each (pyproject.toml).
EXTRA_OF = {"gymnasium": "rl", "pettingzoo": "rl", "dask": "dask", "distributed": "dask", "gnubg_nn": "peers"}


def _python_blocks(text: str) -> list[str]:
    """The README's ```python blocks that are not doctests (those run above)."""
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    return [b for b in blocks if not b.lstrip().startswith(">>>")]


def test_readme_has_python_blocks_to_run():
    assert _python_blocks(README.read_text()), "no ```python block found: the parser is broken"


@pytest.mark.parametrize("index", range(len(_python_blocks(README.read_text()))))
def test_readme_python_block_runs(index):
    # Each block runs as a new user would paste it; a block that imports an optional extra
    # is skipped with the extra's pip command when that extra is absent.
    block = _python_blocks(README.read_text())[index]
    try:
        exec(compile(block, f"README.md python block {index}", "exec"), {})
    except ModuleNotFoundError as err:
        extra = EXTRA_OF.get((err.name or "").split(".")[0])
        if extra is None:
            raise
        pytest.skip(f"README block {index} needs the {extra} extra: pip install '.[{extra}]'")
