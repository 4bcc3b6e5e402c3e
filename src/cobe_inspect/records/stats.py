"""``cobe-data stats FILE``: the paper's dataset statistics (Tables 2-4, §3) for any CoBe record file.

Table 2: scenarios, domains, mean words and sentences per story (the paper: 2000, 7, 39, 2.35); Table 3: the share
of scenarios per domain; Table 4: the share per graph type, each beside the paper's figure
(``data/paper_results.json``). Words are the story's whitespace-separated tokens holding a letter or digit;
sentences are the runs of text ending in ``.``, ``!`` or ``?`` (or the end of the story). The paper's clause counts
need a parser and are not computed. Domains outside the paper's six named ones count as its "Others"; records
without a domain or graph type (the published records carry no graph type) are ``unlabeled``.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from cobe_inspect.records.paper import paper_results
from cobe_inspect.records.schema import CobeRecord, load_records

_WORD = re.compile(r"\S*[^\W_]\S*")
_SENTENCE = re.compile(r"[^.!?]*[^\W_][^.!?]*(?:[.!?]+|$)")


def words(text: str) -> int:
    """Whitespace-separated tokens with a letter or digit."""
    return len(_WORD.findall(text))


def sentences(text: str) -> int:
    """Runs of text holding a letter or digit and ending in ``.``, ``!``, ``?`` or the end of the text."""
    return len(_SENTENCE.findall(text))


@dataclass(frozen=True)
class Share:
    """One row of Table 3 or 4: a label, its scenarios, their percent, and the paper's percent (None if absent)."""

    label: str
    count: int
    percent: float
    paper: float | None


def shares(labels: list[str], paper: dict[str, float]) -> list[Share]:
    """The percent of records per label, the paper's labels first (in its order), then ours by count."""
    counts, total = Counter(labels), len(labels)
    order = list(paper) + sorted((label for label in counts if label not in paper), key=lambda lab: (-counts[lab], lab))
    return [Share(label, counts[label], 100 * counts[label] / total, paper.get(label)) for label in order]


def domain_label(record: CobeRecord, named: set[str]) -> str:
    if record.domain is None:
        return "unlabeled"
    return record.domain if record.domain in named else "Others"


def _mean_sd(values: list[int], digits: int) -> str:
    sd = f" (sd {statistics.stdev(values):.{digits}f})" if len(values) > 1 else ""
    return f"{statistics.mean(values):.{digits}f}{sd}"


def stats_text(path: str | Path | None) -> str:
    """Tables 2-4 of one record file (the built-in set when None) beside the paper's."""
    records = load_records(path)
    paper = paper_results()
    word_counts = [words(r.story) for r in records]
    sentence_counts = [sentences(r.story) for r in records]
    t2 = paper["table2"]
    named = set(paper["table3_domain"]) - {"Others"}
    rows = [
        ("scenarios", str(len(records)), t2["scenarios"]),
        ("domains", str(len({r.domain for r in records if r.domain})), t2["domains"]),
        ("words / scenario", _mean_sd(word_counts, 1), t2["words_per_scenario"]),
        ("sentences / scenario", _mean_sd(sentence_counts, 2), t2["sentences_per_scenario"]),
    ]
    lines = [f"CoBe dataset statistics of {path or 'the built-in set'} beside the paper's Tables 2-4"]
    lines += [f"{'Table 2':<24}{'ours':<17}paper"] + [f"  {name:<22}{ours:<17}{theirs}" for name, ours, theirs in rows]
    for title, labels, published in (
        ("Table 3 (domain)", [domain_label(r, named) for r in records], paper["table3_domain"]),
        ("Table 4 (graph type)", [r.graph_type or "unlabeled" for r in records], paper["table4_graph"]),
    ):
        lines.append(f"{title:<24}n     ours %  paper %")
        for row in shares(labels, published):
            theirs = "-" if row.paper is None else f"{row.paper:.1f}"
            lines.append(f"  {row.label:<22}{row.count:<6}{row.percent:>6.1f}  {theirs:>7}")
    return "\n".join(lines)
