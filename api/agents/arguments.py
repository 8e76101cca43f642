"""Tool arguments, each declared once: the declaration gives both the JSON Schema an agent reads and
the check its value meets, so the two can never disagree.

The checks are the schema's rules (type, length, range, choices, no unknown argument) with a
sentence for each failure; a field may hand its value on to one of Kiln's own checks
(``api.checks.inputs``: the prompt, a web address) so an agent's input is held to the Sidebar's
rules and gets the Sidebar's sentence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from . import words


class ArgumentError(InputError):
    """An argument an agent sent cannot be used; the sentence says which and why."""


def _has_hidden_control(text: str) -> bool:
    return any(unicodedata.category(c) in ("Cc", "Cs") and c not in "\t\n\r" for c in text)


@dataclass(frozen=True)
class Text:
    description: str
    max_length: int
    #: A regular expression the whole value must match, with its shape in words for the sentence.
    pattern: str = ""
    shape: str = ""
    #: One of Kiln's own checks (strips and returns the value, or raises InputError with a sentence).
    check_with: Callable[[str], str] | None = None

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {
            "type": "string",
            "description": self.description,
            "maxLength": self.max_length,
        }
        if self.pattern:
            schema["pattern"] = self.pattern
        return schema

    def check(self, name: str, value: object) -> str:
        if not isinstance(value, str):
            raise ArgumentError(words.NOT_TEXT.format(name=name))
        if self.check_with is not None:
            return self.check_with(value)
        if len(value) > self.max_length:
            raise ArgumentError(
                words.TEXT_TOO_LONG.format(name=name, length=len(value), limit=self.max_length)
            )
        if not value.strip():
            raise ArgumentError(words.TEXT_EMPTY.format(name=name))
        if _has_hidden_control(value):
            raise ArgumentError(words.TEXT_UNPRINTABLE.format(name=name))
        if self.pattern and not re.fullmatch(self.pattern, value):
            raise ArgumentError(words.TEXT_PATTERN.format(name=name, shape=self.shape))
        return value.strip()


@dataclass(frozen=True)
class Choice:
    description: str
    choices: tuple[str, ...] = ()
    default: str = ""
    #: Reads the choices each time they are asked for (the registry's services), instead of ``choices``.
    read: Callable[[], tuple[str, ...]] | None = None

    def now(self) -> tuple[str, ...]:
        """The choices as they are now."""
        return self.read() if self.read is not None else self.choices

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {
            "type": "string",
            "description": self.description,
            "enum": list(self.now()),
        }
        if self.default:
            schema["default"] = self.default
        return schema

    def check(self, name: str, value: object) -> str:
        folded = value.strip().lower() if isinstance(value, str) else None
        choices = self.now()
        for choice in choices:
            if choice.lower() == folded:
                return choice
        raise ArgumentError(words.NOT_A_CHOICE.format(name=name, choices=", ".join(choices)))


@dataclass(frozen=True)
class Number:
    description: str
    minimum: float
    maximum: float
    default: float | None = None
    whole: bool = False

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {
            "type": "integer" if self.whole else "number",
            "description": self.description,
            "minimum": self.minimum,
            "maximum": self.maximum,
        }
        if self.default is not None:
            schema["default"] = self.default
        return schema

    def check(self, name: str, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ArgumentError((words.NOT_INTEGER if self.whole else words.NOT_NUMBER).format(name=name))
        if self.whole and isinstance(value, float):
            if not value.is_integer():
                raise ArgumentError(words.NOT_INTEGER.format(name=name))
            value = int(value)
        if not self.minimum <= value <= self.maximum:  # NaN and infinities never pass
            raise ArgumentError(
                words.OUT_OF_RANGE.format(
                    name=name, minimum=_shown(self.minimum), maximum=_shown(self.maximum)
                )
            )
        return value


@dataclass(frozen=True)
class Flag:
    """On or off (JSON's true or false); left out, the service's own default."""

    description: str

    def schema(self) -> dict[str, Any]:
        return {"type": "boolean", "description": self.description, "enum": [True, False]}

    def check(self, name: str, value: object) -> bool:
        if not isinstance(value, bool):
            raise ArgumentError(words.NOT_BOOLEAN.format(name=name))
        return value


def _shown(value: float) -> str:
    return f"{value:g}"


Field = Text | Choice | Number | Flag


@dataclass(frozen=True)
class Arguments:
    """A tool's arguments: the fields, which of them are required, and the object's schema."""

    fields: Mapping[str, Field] = field(default_factory=dict)
    required: tuple[str, ...] = ()

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {name: spec.schema() for name, spec in self.fields.items()},
            "additionalProperties": False,
        }
        if self.required:
            schema["required"] = list(self.required)
        return schema

    def check(self, tool: str, arguments: object) -> dict[str, Any]:
        """The arguments checked, with defaults filled in; ArgumentError for the first problem."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ArgumentError(words.ARGUMENTS_NOT_OBJECT)
        for name in arguments:
            if name not in self.fields:
                known = ", ".join(self.fields) or "none"
                raise ArgumentError(words.UNKNOWN_ARGUMENT.format(tool=tool, name=_quoted(name), known=known))
        for name in self.required:
            if arguments.get(name) is None:
                raise ArgumentError(words.MISSING_ARGUMENT.format(tool=tool, name=name))
        checked: dict[str, Any] = {}
        for name, spec in self.fields.items():
            value = arguments.get(name)
            if value is None:
                default = getattr(spec, "default", None)
                if default not in (None, ""):
                    checked[name] = default
                continue
            checked[name] = spec.check(name, value)
        return checked


def _quoted(name: str) -> str:
    """An unknown argument's name as sent, made safe to show (bounded, escaped)."""
    return ascii(name[:40]) if isinstance(name, str) else "?"
