"""The ``--json`` output shared by the ``fastgen`` subcommands: strict JSON.

Python's :func:`json.dumps` writes NaN and infinities as ``NaN`` and ``Infinity``, which
JSON does not have (strict parsers such as ``jq`` and JavaScript's ``JSON.parse`` reject
them). A figure that is not a finite number (the standard error of a single pair of
games, the interval of a single game) is written as ``null`` instead.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["json_text", "finite_or_none"]


def finite_or_none(value: Any) -> Any:
    """*value* with every float that is not finite replaced by None, in nested dicts,
    lists and tuples (tuples become lists, as JSON writes them)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_or_none(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_none(v) for v in value]
    return value


def json_text(data: Any, indent: int | None = None) -> str:
    """*data* as strict JSON text (see the module docstring)."""
    return json.dumps(finite_or_none(data), indent=indent, allow_nan=False)
