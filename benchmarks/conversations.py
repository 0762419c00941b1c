"""A deterministic generator of long multi-session conversations with questions whose evidence is known.

Each conversation: two or three people (each with a full name and a nickname used
by the others) and an assistant agent, over ``sessions`` sessions (a few days
apart) of ``turns`` turns each. Most turns are small talk drawn from a large bank
of templates (the distractors: weather, food, shows, work, plans, and the lives of
relatives and friends, who move, adopt pets and change jobs too). Some turns state
a person's facts: where they live and work, their pet, their sibling, their drink,
their hobby, a trip; several of these *change* over the conversation (a move, a new
job, a new favourite drink), and some facts are only complete across two sessions.

Questions come in five categories, each with the turns that hold its evidence:

* ``single-hop`` — one fact, stated once ("What is the name of Kate's dog?");
* ``multi-hop`` — two facts from different sessions ("Where does the person who
  works at Halden Labs live?");
* ``temporal`` — when something happened, what was true before a change, what is
  true now, or what was said in a named month;
* ``open-domain`` — the question's words differ from the turn's ("Does Kate have
  any outdoor hobbies?" for "I went bouldering again on Saturday");
* ``adversarial`` — a fact attributed to the wrong person (LoCoMo's category 5):
  the evidence is the turn where the real owner stated it.

The same ``seed`` always gives the same conversations (own ``random.Random``,
fixed dates, no clock, no hash randomisation).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

PEOPLE = [
    ("Katherine Moreau", "Kate"), ("Robert Lindqvist", "Bob"), ("Alexander Petrov", "Sasha"),
    ("Elizabeth Okafor", "Liz"), ("Michael Brennan", "Mike"), ("Jennifer Alvarez", "Jen"),
    ("William Tanaka", "Will"), ("Margaret Kowalski", "Maggie"), ("Daniel Haddad", "Dan"),
    ("Rebecca Sorensen", "Becca"), ("Nicholas Ferreira", "Nick"), ("Theodora Nguyen", "Teddy"),
    ("Christopher Adeyemi", "Chris"), ("Victoria Rossi", "Vicky"), ("Jonathan Weiss", "Jon"),
    ("Samantha O'Neill", "Sam"), ("Benjamin Castro", "Ben"), ("Isabella Novak", "Izzy"),
    ("Matthew Fischer", "Matt"), ("Patricia Mbeki", "Trish"), ("Anthony Russo", "Tony"),
    ("Josephine Duval", "Josie"), ("Frederick Olsen", "Fred"), ("Eleanor Kaplan", "Ellie"),
]
AGENTS = ["Aurora", "Atlas", "Juniper", "Sage"]
CITIES = ["Lisbon", "Berlin", "Toronto", "Melbourne", "Osaka", "Edinburgh", "Denver", "Valencia", "Montreal",
          "Porto", "Seattle", "Vienna", "Copenhagen", "Austin", "Dublin", "Wellington"]
EMPLOYERS = ["Halden Labs", "Brightwater Health", "Northwind Logistics", "Copperleaf Studio", "Meridian Bank",
             "Bluefin Robotics", "Larkspur Publishing", "Orchid Analytics", "Summit Outdoor Co", "Tidewater Energy"]
ROLES = ["data engineer", "nurse", "product designer", "accountant", "high school teacher", "UX researcher",
         "line cook", "civil engineer", "marketing manager", "pharmacist"]
PETS = [("dog", ["Biscuit", "Pepper", "Mochi", "Rufus", "Juniper", "Waffles"]),
        ("cat", ["Miso", "Clementine", "Ziggy", "Noodle", "Pumpkin", "Olive"]),
        ("parrot", ["Kiwi", "Mango", "Captain"]), ("rabbit", ["Clover", "Hazel", "Thumper"])]
DRINKS = ["oat milk latte", "green tea", "espresso", "chamomile tea", "cold brew", "matcha", "rooibos tea",
          "hot chocolate", "black coffee", "ginger tea"]
HOBBIES = [("bouldering", "outdoor"), ("trail running", "outdoor"), ("kayaking", "outdoor"),
           ("birdwatching", "outdoor"), ("pottery", "creative"), ("watercolor painting", "creative"),
           ("playing the cello", "musical"), ("playing the drums", "musical"), ("chess", "strategy"),
           ("baking sourdough", "cooking"), ("knitting", "creative"), ("salsa dancing", "social")]
HOBBY_TURNS = {
    "bouldering": ["I went bouldering again on Saturday, finally sent that overhang problem",
                   "My forearms are wrecked, the climbing gym set new routes"],
    "trail running": ["Did a 15k trail run through the hills this morning", "My trail shoes are caked in mud again"],
    "kayaking": ["Took the kayak out on the lake at sunrise, the water was glass",
                 "I paddled all the way to the island this weekend"],
    "birdwatching": ["Spotted a kingfisher by the river with my binoculars", "I logged eleven species at the marsh today"],
    "pottery": ["I threw three bowls on the wheel last night, one survived", "My glaze firing came out of the kiln today"],
    "watercolor painting": ["I painted the harbor in watercolors, the blues bled nicely",
                            "Bought new sable brushes for my paintings"],
    "playing the cello": ["Practiced the Bach suite on my cello for two hours", "My cello teacher says my bowing improved"],
    "playing the drums": ["Our band rehearsal ran late, my drum kit needs new heads", "I nailed the double-kick pattern"],
    "chess": ["I won a tournament game with the Sicilian defence", "Analysed my blitz games online until midnight"],
    "baking sourdough": ["My sourdough starter finally doubled, the loaf had a great crumb",
                         "I fed the starter and baked two loaves"],
    "knitting": ["Finished knitting the sleeves of the sweater", "I bought merino yarn for a new scarf"],
    "salsa dancing": ["Salsa class was packed, we learned a new turn pattern", "Danced until late at the social on Friday"],
}
SIBLINGS = ["Clara", "Tomas", "Ines", "Felix", "Hannah", "Oscar", "Nadia", "Hugo", "Leah", "Marco"]
TRIP_PLACES = ["Iceland", "Kyoto", "Patagonia", "Morocco", "the Dolomites", "Vietnam", "Crete", "Norway"]
RELATIVES = ["my cousin", "my neighbor", "a coworker", "my aunt", "an old school friend", "my landlord"]

SMALL_TALK = [
    "It rained the whole day here, I barely left the house", "The weather turned cold so suddenly this week",
    "I finally finished that series everyone talks about, the ending was odd", "Work was hectic, back-to-back meetings",
    "I tried a new ramen place near the station, pretty good broth", "I slept terribly, the neighbors had a party",
    "We cleaned out the garage this weekend, so much junk", "My phone screen cracked again, third time this year",
    "I've been reading a mystery novel before bed", "The traffic on the bridge was awful this morning",
    "I cooked a big pot of chili for the week", "I'm thinking about repainting the living room",
    "There was a power cut for two hours yesterday", "My laptop is so slow, I need a new one",
    "I watched a documentary about deep sea creatures", "I need to renew my passport soon",
    "The farmers market had amazing peaches", "I'm trying to drink more water during the day",
    "We had a long planning meeting about next quarter", "I started using a paper planner again",
    "The gym was empty at six in the morning", "My plants are finally recovering after the heatwave",
    "I got a parking ticket, so annoying", "We hosted friends for dinner, I made lasagna",
    "I'm learning a few phrases in Portuguese", "My back hurts from sitting all day",
    "I found an old photo album in a box", "The train was delayed forty minutes",
    "I fixed the leaking tap myself, very proud", "We argued about which movie to watch for an hour",
]
AGENT_REPLIES = [
    "That sounds like a lot, do you want me to add a reminder?", "Noted. Anything else on your mind today?",
    "I can help you plan that if you like.", "That's good to hear!", "Would you like me to look up some options?",
    "I'll remember that.", "Sorry to hear that, I hope tomorrow is calmer.", "Sounds fun, tell me how it goes.",
    "I can draft a to-do list for the week.", "Got it, I've made a note.",
]
ACKS = ["Oh nice!", "Haha, same here", "Really? Tell me more", "That's rough", "Good for you!", "No way",
        "I know what you mean", "Sounds great", "Hmm, interesting", "Wow"]

START = datetime(2022, 9, 5, 18, 0, tzinfo=timezone.utc)


@dataclass
class Turn:
    id: str
    session: int
    speaker: str  #: a person's or the agent's key
    text: str
    time: datetime
    caption: str | None = None  #: the caption of an image sent with the turn
    image: str | None = None  #: the image's URL


@dataclass
class Question:
    id: str
    category: str
    text: str
    evidence: list[str]  #: turn ids
    asked_at: datetime


@dataclass
class Conversation:
    id: str
    people: dict[str, tuple[str, str]]  #: key → (full name, nickname)
    agent: str  #: the assistant's name ("" for a dialogue between people alone)
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    sessions: list[datetime] = field(default_factory=list)


@dataclass
class _Fact:
    person: str
    kind: str
    value: str
    text: str
    turn: str = ""
    session: int = 0


def generate(n_conversations: int = 10, *, sessions: int = 32, turns: int = 22, seed: int = 0,
             with_questions: bool = True) -> list[Conversation]:
    rng = random.Random(seed)
    return [_conversation(rng, f"c{i:03d}", sessions, turns, with_questions) for i in range(n_conversations)]


def _conversation(rng: random.Random, cid: str, n_sessions: int, n_turns: int, with_questions: bool) -> Conversation:
    cast = rng.sample(PEOPLE, rng.choice((2, 3)))
    people = {f"{cid}-p{i}": p for i, p in enumerate(cast)}
    conv = Conversation(cid, people, rng.choice(AGENTS))
    keys = list(people)
    day = START + timedelta(days=rng.randrange(0, 60))
    for s in range(n_sessions):
        conv.sessions.append(day)
        day += timedelta(days=rng.randrange(3, 10), minutes=rng.randrange(-120, 120))

    # Each person's life: facts and when they are stated; some change later.
    plan: dict[int, list[tuple[str, str, str, str]]] = {}  # session → [(person, kind, value, text)]
    facts: list[_Fact] = []

    def state(session: int, person: str, kind: str, value: str, text: str) -> None:
        plan.setdefault(session, []).append((person, kind, value, text))
        facts.append(_Fact(person, kind, value, text, session=session))

    for p in keys:
        cities = rng.sample(CITIES, 2)
        jobs = rng.sample(list(zip(EMPLOYERS, ROLES)), 2)
        species, names = rng.choice(PETS)
        drinks = rng.sample(DRINKS, 2)
        hobby = rng.choice(HOBBIES)[0]
        sibling = rng.choice(SIBLINGS)
        trip = rng.choice(TRIP_PLACES)
        early, late = rng.randrange(0, n_sessions // 3), rng.randrange(n_sessions // 2, n_sessions - 2)
        state(early, p, "city", cities[0], f"I've lived in {cities[0]} for about six years now")
        state(late, p, "move", cities[1], f"Big news: we are moving to {cities[1]}, the movers come on Thursday")
        state(rng.randrange(0, n_sessions // 2), p, "job", jobs[0][0],
              f"I work as a {jobs[0][1]} at {jobs[0][0]}, been there a while")
        state(rng.randrange(n_sessions // 2, n_sessions - 1), p, "newjob", jobs[1][0],
              f"I accepted an offer from {jobs[1][0]}, starting as a {jobs[1][1]} next month")
        pet = rng.choice(names)
        state(rng.randrange(0, n_sessions - 1), p, "pet", pet, f"We adopted a {species} last week, we named him {pet}")
        state(rng.randrange(0, n_sessions // 2), p, "drink", drinks[0], f"I can't start my day without a {drinks[0]}")
        state(rng.randrange(n_sessions // 2, n_sessions - 1), p, "newdrink", drinks[1],
              f"I switched to {drinks[1]} these days, I gave up my old habit")
        state(rng.randrange(0, n_sessions - 1), p, "sibling", sibling,
              f"My sister {sibling} is visiting from out of town this weekend")
        for s in rng.sample(range(n_sessions), 2):
            state(s, p, "hobby", hobby, rng.choice(HOBBY_TURNS[hobby]))
        state(rng.randrange(0, n_sessions - 1), p, "trip", trip, f"I booked flights to {trip} for our anniversary trip")

    # Sessions: small talk, the planned facts, relatives' facts as distractors, agent replies.
    turn_no = 0
    for s, when in enumerate(conv.sessions):
        planned = plan.get(s, [])
        slots = sorted(rng.sample(range(1, n_turns), min(len(planned), n_turns - 1)))
        by_slot = dict(zip(slots, planned))
        for t in range(n_turns):
            turn_no += 1
            tid = f"{cid}-t{turn_no:05d}"
            speaker = keys[t % len(keys)] if t % 4 != 3 else "agent"
            if t in by_slot:
                person, kind, value, text = by_slot[t]
                speaker = person
                for f in facts:
                    if f.person == person and f.kind == kind and f.value == value and not f.turn:
                        f.turn = tid
                        break
            elif speaker == "agent":
                text = rng.choice(AGENT_REPLIES)
            elif rng.random() < 0.15:  # somebody else's life, in the same words as the facts
                who = rng.choice(RELATIVES)
                text = rng.choice([
                    f"{who.capitalize()} just moved to {rng.choice(CITIES)} for a new job",
                    f"{who.capitalize()} adopted a {rng.choice(PETS)[0]} named {rng.choice(rng.choice(PETS)[1])}",
                    f"{who.capitalize()} started working at {rng.choice(EMPLOYERS)}",
                    f"{who.capitalize()} only drinks {rng.choice(DRINKS)}, it's a whole ritual",
                    f"{who.capitalize()} is flying to {rng.choice(TRIP_PLACES)} next month",
                ])
            elif rng.random() < 0.2:
                text = rng.choice(ACKS)
            else:
                text = rng.choice(SMALL_TALK)
            conv.turns.append(Turn(tid, s, speaker, text, when + timedelta(minutes=2 * t)))
    if with_questions:
        conv.questions = _questions(rng, conv, facts)
    return conv


def _questions(rng: random.Random, conv: Conversation, facts: list[_Fact]) -> list[Question]:
    out: list[Question] = []
    end = conv.sessions[-1] + timedelta(days=1)
    by: dict[tuple[str, str], list[_Fact]] = {}
    for f in facts:
        by.setdefault((f.person, f.kind), []).append(f)
    keys = list(conv.people)

    def nick(p: str) -> str:
        return conv.people[p][1]

    def full(p: str) -> str:
        return conv.people[p][0].split()[0]

    def ask(category: str, text: str, evidence: list[_Fact]) -> None:
        out.append(Question(f"{conv.id}-q{len(out):03d}", category, text, [f.turn for f in evidence], end))

    for p in keys:
        name = rng.choice((nick(p), full(p)))
        pet, sibling = by[(p, "pet")][0], by[(p, "sibling")][0]
        job, newjob = by[(p, "job")][0], by[(p, "newjob")][0]
        city, move = by[(p, "city")][0], by[(p, "move")][0]
        drink, newdrink = by[(p, "drink")][0], by[(p, "newdrink")][0]
        trip, hobbies = by[(p, "trip")][0], by[(p, "hobby")]
        # single-hop
        ask("single-hop", f"What is the name of {name}'s pet?", [pet])
        ask("single-hop", f"What is the name of {nick(p)}'s sister?", [sibling])
        ask("single-hop", f"Where is {full(p)} going on the anniversary trip?", [trip])
        # multi-hop: two facts from two sessions
        ask("multi-hop", f"Which city did the person who worked at {job.value} move to?", [job, move])
        ask("multi-hop", f"What pet does the person whose sister is {sibling.value} have?", [sibling, pet])
        ask("multi-hop", f"Did {name} change jobs before or after moving to {move.value}?", [newjob, move])
        # temporal
        month = conv.sessions[move.session].strftime("%B %Y")
        ask("temporal", f"When did {name} move to {move.value}?", [move])
        ask("temporal", f"Where did {nick(p)} live before the move?", [city])
        ask("temporal", f"What does {full(p)} drink these days?", [newdrink])
        ask("temporal", f"What did {name} say about moving in {month}?", [move])
        # open-domain: the turn's words are not the question's
        ask("open-domain", f"What does {name} do in their free time?", hobbies)
        ask("open-domain", f"Does {nick(p)} have any animals at home?", [pet])
        ask("open-domain", f"What beverage did {full(p)} rely on in the mornings before switching?", [drink])
        # adversarial: the fact belongs to someone else, who has no such thing
        others = [k for k in keys if k != p]
        species = pet_species(pet)
        for other in others:
            if pet_species(by[(other, "pet")][0]) != species:
                ask("adversarial", f"What is the name of {nick(other)}'s {species}?", [pet])
                break
        for other in others:
            if by[(other, "newjob")][0].value != newjob.value and by[(other, "job")][0].value != newjob.value:
                ask("adversarial", f"Why did {nick(other)} accept an offer from {newjob.value}?", [newjob])
                break
    return out


def pet_species(pet: _Fact) -> str:
    return pet.text.split("adopted a ")[1].split()[0]


# -- real dialogue ----------------------------------------------------------------------------------

#: LoCoMo's question categories, and the generator's names for the same kinds of question.
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_DIA_ID = re.compile(r"D:?(\d+):0*(\d+)")


def read_dialogue(path: Path) -> Conversation:
    """A conversation in LoCoMo's format (``speaker_a``, ``session_N``, ``session_N_date_time``,
    ``qa``; see ``shared/recall-dev/README.md``) as a :class:`Conversation`.

    Only what an agent would have is read: the turns, their speakers and captions, the sessions'
    times (read as UTC); the authors' summaries and observations are not. Evidence ids are
    cleaned ("D8:6; D9:17" split, "D:11:26" read as D11:26, "D30:05" as D30:5); ids no turn has
    are dropped, and a question left with none is skipped. Every turn has its session's time.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    names = [data["speaker_a"], data["speaker_b"]]
    conv = Conversation(path.stem, {n: (n, n) for n in names}, "")
    numbers = sorted(int(m[1]) for key in data for m in [re.fullmatch(r"session_(\d+)", key)] if m and data[key])
    for s, n in enumerate(numbers):
        when = datetime.strptime(data[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)
        conv.sessions.append(when)
        for turn in data[f"session_{n}"]:
            images = turn.get("img_url") or []
            conv.turns.append(Turn(turn["dia_id"], s, turn["speaker"], turn["text"], when,
                                   caption=turn.get("blip_caption"), image=images[0] if images else None))
    held = {t.id for t in conv.turns}
    end = conv.sessions[-1] + timedelta(days=1)
    for at, qa in enumerate(data["qa"]):
        evidence = [f"D{m[1]}:{int(m[2])}" for e in qa.get("evidence", []) for m in _DIA_ID.finditer(str(e))]
        evidence = list(dict.fromkeys(e for e in evidence if e in held))
        if evidence:
            conv.questions.append(Question(f"{conv.id}-q{at:03d}", CATEGORY_NAMES[int(qa["category"])],
                                           str(qa["question"]), evidence, end))
    return conv


def read_dialogues(folder: Path) -> list[Conversation]:
    """Every ``*.json`` conversation in ``folder``, in name order."""
    return [read_dialogue(p) for p in sorted(folder.glob("*.json"))]
