"""Regenerate and execute the notebooks of this folder (their sources live here, as Python).

Run from the repository root::

    .venv/bin/python notebooks/build_notebooks.py            # every notebook
    .venv/bin/python notebooks/build_notebooks.py 01 03      # only those

Each notebook is written from the cells below, executed from a clean ``python3`` kernel (this
virtual environment's interpreter) with nbclient in this folder, and saved with its outputs, so
the plots and tables show when the repository is browsed. ``tests/integration_tests/
test_notebooks.py`` re-executes the committed notebooks and fails on any error.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent

Cell = tuple[str, str]


def md(text: str) -> Cell:
    return ("md", text.strip("\n"))


def code(text: str) -> Cell:
    return ("code", text.strip("\n"))


# --------------------------------------------------------------------------- shared helpers
TABLE_HELPER = '''
from html import escape
from IPython.display import HTML, display


def show_table(rows, columns=None):
    """Render a list of dicts as an HTML table (no pandas needed)."""
    rows = list(rows)
    if not rows:
        display(HTML("<i>(no rows)</i>"))
        return
    columns = columns or list(rows[0])
    head = "".join(f"<th>{escape(str(c))}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(r.get(c, '')))}</td>" for c in columns) + "</tr>"
        for r in rows
    )
    display(HTML(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"))
'''

# --------------------------------------------------------------------------- 01 quickstart
NB01: list[Cell] = [
    md("""
# 01 · Quickstart: a memory that can change its mind

`TEPAMemory` stores **evidence** (every observation and outcome, immutable) and folds it into
**precedents**: one per key and value, each with support `s`, conflict `f`, a posterior validity
`(s + 1) / (s + f + 2)` and a lifecycle state:

* **Hypothesis**: seen, not yet trusted, never retrieved;
* **Active**: trusted, retrievable;
* **Revoked**: contradicted by evidence; kept in the archive for audit, never retrieved, and
  able to come back if the evidence turns again.

This notebook observes a preference, contradicts it, watches it get revoked, brings it back, and
reads everything through the audit trail and the LangChain retriever. It runs offline (hashing
embeddings, an embedded Chroma in a temporary folder).
"""),
    code("""
import itertools
import tempfile

from langchain_tepa import HashingEmbeddings, TEPAMemory

folder = tempfile.mkdtemp(prefix="tepa-quickstart-")
tick = itertools.count(1)  # a readable clock: t=1, 2, 3, ... (defaults to wall time)
memory = TEPAMemory.from_path(
    folder, embeddings=HashingEmbeddings(), clock=lambda: float(next(tick))
)
memory
"""),
    code(TABLE_HELPER),
    md("""
## Observe

A first observation creates a Hypothesis with `s = 1`; its validity `2/3 = 0.67` is above the
promotion threshold `theta_pro = 0.6`, so it becomes Active at once (the default policy,
`tepa-key`; the paper's `tepa-rev` promotes the same way). Every state change carries its reason.
"""),
    code("""
result = memory.observe(
    "user.pizza_topping", "pineapple", text="The user loves pineapple on pizza."
)
print(result.precedent.state, f"validity={result.precedent.validity:.2f}")
for t in result.transitions:
    print(f"  {t.from_state} -> {t.to_state}: {t.reason}")
memory.get("user.pizza_topping")
"""),
    md("""
## Contradict

For a single-valued key, an observation of another value is **conflict** for the current one.
After two mushroom observations pineapple has `s = 1, f = 2`. All three came from the same
source (`app`): a source's newest statement is its current belief, so its own pineapple no
longer counts as support, and a change the source states twice with no success of the old
value in between is a **change point** (the default policy's rules, `docs/policies.md`):
pineapple is revoked at once. Nothing is deleted. (Each line below is a transition caused by that observation,
on any value of the key.)
"""),
    code("""
for _ in range(2):
    r = memory.observe("user.pizza_topping", "mushroom", text="The user wants mushroom pizza now.")
    for t in r.transitions:
        print(f"observe {r.evidence.value!r}: {t.from_state} -> {t.to_state}: {t.reason}")
memory.get("user.pizza_topping")
"""),
    md("## The audit, as a table"),
    code("""
audit = memory.audit("user.pizza_topping")
show_table(audit.rows())
"""),
    code("""
print(audit)  # every precedent with its full transition history
"""),
    md("""
## Retrieval sees Active precedents only

`memory.as_retriever()` is a LangChain `BaseRetriever`. The revoked pineapple is not returned,
however similar it is to the query; each `Document` carries the lifecycle in its metadata.
"""),
    code("""
memory.observe("user.diet", "vegetarian", text="The user is vegetarian.")
retriever = memory.as_retriever(k=4)
docs = retriever.invoke("what pizza should I order for the user?")
show_table(
    [
        {k: d.metadata[k] for k in ("key", "value", "state", "support", "conflict", "validity")}
        for d in docs
    ]
)
assert all(d.metadata["state"] == "active" for d in docs)
assert "pineapple" not in [d.metadata["value"] for d in docs]
"""),
    md("""
## Re-promote: the evidence turns again

Revocation is not deletion. When pineapple gathers support again it is *revived* (Revoked ->
Hypothesis) and, with enough support, *re-promoted* (Hypothesis -> Active); the same counting
then revokes mushroom.
"""),
    code("""
for _ in range(3):
    r = memory.observe("user.pizza_topping", "pineapple")
    for t in r.transitions:
        print(f"{t.from_state} -> {t.to_state}: {t.reason}")
print("now:", memory.get("user.pizza_topping"))
show_table(memory.audit("user.pizza_topping").rows())
"""),
    md("""
## Outcomes and revocation by hand

`record_outcome` reports that acting on a value worked or failed. The default policy's key test
revokes an Active value once its failures in a row are more likely a change than bad luck for a
working value of its key: two for a tool with a long record of successes, three or four for a
noisy key. Here the value has a short record (one observation, one success), so the posterior
rule revokes it first, at the third failure, once it is more likely wrong than right (validity
under `theta_rev = 0.45`). Under `policy="tepa-rev"` (the paper's recent-outcome window) the
second failure would revoke it. `revoke` retires a value by hand, with a reason.
"""),
    code("""
for ok in (True, False, False, False):
    r = memory.record_outcome("user.diet", "vegetarian", ok)
    print(ok, [t.reason for t in r.transitions])
memory.observe("user.city", "Lyon")
memory.revoke("user.city", "Lyon", reason="the user asked us to forget it")
show_table(
    [
        {"key": p.key, "value": p.value, "state": p.state.value, "why": p.transitions[-1].reason}
        for p in memory.precedents()
    ]
)
"""),
    md("""
## Evidence is the source of truth

`history` reads a key's evidence records (oldest first); precedents are a fold of them, so
`reconcile()` can always rebuild the views.
"""),
    code("""
show_table(
    [
        {"time": e.time, "kind": e.kind.value, "value": e.value, "outcome": e.outcome, "reason": e.reason or ""}
        for e in memory.history("user.pizza_topping")
    ]
)
print(memory.reconcile())
"""),
    md("""
## The memory persists; inspect it from the shell

The folder is an embedded Chroma database. `tepa inspect PATH` reads it **without changing it**
(add `--json`, `--key`, `--state revoked`, `--namespace`); here it is called in-process.
"""),
    code("""
memory.close()
from langchain_tepa.cli import main as tepa

exit_code = tepa(["inspect", folder, "--state", "revoked"])
"""),
]

# --------------------------------------------------------------------------- 02 pollution
NB02: list[Cell] = [
    md("""
# 02 · Memory pollution: when remembering makes an agent worse

An agent acts on tasks governed by hidden mechanisms. In the **acquisition** phase one action
works for each task and the agent learns it; at the **reversal** the mechanism flips and another
action works. Outcomes are noisy (the right action succeeds with probability `p_right`, others
with `p_wrong`). After each episode the agent reports the outcome to its memory
(`record_outcome`), and before each it retrieves what the memory holds for the task.

A memory that cannot retire what stopped being true keeps feeding the agent the old action: it
is **polluted**, and the agent does worse than an agent with no memory at all. The **Memory
Pollution Index** measures exactly that, on the reversal phase:

$$\\mathrm{MPI} = 1 - \\frac{S_{\\text{method}}}{S_{\\text{no-memory}}}$$

MPI > 0: the memory hurts (it does worse than no memory); MPI < 0: it helps.
Every method below is a `LifecyclePolicy` over the same storage, retrieval and agent, on the same
worlds and the same luck per seed (paired comparisons). This is the drift benchmark of
`tepa-bench`, in small form (few seeds and episodes, so it runs in seconds).
"""),
    code("""
import warnings

warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm in a kernel

from tepa_bench.report import build_result, format_table
from tepa_bench.runner import available_methods, run_many, specs_for

config = {"tasks": 4, "acquisition": 10, "reversal": 20}
seeds = range(5)
methods = available_methods()  # every policy, tepa-full included
outcomes = run_many(specs_for("drift", config, methods, seeds), workers=1, progress=False)
result = build_result("drift", {**config, "storage": "memory", "agent": "offline"}, outcomes)
print(format_table(result))
"""),
    md("""
## Adaptation curves

Mean success by episode (per task), over seeds and tasks. Before the reversal every memory
helps; after it, memories that never revoke (append-only, TEPA-NoRev) keep returning the old
action, while TEPA-Rev revokes it from evidence and recovers. `oracle-reset` is told when the
world changed (an upper reference no real agent has).
"""),
    code("""
import matplotlib.pyplot as plt
import numpy as np


def smooth(values, width=3):
    values = np.asarray(values, dtype=float)
    pad = np.concatenate([np.full(width // 2, values[0]), values, np.full(width // 2, values[-1])])
    return np.convolve(pad, np.ones(width) / width, mode="valid")


fig, ax = plt.subplots(figsize=(9, 4.2))
colors = {"tepa-rev": "#1a9850", "tepa-full": "#004529", "append-only": "#d73027",
          "no-memory": "black"}
for name, m in result["methods"].items():
    ax.plot(smooth(m["curve"]), label=name, color=colors.get(name),
            linewidth=2.8 if name in colors else 1.1, alpha=1.0 if name in colors else 0.6)
boundary = result["config"]["boundary"]
ax.axvline(boundary - 0.5, color="black", linestyle="--", linewidth=1)
ax.text(boundary, 1.03, " reversal", fontsize=9)
ax.set_ylim(-0.02, 1.1)
ax.set_xlabel("episode (per task)")
ax.set_ylabel("success rate")
ax.set_title(f"drift: adaptation curves ({result['seeds']} seeds, {config['tasks']} tasks)")
ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
plt.show()
"""),
    md("## MPI by method (reversal phase)"),
    code("""
names = list(result["methods"])
mpi = [result["methods"][n]["mpi"] for n in names]
fig, ax = plt.subplots(figsize=(8, 3.2))
ax.bar(names, mpi, color=["#c0392b" if v > 0 else "#2e86c1" for v in mpi])
ax.axhline(0, color="black", linewidth=0.8)
ax.set_ylabel("MPI (> 0: memory hurts)")
ax.tick_params(axis="x", rotation=35)
plt.show()
for n in names:
    m = result["methods"][n]
    print(f"{n:<13} reversal success {m['phases']['reversal']['success']:.3f}   MPI {m['mpi']:+.3f}")
"""),
    md("""
## Why TEPA-Rev recovers: one key's audit

The same run, one seed, with the memory kept: the old action's precedent is revoked by its
recent outcomes (the window of `w_min = 3` outcomes with success rate under `theta_rec`), or by
its posterior validity, and the reason is in the audit.
"""),
    code("""
import itertools

from langchain_tepa import HashingEmbeddings, TEPAMemory
from tepa_bench.agent import OfflineAgent, render_prompt
from tepa_bench.runner import make_world

world = make_world("drift", config, seed=0)
tick = itertools.count(1)
memory = TEPAMemory.in_memory(policy="tepa-rev", embeddings=HashingEmbeddings(),
                              clock=lambda: float(next(tick)))
agent = OfflineAgent(seed=0)
task = world.tasks[0]
for phase, episodes in (("acquisition", config["acquisition"]), ("reversal", config["reversal"])):
    for episode in range(episodes):
        docs = memory.retrieve(task.text, k=4, key_prefix=task.key)
        action = agent.choose(render_prompt(task, docs))
        memory.record_outcome(task.key, action, world.execute(0, action, phase, episode))
print("right action before / after the reversal:",
      world.correct_action(0, "acquisition"), "/", world.correct_action(0, "reversal"))
print(memory.audit(task.key))
world.close()
"""),
]

# --------------------------------------------------------------------------- 03 TEPA-Full
GRAPH_DRAWER = '''
import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch


def draw_graph(graph, title=""):
    """Draw a compiled LangGraph with matplotlib (offline; dashed = conditional edge)."""
    g = graph.get_graph()
    nodes = list(g.nodes)
    succ = {n: [e.target for e in g.edges if e.source == n] for n in nodes}
    layer = {n: 0 for n in nodes}
    for _ in nodes:  # longest path from the start (the graph is a DAG)
        for e in g.edges:
            layer[e.target] = max(layer[e.target], layer[e.source] + 1)
    rows = {}
    for n in nodes:
        rows.setdefault(layer[n], []).append(n)
    pos = {}
    for d, names in rows.items():
        for i, n in enumerate(sorted(names)):
            pos[n] = ((i - (len(names) - 1) / 2) * 2.6, -d * 1.1)
    fig, ax = plt.subplots(figsize=(5, 0.8 * (len(rows) + 1)))
    for e in g.edges:
        (x0, y0), (x1, y1) = pos[e.source], pos[e.target]
        style = dict(arrowstyle="-|>", color="#555", lw=1.2,
                     linestyle="--" if e.conditional else "-")
        if layer[e.target] - layer[e.source] > 1:  # a skip edge: an arc on the right
            ax.annotate("", xy=(x1 + 0.8, y1), xytext=(x0 + 0.8, y0),
                        arrowprops=dict(style, connectionstyle="arc3,rad=-0.45"))
        else:
            ax.annotate("", xy=(x1, y1 + 0.22), xytext=(x0, y0 - 0.22), arrowprops=style)
    for n, (x, y) in pos.items():
        terminal = n in ("__start__", "__end__")
        ax.add_patch(FancyBboxPatch((x - 0.8, y - 0.2), 1.6, 0.4,
                                    boxstyle="round,pad=0.02,rounding_size=0.18",
                                    fc="white" if terminal else "#ece8ff", ec="#6a5acd"))
        ax.text(x, y, n.strip("_") if terminal else n, ha="center", va="center", fontsize=9)
    xs = [p[0] for p in pos.values()]
    ax.set_xlim(min(xs) - 1.6, max(xs) + 2.0)
    ax.set_ylim(-max(layer.values()) * 1.1 - 0.5, 0.5)
    ax.axis("off")
    ax.set_title(title)
    plt.show()
'''

NB03: list[Cell] = [
    md("""
# 03 · TEPA-Full with LangGraph: trial by execution before promotion

Under `policy="tepa-full"` a new value stays a **Hypothesis** until it is *tested by execution*:
the user's own executor (an agent, a tool, a test harness) runs tasks with memory views built
from the candidate:

* **supportive**: the candidate in the view; positive when the run succeeds;
* **counterfactual**: the same task with a competitor (the incumbent or an archived value)
  instead; positive when the candidate succeeds and the competitor fails;
* **polluted**: the candidate next to stale values of the same key; positive when the run
  still succeeds.

A judge promotes when at least 60 % of the trials are positive (with one supportive success),
rejects under `reject_below`, and otherwise keeps the Hypothesis. Every trial is written as
audit evidence. `build_trial_graph` is this procedure as a LangGraph `StateGraph` (parallel
trials with `Send`, an optional human-approval `interrupt`, any checkpointer).
"""),
    code("""
import itertools

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from langchain_tepa import HashingEmbeddings, TEPAMemory
from langchain_tepa.graph import build_trial_graph

tick = itertools.count(1)
memory = TEPAMemory.in_memory(
    policy="tepa-full", embeddings=HashingEmbeddings(), clock=lambda: float(next(tick))
)

WORLD = {"user.pizza_topping": "pineapple"}  # what the user really wants right now


def pizzeria(trial):
    \"\"\"The executor: order with the newest value the view holds; True if the order is accepted.\"\"\"
    values = trial.lookup(trial.key)
    return bool(values) and values[-1] == WORLD[trial.key]
"""),
    code(GRAPH_DRAWER),
    md("## The trial graph"),
    code("""
graph = build_trial_graph(memory, pizzeria, reject_below=0.34)
draw_graph(graph, "build_trial_graph (require_approval=False)")
print(graph.get_graph().draw_mermaid())
"""),
    md("""
## A first value, then a real change

Observations alone never promote under TEPA-Full: pineapple is a Hypothesis until the graph
tests it. Then the user's taste really changes: mushroom is tested, its counterfactual shows
that pineapple now fails, so mushroom is promoted and pineapple is revoked (*superseded*).
"""),
    code("""
r = memory.observe("user.pizza_topping", "pineapple")
print("after observe:", r.precedent.state, "| get ->", memory.get("user.pizza_topping"))
out = graph.invoke({"key": "user.pizza_topping"})
for d in out["decisions"]:
    print(d["action"], d["candidate"]["value"], "-", d["reason"])
print("get ->", memory.get("user.pizza_topping"))
"""),
    code("""
WORLD["user.pizza_topping"] = "mushroom"  # the world changes
memory.observe("user.pizza_topping", "mushroom")
out = graph.invoke({"key": "user.pizza_topping"})
for r in out["results"]:
    print(f"  {r['kind']:<15} {'positive' if r['positive'] else 'negative'}: {r['detail']}")
for d in out["decisions"]:
    print(d["action"], d["candidate"]["value"], "-", d["reason"], "| superseded:", d["superseded"])
print("get ->", memory.get("user.pizza_topping"))
"""),
    md("""
## A glitch is rejected

A one-off, wrong observation ("anchovies", say a misheard message) becomes a Hypothesis, but
its trials fail: the order with anchovies is refused, and mushroom keeps working. The judge
rejects it (0 positive trials, under `reject_below`), and the Active value never changed.
"""),
    code("""
memory.observe("user.pizza_topping", "anchovies")
out = graph.invoke({"key": "user.pizza_topping"})
for r in out["results"]:
    print(f"  {r['kind']:<15} {'positive' if r['positive'] else 'negative'}: {r['detail']}")
for d in out["decisions"]:
    print(d["action"], d["candidate"]["value"], "-", d["reason"])
print("get ->", memory.get("user.pizza_topping"))
# the agent orders with the Active value; it works, and the outcome is evidence too
r = memory.record_outcome("user.pizza_topping", memory.get("user.pizza_topping"), True)
print("outcome recorded:", r.precedent.state.value, f"validity={r.precedent.validity:.2f}")
"""),
    md("""
## Human approval: an interrupt, then resume

With `require_approval=True` the graph pauses (LangGraph `interrupt`) before any promotion and
shows the evidence. A checkpointer keeps the paused run; `Command(resume="approve")` (or
`"reject"`, `"keep"`, or a dict from precedent id to verdict) continues it.
"""),
    code("""
approval_graph = build_trial_graph(
    memory, pizzeria, require_approval=True, checkpointer=InMemorySaver()
)
draw_graph(approval_graph, "with require_approval=True")
WORLD["user.pizza_topping"] = "margherita"
memory.observe("user.pizza_topping", "margherita")
config = {"configurable": {"thread_id": "approval-1"}}
paused = approval_graph.invoke({"key": "user.pizza_topping"}, config)
request = paused["__interrupt__"][0].value
print(request["question"])
for p in request["promotions"]:
    print(f"  {p['key']} = {p['value']!r}: {p['reason']}")
print("while paused, get ->", memory.get("user.pizza_topping"), "(unchanged until approved)")
"""),
    code("""
done = approval_graph.invoke(Command(resume="approve"), config)
for d in done["decisions"]:
    print(d["action"], d["candidate"]["value"], "- review:", d["review"], "-", d["reason"])
print("get ->", memory.get("user.pizza_topping"))
"""),
    md("## The audit trail: every trial is evidence"),
    code("""
print(memory.audit("user.pizza_topping"))
"""),
]

# --------------------------------------------------------------------------- 04 factcon
NB04: list[Cell] = [
    md("""
# 04 · MemoryAgentBench fact consolidation (6k), with a multi-hop trace

MemoryAgentBench's *Conflict Resolution* task (fact consolidation) gives a numbered list of
facts in which a later fact can override an earlier one about the same subject and relation,
then asks single-hop (SH) and multi-hop (MH) questions whose answers depend on the *latest*
facts. Metric: substring exact match after normalisation.

Here the official 6k records (455 facts, 100 SH + 100 MH questions) go through the offline
pipeline a user would run: each fact text passes the offline extractor (`add_texts`), with the
fact number as the clock; questions are answered from the **Active** set only. No LLM is used.
The official 6k file ships inside the package (`bench/tepa_bench/data/factcon/`, MIT
licence, with a README saying where it comes from), so nothing beside the repository is needed;
`load_factcon(path)` reads a larger pool of your own.
"""),
    code("""
from langchain_tepa import HashingEmbeddings, TEPAMemory
from tepa_bench.answering import ActiveIndex, substring_exact_match
from tepa_bench.factcon import ingest_instance, run_instances
from tepa_bench.factcon_data import OFFICIAL_6K, load_factcon

instance = load_factcon(OFFICIAL_6K)[0]  # the official 6k records, bundled with the package
print(instance.id, "|", instance.n_facts, "facts |",
      {name: len(qs) for name, qs in instance.subsets.items()})
for fact in instance.facts[:4]:
    print(f"{fact.serial:>3}. {fact.text}")
"""),
    code(TABLE_HELPER),
    md("""
## One memory, fed fact by fact

Each fact is one `add_texts` call; the extractor turns it into a keyed observation
(`subject.relation = object`) and the fold does the rest. When a later fact contradicts an
earlier one, the new value gains support, the old one gains conflict.
"""),
    code("""
clock = [0.0]
memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), clock=lambda: clock[0])
seconds = ingest_instance(memory, instance, oracle_keys=False, clock_box=clock)
precedents = memory.precedents()
conflicted = [k for k in memory.keys() if len(memory.audit(k).precedents) > 1]
print(f"ingested {instance.n_facts} facts in {seconds:.2f} s: {len(memory.keys())} keys, "
      f"{len(precedents)} precedents, {len(conflicted)} keys with a contradiction")
"""),
    md("""
## Multi-hop: a trace through consolidated facts

The multi-hop reader resolves the question hop by hop, each hop reading the best Active value of
one key. For contrast, the same facts go into an **append-only** memory (the same storage and
reader; no conflict counting, so an overridden value keeps its full standing). We pick the first
multi-hop question that TEPA-Rev answers right and append-only gets wrong.
"""),
    code("""
clock_b = [0.0]
append_only = TEPAMemory.in_memory(
    embeddings=HashingEmbeddings(), policy="append-only", clock=lambda: clock_b[0]
)
ingest_instance(append_only, instance, oracle_keys=False, clock_box=clock_b)
index, stale_index = ActiveIndex(memory), ActiveIndex(append_only)

mh = instance.subsets["factconsolidation_mh_6k"]
for question in mh:
    answer = index.answer_chain(question.question, max_hops=3)
    stale = stale_index.answer_chain(question.question, max_hops=3)
    if (len(answer.hops) >= 2 and substring_exact_match(answer.text, question.answers)
            and not substring_exact_match(stale.text, question.answers)):
        break
print("Q:", question.question)
print("gold:", question.answers)
print("tepa-rev:    ", answer.trace(), "=>", answer.text)
print("append-only: ", stale.trace(), "=>", stale.text)
show_table([h.to_dict() for h in answer.hops])
"""),
    md("""
Why the chains differ: the audit of each hop's key. A key stated twice holds two precedents,
the older fact and the newer one that overrides it. With one contradiction the old value has
`s = 1, f = 1` (validity 0.50): too little evidence to revoke under `n_min = 3`, but the newer
value (0.67) outranks it on every read, and a further contradiction would revoke it. Under
append-only both keep validity 0.67 and the stale one can win.
"""),
    code("""
for hop in answer.hops:
    print(memory.audit(hop.key))
    print("   append-only:", [(p.value, round(p.validity, 2)) for p in append_only.audit(hop.key).precedents])
"""),
    md("""
## Accuracy by method

Every method is a policy over the same storage, extractor and reader, so the comparison is fair
by construction.
"""),
    code("""
import matplotlib.pyplot as plt

methods = ["append-only", "lww", "tepa-norev", "tepa-rev"]
result = run_instances([instance], methods=methods)
rows = []
for method in methods:
    subsets = result["methods"][method]["subsets"]
    rows.append({
        "method": method,
        "SH-6k": subsets["factconsolidation_sh_6k"]["accuracy"],
        "MH-6k": subsets["factconsolidation_mh_6k"]["accuracy"],
        "facts/s": subsets["factconsolidation_sh_6k"]["facts_per_s"],
    })
show_table(rows)

fig, ax = plt.subplots(figsize=(7, 3.2))
width = 0.38
xs = range(len(methods))
ax.bar([x - width / 2 for x in xs], [r["SH-6k"] for r in rows], width, label="single-hop")
ax.bar([x + width / 2 for x in xs], [r["MH-6k"] for r in rows], width, label="multi-hop")
ax.set_xticks(list(xs), methods)
ax.set_ylim(0, 1.05)
ax.set_ylabel("substring exact match")
ax.set_title("MemoryAgentBench fact consolidation, 6k (offline reader)")
ax.legend()
plt.show()
"""),
    md("""
For reference (reported, not run here): the TEPA paper gives SH-6k 0.890 and MH-6k 0.040;
in the MemoryAgentBench paper GPT-4o with the whole context scores SH 0.92 and MH 0.28 at 6k.
Two sample SH answers with their traces:
"""),
    code("""
sh = result["methods"]["tepa-rev"]["subsets"]["factconsolidation_sh_6k"]["examples"][:2]
show_table([{k: e[k] for k in ("question", "answers", "prediction", "correct", "trace")} for e in sh])
"""),
]

NOTEBOOKS: dict[str, list[Cell]] = {
    "01_quickstart.ipynb": NB01,
    "02_memory_pollution.ipynb": NB02,
    "03_tepa_full_langgraph.ipynb": NB03,
    "04_factcon.ipynb": NB04,
}


def build(name: str, cells: list[Cell]) -> float:
    """Write, execute and save one notebook; returns the execution time in seconds."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell(src) if kind == "md" else nbformat.v4.new_code_cell(src)
        for kind, src in cells
    ]
    # no OpenAI, and no terminal size: rich tables then have the same width in every run, so
    # tests/integration_tests/test_notebooks.py can compare the outputs with the committed ones
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("OPENAI_") and k not in ("COLUMNS", "LINES")
    }
    env.update({"TEPA_EMBEDDINGS": "hashing", "ANONYMIZED_TELEMETRY": "False"})
    start = time.perf_counter()
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}
    ).execute(env=env)
    seconds = time.perf_counter() - start
    for i, cell in enumerate(nb.cells):  # stable ids keep diffs small
        cell["id"] = f"cell-{i:02d}"
    nbformat.write(nb, HERE / name)
    return seconds


def main(argv: list[str]) -> None:
    chosen = [n for n in NOTEBOOKS if not argv or any(n.startswith(a) for a in argv)]
    for name in chosen:
        seconds = build(name, NOTEBOOKS[name])
        print(f"{name}: executed in {seconds:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
