"""glass_inspect: GlassGSM / GlassMATH, math fragility under meaning-preserving rewrites (see README.md).

Two layers, importing downwards only: ``glass_inspect.corpus`` (data tooling: operators, audit checks, corpus
build, built-in corpora, ``glass-build``) under the eval layer (``task``, ``dataset``, ``prompts``, ``solvers``,
``scorers``, ``metrics``). ``answers`` and ``prompts`` are pure text modules both layers use.
"""
