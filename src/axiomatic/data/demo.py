"""A small built-in English re-ranking collection, written for this project (no external text).

Ten queries, 58 documents. Topics 1-8 (three-term queries ``a b c``; ``b`` is the "varied" term)
are SHAPED so that every IR axiom has instances inside each query's candidate list:

- ``<topic>-tf1``, ``-tf2``, ``-tf3``: one template sentence whose three slots hold 1, 2 and 3
  occurrences of ``b`` (the other slots hold non-query words) -> identical lengths, equal count
  steps: TFC1 pairs and TFC2 triples.
- ``<topic>-tdc``: the same template with slots ``(b, c, filler)``: the same total query-term count
  as ``-tf2`` spread over more distinct query terms (TDC / M-TDC; idf of ``c`` differs from ``b``).
- ``<topic>-syn``: related words only (e.g. "photovoltaic" for "solar"), no query term: STMC.
- ``<topic>-near`` / ``-far`` (topics 1, 3, 5, 7): each query term once, adjacent vs. spread
  apart, equal length: PROX.
- ``<topic>-long`` (topics 2, 4, 6, 8): ``-tf1`` followed by an off-topic sentence (contains
  ``-tf1`` as a prefix): LNC1 / LNC2-style length comparisons.

Query 9 (``compost worms``, two terms of equal idf) has five equal-length documents with the term
counts (2,1), (1,2), (1,1), (2,0), (0,2): swapped counts (M-TDC, strict for a two-term query) and
"both terms vs. one term repeated" pairs (TFC3, LB2), plus a related-words document. Query 10
(``yeast``, one term) re-uses the bread documents so that the strict (single-term) variants of
TFC1, TFC2 and LNC2 have instances.

Candidates: the query's own documents plus five documents of other topics (judged 0), in a seeded
fixed order (a stand-in for a first-stage ranking). Grades: 2 for ``-tf2``, ``-tf3``, ``-tdc``,
``-near`` (and the compost documents with both terms); 1 for ``-tf1``, ``-far``, ``-syn``,
``-long`` (and the one-term compost documents); 0 for other topics' documents.
Splits: every third query (q3, q6, q9) is ``test``, the rest (7) ``train``.
"""

from __future__ import annotations

import copy
import random
from functools import lru_cache

from axiomatic.data.records import Dataset, Document, Query

# (query id, topic key, query text, varied term b, second term c, template, filler2, filler3,
#  extras: dict role -> text)
_TOPICS: list[tuple[str, str, str, str, str, str, str, str, dict[str, str]]] = [
    (
        "q1",
        "solar",
        "solar panel efficiency",
        "efficiency",
        "panel",
        "Engineers measured the {0} of a solar roof in spring and found that the {1} falls on hot "
        "afternoons, while the {2} stays steady when the cells are kept cool.",
        "output",
        "yield",
        {
            "near": "Solar panel efficiency improved in a field trial near the coast, where the "
            "team also tracked wind speed, salt spray, dust on the glass and the cost of crews.",
            "far": "Solar trials near the coast went well, and the team also tracked wind speed, "
            "salt spray, dust on each panel and the cost of crews to judge efficiency.",
            "syn": "Photovoltaic modules on the roof converted more sunlight into electricity "
            "after the installer cleaned the cells and improved the wiring of the inverter.",
        },
    ),
    (
        "q2",
        "coffee",
        "coffee caffeine sleep",
        "caffeine",
        "sleep",
        "A cup of coffee in the evening adds {0} to the blood, and doctors say the {1} level "
        "peaks an hour later, so the {2} debt grows for people who drink late.",
        "sugar",
        "rest",
        {
            "syn": "Espresso and strong tea keep the brain alert because the stimulant blocks "
            "tiredness signals, which is why many people lie awake after a late drink.",
            "long": " The cafe on the corner also sells fresh croissants and hosts a poetry "
            "evening every second Friday of the month.",
        },
    ),
    (
        "q3",
        "bicycle",
        "bicycle tire repair",
        "tire",
        "repair",
        "Before a long bicycle ride, check the {0} pressure, look at the {1} for small cuts, and "
        "carry a spare {2} in case a sharp stone ends the trip early.",
        "frame",
        "tube",
        {
            "near": "Our guide to bicycle tire repair covers the tools you need at home, such as "
            "levers, a pump, a patch kit, chalk, gloves and a bucket of soapy water.",
            "far": "Our bicycle guide covers the tools you need at home, such as tire levers, a "
            "pump, a patch kit, chalk, gloves and soapy water for any quick repair.",
            "syn": "To fix a flat on a bike, remove the wheel, find the puncture in the inner "
            "tube, glue on a patch and pump the wheel back up.",
        },
    ),
    (
        "q4",
        "honey",
        "honey bee decline",
        "bee",
        "decline",
        "Farmers who sell honey have noticed that each {0} colony is smaller this year, and "
        "scientists link the {1} losses to mites, while the {2} count in orchards keeps falling.",
        "hive",
        "flower",
        {
            "syn": "Pollinator numbers are dropping across Europe as hives collapse over winter, "
            "and keepers blame pesticides, parasites and a shrinking variety of wild plants.",
            "long": " The village market also sells candles, jam and knitted scarves on Saturday "
            "mornings from spring until late autumn.",
        },
    ),
    (
        "q5",
        "bread",
        "bread yeast fermentation",
        "yeast",
        "fermentation",
        "Home bakers know that bread rises when the {0} is warm, that the {1} needs sugar to "
        "work, and that the {2} slows down in a cold kitchen overnight.",
        "dough",
        "oven",
        {
            "near": "Slow bread yeast fermentation gives the loaf a deeper flavour, according to "
            "a baker who also teaches classes on knife skills, pastry and pasta every weekend.",
            "far": "Slow bread gives the loaf a deeper flavour, according to a baker who also "
            "teaches classes on yeast, knife skills, pastry and pasta fermentation every weekend.",
            "syn": "Sourdough starters contain wild microbes that produce gas and acids, which "
            "leave the dough airy and slightly sour after a long proof in the kitchen.",
        },
    ),
    (
        "q6",
        "volcano",
        "volcano eruption warning",
        "eruption",
        "warning",
        "Scientists watching the volcano recorded a small {0} on Monday, reported that a larger "
        "{1} could follow within days, and asked villagers to prepare for an {2} at night.",
        "tremor",
        "evacuation",
        {
            "syn": "Seismic sensors on the mountain detected rising magma and gas, so officials "
            "raised the alert level and told nearby towns to ready their escape routes.",
            "long": " The nearby town is also famous for its hot springs, black sand beaches and "
            "a small museum of local history.",
        },
    ),
    (
        "q7",
        "river",
        "river flood insurance",
        "flood",
        "insurance",
        "Homeowners along the river worry that the next {0} will damage their cellars, that the "
        "{1} maps are out of date, and that the {2} rules change every spring.",
        "risk",
        "zoning",
        {
            "near": "Buying river flood insurance is now harder for families in the valley, who "
            "also face rising rents, fewer buses and a shortage of doctors and teachers.",
            "far": "Buying a house by the river is now harder for families in the valley, who "
            "face rising flood rents, fewer buses, insurance costs and a shortage of doctors.",
            # "worms" here gives topic 9's second term one more document than its first (a
            # slightly lower idf: M-TDC needs an idf order, TFC3 / LB2 need idfs within 10%)
            "syn": "After the heavy rains drove the worms out of the lawns, many households "
            "claimed compensation from their policies because water from the overflowing stream "
            "had ruined carpets and furniture.",
        },
    ),
    (
        "q8",
        "chess",
        "chess opening strategy",
        "opening",
        "strategy",
        "Young chess players often learn one {0} by heart, but coaches say that the {1} matters "
        "less than understanding the {2} of the middle game and the endgame.",
        "trap",
        "plan",
        {
            "syn": "Grandmasters prepare their first moves for each tournament game, choosing "
            "lines such as the Sicilian or the Queen's Gambit to surprise a rival.",
            "long": " The club meets in the library on Tuesday evenings and offers free tea, "
            "biscuits and a quiet room for reading.",
        },
    ),
]

# Topic 9: a two-term query over documents built from one template with three slots holding the
# two query terms in different mixes, so both terms occur in the same number of documents (equal
# idf): counts (w1, w2) = mix21 (2, 1), mix12 (1, 2) [swapped: M-TDC], both (1, 1), rep1 (2, 0),
# rep2 (0, 2) [TFC3 / LB2: covering both terms vs repeating one].
_PAIR_TOPIC = (
    "q9",
    "compost",
    "compost worms",
    "compost",
    "worms",
    "In spring the gardener checked the {0} near the fence, found more {1} under the wet "
    "leaves, and said the {2} would feed the vegetable beds all summer.",
    "manure",
    "Earthworms and kitchen scraps in a closed bin slowly become rich humus, which gardeners "
    "dig into their beds to feed tomatoes and beans.",
)
# Topic 10: a single-term query over the bread documents (strict TFC1 / TFC2 / LNC2 need |q| = 1).
_SINGLE_TERM = ("q10", "bread", "yeast")

_GRADES = {
    "tf1": 1,
    "tf2": 2,
    "tf3": 2,
    "tdc": 2,
    "near": 2,
    "far": 1,
    "syn": 1,
    "long": 1,
    "mix21": 2,
    "mix12": 2,
    "both": 2,
    "rep1": 1,
    "rep2": 1,
}
_SINGLE_GRADES = {"tf1": 1, "tf2": 2, "tf3": 2, "tdc": 1, "near": 1, "far": 1, "syn": 1}
_TEST_QUERIES = ("q3", "q6", "q9")
_SEED = 13


@lru_cache(maxsize=1)
def _build() -> Dataset:
    documents: dict[str, Document] = {}
    queries: dict[str, Query] = {}
    own: dict[str, list[str]] = {}
    topic_docs: dict[str, list[str]] = {}  # topic key -> its documents (for distractors)
    grades: dict[str, dict[str, int]] = {}

    def add(qid: str, key: str, texts: dict[str, str], order: tuple[str, ...]) -> None:
        own[qid] = []
        for role in order:
            if role in texts:
                did = f"{key}-{role}"
                documents[did] = Document(did, texts[role])
                own[qid].append(did)
        topic_docs[key] = list(own[qid])
        grades[qid] = {d: _GRADES[d.rsplit("-", 1)[1]] for d in own[qid]}

    for qid, key, qtext, b, c, template, f2, f3, extras in _TOPICS:
        queries[qid] = Query(qid, qtext)
        texts = {
            "tf1": template.format(b, f2, f3),
            "tf2": template.format(b, b, f3),
            "tf3": template.format(b, b, b),
            "tdc": template.format(b, c, f3),
        }
        for role, text in extras.items():
            texts[role] = texts["tf1"] + text if role == "long" else text
        add(qid, key, texts, ("tf1", "tf2", "tf3", "tdc", "near", "far", "syn", "long"))

    qid, key, qtext, w1, w2, template, f, syn = _PAIR_TOPIC
    queries[qid] = Query(qid, qtext)
    pair_texts = {
        "mix21": template.format(w1, w1, w2),
        "mix12": template.format(w1, w2, w2),
        "both": template.format(w1, w2, f),
        "rep1": template.format(w1, w1, f),
        "rep2": template.format(w2, w2, f),
        "syn": syn,
    }
    add(qid, key, pair_texts, ("mix21", "mix12", "both", "rep1", "rep2", "syn"))

    qid, key, qtext = _SINGLE_TERM
    queries[qid] = Query(qid, qtext)
    own[qid] = list(topic_docs[key])
    grades[qid] = {d: _SINGLE_GRADES[d.rsplit("-", 1)[1]] for d in own[qid]}

    keys = list(topic_docs)
    qrels: dict[str, dict[str, int]] = {}
    candidates: dict[str, list[str]] = {}
    rng = random.Random(_SEED)
    for qid in queries:
        home = own[qid][0].rsplit("-", 1)[0]
        i = keys.index(home)
        others = [k for k in keys[i + 1 :] + keys[:i]]  # other topics, in a rotating order
        picks = [
            topic_docs[others[0]][0],
            topic_docs[others[0]][-1] if others[0] == "compost" else f"{others[0]}-syn",
            topic_docs[others[1]][1],
            f"{others[2]}-syn",
            topic_docs[others[3]][2],
        ]
        qrels[qid] = dict(grades[qid])
        qrels[qid].update({d: 0 for d in picks})
        cands = own[qid] + picks
        rng.shuffle(cands)
        candidates[qid] = cands
    return Dataset(
        name="demo",
        queries=queries,
        documents=documents,
        qrels=qrels,
        candidates=candidates,
        split=None,
        language="en",
        rel_threshold=1,
        description="Built-in English demo re-ranking collection shaped for every IR axiom "
        f"({len(queries)} queries, {len(documents)} documents, graded 0/1/2)",
        metadata={"source": "axiomatic.data.demo", "test_queries": list(_TEST_QUERIES)},
    )


def demo_dataset(split: str | None = None) -> Dataset:
    """The demo collection: ``split=None`` (all 10 queries, name ``demo``), ``"train"`` (7) or
    ``"test"`` (3; q3, q6, q9), named ``demo/train`` / ``demo/test``.

    Deterministic: the same call always returns equal data. Each call returns its own copy
    (the demo is small), so a caller that edits its dataset never changes another caller's.
    """
    full = copy.deepcopy(_build())
    if split is None:
        return full
    if split not in ("train", "test"):
        raise ValueError(f"unknown demo split {split!r}; expected None, 'train' or 'test'")
    qids = [q for q in full.queries if (q in _TEST_QUERIES) == (split == "test")]
    sub = full.subset(qids, split=split)
    sub.name = f"demo/{split}"
    return sub
