"""Edit distances over many candidates at once agree with the textbook computation."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memkg.core.nearest import MAX_WORD, distances, nearest


def levenshtein(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[len(b)]


words = st.text(alphabet="abcé/:#xyz", max_size=30)


@given(words, st.lists(words, min_size=1, max_size=12))
@settings(max_examples=300, deadline=None)
def test_every_distance_is_levenshtein_s(word: str, candidates: list[str]) -> None:
    assert list(distances(word, candidates)) == [levenshtein(word, c) for c in candidates]


@given(st.text(alphabet="ab", min_size=60, max_size=200), st.lists(st.text(alphabet="ab", max_size=200), min_size=1, max_size=4))
@settings(max_examples=60, deadline=None)
def test_words_longer_than_one_machine_word_are_measured_whole(word: str, candidates: list[str]) -> None:
    assert list(distances(word, candidates)) == [levenshtein(word, c) for c in candidates]


def test_the_nearest_come_first_and_the_far_not_at_all() -> None:
    lia, acme = "https://example.org/lia/", "https://example.org/acme/"
    known = [lia + "c0", lia + "cMigraton2", acme + "cMigration", lia + "cMigratio"]
    assert nearest(lia + "cMigration", known) == [lia + "cMigratio", lia + "cMigraton2", acme + "cMigration"]
    assert nearest(lia + "nope", known) == []
    assert nearest(lia + "cMigration", known, k=1) == [lia + "cMigratio"]


def test_long_words_are_compared_on_their_ends() -> None:
    head = "h" * MAX_WORD
    assert list(distances(head + "abc", ["x" * 10 + head + "abd"])) == [1]
