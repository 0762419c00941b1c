"""A deterministic generator of structured memories: people, the things in their lives, claims
about them, and the messages that asserted the claims, with questions whose answer is a claim.

Each person has one fact of each kind (a laptop, a phone, a car, a city, an employer, an
instrument, a food allergy, a pet, a drink, a sport); some facts change once (the older claim
superseded by the newer). A fact is a claim ``subject predicate object`` whose predicate has a
short label ("owns", "is based in") and whose object is a named vertex ("ThinkPad X1"); the
message behind it says the same in other words ("Finally set up my new ThinkPad X1, the keyboard
is lovely"). Beside them: small talk, and the same kinds of facts about other people.

A question asks for one fact in words that neither the claim nor its message uses
("What laptop does Sam have?" for the claim "Sam owns ThinkPad X1"): its answer is the current
claim. The same ``seed`` always gives the same memories.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

FIRST_NAMES = ["Sam", "Lia", "Omar", "Priya", "Jonas", "Mei", "Tomás", "Ada", "Kofi", "Nina", "Ravi", "Elena",
               "Hugo", "Yuki", "Zara", "Felix", "Ines", "Marta", "Theo", "Amara", "Lucas", "Sofia", "Ivan", "Leila"]
LAST_NAMES = ["Okafor", "Lindqvist", "Haddad", "Moreau", "Tanaka", "Petrov", "Alvarez", "Kowalski", "Nguyen",
              "Brennan", "Rossi", "Fischer", "Novak", "Castro", "Duval", "Kaplan"]


@dataclass(frozen=True)
class Kind:
    """One kind of fact: the predicate (its label), the things it may name, how a message says
    it, and how a question asks for it (never in the predicate's or the message's words)."""

    key: str
    label: str
    things: tuple[str, ...]
    said: tuple[str, ...]  #: "{thing}" stands for the thing
    asked: tuple[str, ...]  #: "{name}" stands for the person


KINDS = (
    Kind("laptop", "owns", ("ThinkPad X1", "MacBook Air", "Dell XPS 13", "Framework 13", "Surface Laptop 5"),
         ("Finally set up my new {thing}, the keyboard is lovely", "Spilled coffee near my {thing} today, it survived"),
         ("What laptop does {name} have?", "Which computer does {name} work on?")),
    Kind("phone", "carries", ("Pixel 8", "iPhone 15", "Galaxy S24", "Fairphone 5"),
         ("My {thing} battery lasts two days, very happy with it", "Dropped the {thing} on the tram again"),
         ("What smartphone does {name} use?", "Which mobile does {name} have?")),
    Kind("car", "drives", ("Toyota Corolla", "Tesla Model 3", "Volvo XC40", "Honda Civic", "Renault Zoe"),
         ("Took the {thing} in for its service, new tyres too", "The {thing} needs a wash after the beach trip"),
         ("What vehicle does {name} get around in?", "What kind of automobile is {name}'s?")),
    Kind("city", "is based in", ("Lisbon", "Osaka", "Toronto", "Edinburgh", "Valencia", "Montreal", "Vienna"),
         ("Walked along the river in {thing} tonight, the light was gorgeous", "Rent in {thing} went up again"),
         ("Where does {name} live?", "Which town is {name}'s home?")),
    Kind("employer", "is employed by", ("Halden Labs", "Brightwater Health", "Northwind Logistics", "Meridian Bank",
                                        "Copperleaf Studio", "Bluefin Robotics"),
         ("Long week at {thing}, two launches at once", "{thing} gave everyone Friday off"),
         ("Where does {name} work?", "Which company is {name}'s job at?")),
    Kind("instrument", "practises", ("cello", "trumpet", "banjo", "oboe", "harp", "accordion"),
         ("Two hours on the {thing} this evening, my fingers hurt", "Bought new strings and a case for my {thing}"),
         ("What instrument does {name} play?", "Which music does {name} make at home?")),
    Kind("allergy", "reacts badly to", ("peanuts", "shellfish", "sesame", "kiwi fruit", "gluten"),
         ("Had to send the dish back, it had {thing} in it", "Always check labels for {thing}, learned the hard way"),
         ("What food must {name} avoid?", "What is {name} allergic to?")),
    Kind("pet", "looks after", ("a beagle called Biscuit", "a tabby cat called Miso", "a parrot called Kiwi",
                                "a rabbit called Clover", "a greyhound called Pepper"),
         ("Took {thing} to the vet, all healthy", "{thing} chewed through a cable last night"),
         ("What animal lives with {name}?", "Does {name} have any pets?")),
    Kind("drink", "starts the day with", ("oat milk latte", "green tea", "espresso", "chamomile tea", "cold brew"),
         ("Can't function before my {thing}", "Made a huge {thing} before the meeting"),
         ("What beverage does {name} have in the morning?", "What is {name}'s breakfast drink?")),
    Kind("sport", "trains at", ("bouldering", "rowing", "fencing", "trail running", "water polo"),
         ("My forearms are wrecked after {thing} practice", "Signed up for a {thing} competition in spring"),
         ("Which sport does {name} do?", "How does {name} keep fit?")),
)

SMALL_TALK = [
    "The weather turned cold so suddenly this week", "Work was hectic, back-to-back meetings",
    "I tried a new ramen place near the station", "We cleaned out the garage this weekend",
    "The train was delayed forty minutes", "I'm reading a mystery novel before bed",
    "The farmers market had amazing peaches", "I slept terribly, the neighbours had a party",
    "I need to renew my passport soon", "We hosted friends for dinner, I made lasagna",
]

START = datetime(2024, 3, 4, 9, 0, tzinfo=timezone.utc)


@dataclass
class Fact:
    """A claim and the message that asserted it (ids are the generator's keys)."""

    id: str
    person: str
    kind: str
    thing: str
    said: str
    time: datetime
    replaces: str | None = None  #: the fact this one supersedes


@dataclass
class Query:
    id: str
    text: str
    answer: str  #: the fact id of the current claim
    kind: str


@dataclass
class Memory:
    """One tenant's structured memory."""

    id: str
    people: dict[str, str]  #: person key → display name
    facts: list[Fact] = field(default_factory=list)
    chatter: list[tuple[str, str, datetime]] = field(default_factory=list)  #: (person, text, time)
    queries: list[Query] = field(default_factory=list)


def generate(n_memories: int = 4, *, people: int = 6, changes: float = 0.3, chatter: int = 60,
             seed: int = 0) -> list[Memory]:
    rng = random.Random(seed)
    return [_memory(rng, f"m{i:02d}", people, changes, chatter) for i in range(n_memories)]


def _memory(rng: random.Random, mid: str, n_people: int, changes: float, n_chatter: int) -> Memory:
    names = rng.sample(FIRST_NAMES, n_people)
    memory = Memory(mid, {f"{mid}-p{i}": f"{first} {rng.choice(LAST_NAMES)}" for i, first in enumerate(names)})
    when = START + timedelta(days=rng.randrange(0, 30))
    pending: list[tuple[str, Kind, str, str | None]] = []
    for person in memory.people:
        for kind in KINDS:
            first, second = rng.sample(kind.things, 2)
            pending.append((person, kind, first, None))
            if rng.random() < changes:
                pending.append((person, kind, second, first))
    # Original facts first (in a shuffled order), then the changes.
    originals = [p for p in pending if p[3] is None]
    rng.shuffle(originals)
    later = [p for p in pending if p[3] is not None]
    rng.shuffle(later)
    current: dict[tuple[str, str], str] = {}
    for person, kind, thing, _ in originals + later:
        when += timedelta(hours=rng.randrange(2, 30))
        fact_id = f"{mid}-f{len(memory.facts):04d}"
        replaces = current.get((person, kind.key))
        memory.facts.append(Fact(fact_id, person, kind.key, thing, rng.choice(kind.said).format(thing=thing),
                                 when, replaces))
        current[(person, kind.key)] = fact_id
    for _ in range(n_chatter):
        when += timedelta(hours=rng.randrange(1, 12))
        memory.chatter.append((rng.choice(list(memory.people)), rng.choice(SMALL_TALK), when))
    for (person, key), fact_id in sorted(current.items()):
        kind = next(k for k in KINDS if k.key == key)
        first_name = memory.people[person].split()[0]
        text = rng.choice(kind.asked).format(name=first_name)
        memory.queries.append(Query(f"{mid}-q{len(memory.queries):03d}", text, fact_id, key))
    return memory


def label_of(kind: str) -> str:
    return next(k.label for k in KINDS if k.key == kind)
