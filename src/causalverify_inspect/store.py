"""The sample-store keys that the Exp B solvers write and the scorer reads, in one place.

``RUN_KEY`` holds the run record of :func:`causalverify_inspect.solvers.run_r_block` (code, exit code, timed out,
stdout, stderr, the packages the sandbox lacks); ``CONFIDENCE_KEY`` the calibration arm's reply and parsed
``CONFIDENCE_FIELDS`` (paper §5).
"""

RUN_KEY = "cv_run"
CONFIDENCE_KEY = "cv_confidence"
CONFIDENCE_FIELDS = ("method", "specification", "estimate")
