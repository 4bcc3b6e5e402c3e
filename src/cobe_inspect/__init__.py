"""CoBe (conversational counterfactual text editing) as an inspect-ai task: ``cobe_inspect/cobe``."""

from cobe_inspect.dataset import CobeRecord, cobe_dataset, load_records
from cobe_inspect.scorers import cobe_judge
from cobe_inspect.task import cobe

__all__ = ["CobeRecord", "cobe", "cobe_dataset", "cobe_judge", "load_records"]
