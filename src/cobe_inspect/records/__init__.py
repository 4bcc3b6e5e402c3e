"""CoBe data tooling (below the eval layer; nothing here imports the task, prompts or scorers).

- ``schema``: the record format (App. B.2 plus our optional fields), validation and loading.
- ``queries``: phrasing slots of a record's queries and the intervention clause a query states.
- ``graphs``: the graph-type label implied by a record's recorded causal edges (Fig. 4).
- ``checks``: mechanical authoring checks over records (text hygiene, tier pieces, graph labels).
- ``convert``: the ``cobe-data`` command: published layouts to records, and ``check``.
"""
