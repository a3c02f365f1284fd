"""Who wrote a line: the user (a sentence, a list item, a markdown heading) or a program (a line with a log prefix of
its own). A user's words name no step the engine was in and are the report's, not the log's. Pure."""

from __future__ import annotations

import re

from .lines import LOG_PREFIX
from .prose import written_by_user

#: a markdown heading (not gdb's "#0  0x..." frames)
HEADING = re.compile(r"^\s{0,3}#{1,6} +(?:\[[^\]\n]{1,30}\]:? *){0,3}[`*_\"']*[^\W\d]")  # (also "# [Bug] Insufficient ...")
#: an item of a list the user wrote ("- tried -c 4096", "4. model: ...")
_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+\S")


def user_words(text: str) -> bool:
    """The line is a user's words, not a program's: no log prefix, and in the first person, quoting, a list item or a
    markdown heading."""
    if LOG_PREFIX.match(text) and not HEADING.match(text):
        return False
    return bool(HEADING.match(text) or _LIST_ITEM.match(text) or written_by_user(text, False))


def program_line(text: str) -> bool:
    """The line is a program's own: it has a log prefix, and is not a user's words (a heading) beside it."""
    return bool(LOG_PREFIX.match(text)) and not user_words(text)
