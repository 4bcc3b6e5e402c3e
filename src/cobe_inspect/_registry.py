"""inspect-ai entry point: importing registers this package's tasks, scorers and sandboxes."""

from cobe_inspect.scorers import cobe_judge  # noqa: F401
from cobe_inspect.task import cobe  # noqa: F401
