"""Time expressions in a question, resolved against a reference time.

:func:`find_periods` finds the dates and periods a question names ("in May
2023", "last week", "yesterday", "2 days ago", "2023-05-14", "since March",
"before the move") and returns each as a half-open UTC interval, with the words
it used, so recall can keep to that period and leave those words out of the
text search ("May" the month is not "may" the verb).

A relative expression ("last week") counts back from ``now``; a month without
a year is the last such month that began at or before ``now``. "before X" /
"after X" / "since X" with X not a date ("before the move") is an *anchor*:
the caller resolves it (recall looks the words up in the memory and takes the
time of the best match).

>>> from datetime import datetime, timezone
>>> now = datetime(2023, 7, 10, 12, tzinfo=timezone.utc)
>>> [(p.start.date().isoformat(), p.end.date().isoformat()) for p in find_periods("What did Lia say in May?", now)]
[('2023-05-01', '2023-06-01')]
>>> [(p.start.date().isoformat(), p.end.date().isoformat()) for p in find_periods("and 2 days ago?", now)]
[('2023-07-08', '2023-07-09')]
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

__all__ = ["Period", "find_periods", "strip_periods"]

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a few": 3, "few": 3,
    "several": 3,
}
_SEASONS = {"spring": (3, 6), "summer": (6, 9), "autumn": (9, 12), "fall": (9, 12), "winter": (12, 15)}

MIN = datetime(1, 1, 1, tzinfo=timezone.utc)
MAX = datetime(9999, 12, 31, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Period:
    """A half-open interval ``[start, end)`` named by ``phrase`` in the question.

    ``anchor`` is set instead of the bounds' meaning when the period is relative
    to something the memory must date ("before the move": ``anchor="the move"``,
    ``relation="before"``); :meth:`resolved` fills it in.
    """

    start: datetime
    end: datetime
    phrase: str
    anchor: str | None = None
    relation: str | None = None  #: before, after, since or until, for an anchor
    #: Whether the bounds come from the memory (a resolved anchor): less certain than a date.
    dated_by_memory: bool = False

    def resolved(self, when: datetime | None) -> "Period | None":
        """An anchored period once its anchor's time is known (None if it is not)."""
        if self.anchor is None:
            return self
        if when is None:
            return None
        if self.relation in ("before", "until"):
            return Period(MIN, when, self.phrase, dated_by_memory=True)
        return Period(when, MAX, self.phrase, dated_by_memory=True)


def _month(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year + (month - 1) // 12, (month - 1) % 12 + 1, 1, tzinfo=timezone.utc)
    nxt = datetime(start.year + start.month // 12, start.month % 12 + 1, 1, tzinfo=timezone.utc)
    return start, nxt


def _day(d: datetime) -> tuple[datetime, datetime]:
    start = datetime(d.year, d.month, d.day, tzinfo=timezone.utc)
    return start, start + timedelta(days=1)


def _week(d: datetime) -> tuple[datetime, datetime]:
    start = _day(d)[0] - timedelta(days=d.weekday())
    return start, start + timedelta(days=7)


def _recent_month(now: datetime, month: int) -> int:
    """The year of the last ``month`` that began at or before ``now``."""
    return now.year if month <= now.month else now.year - 1


def _number(text: str) -> int:
    text = text.lower().strip()
    return int(text) if text.isdigit() else _NUMBERS.get(text, 1)


_MONTH_RE = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
#: Alone (without a day or year), only full month names: "Jan" and "Mar" are names too.
_FULL_MONTH_RE = "(" + "|".join(name.lower() for name in calendar.month_name if name) + ")"
_NUM_RE = r"(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|a few|few|several)"
_YEAR_RE = r"((?:19|20)\d\d)"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"

# Each rule: a pattern and a function of (match, now) giving (start, end). Longest first.
_Rule = tuple[re.Pattern[str], Callable[[re.Match[str], datetime], tuple[datetime, datetime] | None]]


def _iso(m: re.Match[str], now: datetime) -> tuple[datetime, datetime] | None:
    y, mo, d = int(m[1]), int(m[2]), m[3]
    if not 1 <= mo <= 12:
        return None
    if d is None:
        return _month(y, mo)
    try:
        return _day(datetime(y, mo, int(d), tzinfo=timezone.utc))
    except ValueError:
        return None

def _day_month_year(day: str, month: str, year: str | None, now: datetime) -> tuple[datetime, datetime] | None:
    mo = _MONTHS[month.lower().rstrip(".")]
    y = int(year) if year else _recent_month(now, mo)
    try:
        return _day(datetime(y, mo, int(day), tzinfo=timezone.utc))
    except ValueError:
        return None

def _month_year(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    mo = _MONTHS[m[1].lower().rstrip(".")]
    return _month(int(m[2]) if m[2] else _recent_month(now, mo), mo)

def _ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    n, unit = _number(m[1]), m[2].lower().rstrip("s")
    if unit == "day":
        return _day(now - timedelta(days=n))
    if unit == "week":
        return _week(now - timedelta(weeks=n))
    if unit == "month":
        return _month(now.year, now.month - n)
    if unit == "year":
        y = now.year - n
        return datetime(y, 1, 1, tzinfo=timezone.utc), datetime(y + 1, 1, 1, tzinfo=timezone.utc)
    return _day(now - timedelta(hours=n))  # hours, minutes: that day

def _past(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    n, unit = _number(m[1]), m[2].lower().rstrip("s")
    days = {"day": 1, "week": 7, "month": 30, "year": 365}.get(unit, 1) * n
    return _day(now - timedelta(days=days))[0], _day(now)[1]

def _relative(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    which, unit = m[1].lower(), m[2].lower()
    step = {"last": -1, "previous": -1, "this": 0, "next": 1}[which]
    if unit == "week":
        return _week(now + timedelta(weeks=step))
    if unit == "weekend":
        monday = _week(now + timedelta(weeks=step if step else 0))[0]
        return monday + timedelta(days=5), monday + timedelta(days=7)
    if unit == "month":
        return _month(now.year, now.month + step)
    y = now.year + step
    return datetime(y, 1, 1, tzinfo=timezone.utc), datetime(y + 1, 1, 1, tzinfo=timezone.utc)

def _weekday(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    target = _WEEKDAYS[m[2].lower()]
    back = (now.weekday() - target) % 7 or (7 if m[1] and m[1].lower() == "last" else 0)
    return _day(now - timedelta(days=back))

def _season(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    first, last = _SEASONS[m[2].lower()]
    if m[3]:
        y = int(m[3])
    else:  # the last such season that began at or before now
        y = now.year if _month(now.year, first)[0] <= now else now.year - 1
    return _month(y, first)[0], _month(y, last)[0]

def _year(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    y = int(m[1])
    return datetime(y, 1, 1, tzinfo=timezone.utc), datetime(y + 1, 1, 1, tzinfo=timezone.utc)


def _rules() -> list[_Rule]:
    def r(pattern: str) -> re.Pattern[str]:
        return re.compile(r"(?<![\w-])" + pattern + r"(?![\w-])", re.IGNORECASE)

    return [
        (r(r"(\d{4})-(\d{2})(?:-(\d{2}))?(?:T[\d:.]+(?:Z|[+-]\d\d:?\d\d)?)?"), _iso),
        (r(_ORD + r"\s+(?:of\s+)?" + _MONTH_RE + r",?(?:\s+" + _YEAR_RE + ")?"),
         lambda m, now: _day_month_year(m[1], m[2], m[3], now)),
        (r(_MONTH_RE + r"\s+" + _ORD + r"(?:,?\s+" + _YEAR_RE + ")?"),
         lambda m, now: _day_month_year(m[2], m[1], m[3], now)),
        (r(_MONTH_RE + r",?\s+(?:of\s+)?" + _YEAR_RE), _month_year),
        (r(r"(?:(?:in|during|of|early|late|mid)\s+)?" + _FULL_MONTH_RE + r"()"), _month_year),
        (r(_NUM_RE + r"\s+(day|week|month|year|hour)s?\s+ago"), _ago),
        (r(r"(?:in\s+)?the\s+(?:last|past)\s+" + _NUM_RE + r"\s+(day|week|month|year)s?"), _past),
        (r(r"(?:in\s+)?the\s+(?:last|past)\s+(day|week|month|year)"), lambda m, now: past_unit(m[1], now)),
        (r(r"(last|previous|this|next)\s+(week|weekend|month|year)"), _relative),
        (r(r"(last|this|on)?\s*(" + "|".join(_WEEKDAYS) + r")"), _weekday),
        (r(r"(?:(last|this|in|during)\s+)?(?:the\s+)?(spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?" + _YEAR_RE + ")?"),
         _season),
        (r(r"(?:(?:in|during|of)\s+)?" + _YEAR_RE), _year),
        (r(r"yesterday"), lambda m, now: _day(now - timedelta(days=1))),
        (r(r"the\s+day\s+before\s+yesterday"), lambda m, now: _day(now - timedelta(days=2))),
        (r(r"today|tonight|this\s+(?:morning|afternoon|evening)"), lambda m, now: _day(now)),
    ]


def past_unit(unit: str, now: datetime) -> tuple[datetime, datetime]:
    days = {"day": 1, "week": 7, "month": 30, "year": 365}[unit.lower()]
    return _day(now - timedelta(days=days))[0], _day(now)[1]


_RULES = _rules()
# "may" is a month only where a date is plainly meant: capitalised mid-sentence, with a
# day or year, or after in/during/of/early/late.
_MAY_VERB = re.compile(r"(?<![\w-])may(?![\w-])")
_BOUNDARY = re.compile(r"(?<![\w-])(before|after|since|until|till)\s+", re.IGNORECASE)
_ANCHOR = re.compile(r"(?:the|my|our|his|her|their|your|\w+'s)\s+[\w' -]{2,40}?(?=[?.!,;]|$|\s+(?:and|or|but|when|while)\s)",
                     re.IGNORECASE)


#: A word every rule above needs at least one of (a digit, a month, weekday or season, or a
#: relative word): text without any names no period, and is not read further.
_MAYBE_TIME = re.compile(
    r"\d|\b(?:" + "|".join([*(m.lower() for m in calendar.month_name if m), *_WEEKDAYS, *_SEASONS,
                             "yesterday", "today", "tonight", "ago", "day", "week", "weekend", "month",
                             "year", "morning", "afternoon", "evening"]) + r")s?\b", re.IGNORECASE)


def might_name_a_time(text: str) -> bool:
    """Whether ``text`` can name a period at all (a quick test before :func:`find_periods`)."""
    return _MAYBE_TIME.search(text) is not None


def find_periods(question: str, now: datetime) -> list[Period]:
    """The periods ``question`` names, relative ones resolved against ``now`` (UTC)."""
    now = now.astimezone(timezone.utc)
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, Period]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= x or a >= y for x, y in taken)

    for pattern, to_interval in _RULES:
        for m in pattern.finditer(question):
            if not free(m.start(), m.end()) or _is_may_verb(question, m):
                continue
            bounds = to_interval(m, now)
            if bounds is None:
                continue
            taken.append((m.start(), m.end()))
            start, end = bounds
            boundary = _boundary_before(question, m.start())
            if boundary is not None:
                word, at = boundary
                taken.append((at, m.start()))
                if word in ("before", "until", "till"):
                    start, end = MIN, start if word == "before" else end
                else:
                    start, end = (end if word == "after" else start), MAX
                found.append((at, Period(start, end, question[at:m.end()])))
            else:
                found.append((m.start(), Period(start, end, m[0])))
    for m in _BOUNDARY.finditer(question):
        rest = question[m.end():]
        a = _ANCHOR.match(rest)
        if a is None or not free(m.start(), m.end() + a.end()):
            continue
        taken.append((m.start(), m.end() + a.end()))
        found.append((m.start(), Period(MIN, MAX, question[m.start():m.end() + a.end()],
                                        anchor=a[0].strip(), relation=m[1].lower().replace("till", "until"))))
    return [p for _, p in sorted(found, key=lambda x: x[0])]


def _is_may_verb(question: str, m: re.Match[str]) -> bool:
    """Whether a match is just the word "may" used as a verb ("may I ask", "she may like")."""
    text = m[0]
    if text.lower() != "may":
        return False
    return not (text[0] == "M" and m.start() > 0)


def _boundary_before(question: str, at: int) -> tuple[str, int] | None:
    head = question[:at]
    m = re.search(r"(?<![\w-])(before|after|since|until|till)\s+$", head, re.IGNORECASE)
    return (m[1].lower(), m.start()) if m else None


def strip_periods(question: str, periods: list[Period]) -> str:
    """The question without the words of its periods (for the text and vector search)."""
    for p in periods:
        question = question.replace(p.phrase, " ")
    return re.sub(r"\s+", " ", question).strip()
