"""Frail tests: torch runs on one thread (the 2 CPU cores are shared; one thread is faster than contending)."""

import pytest
import torch


@pytest.fixture(autouse=True)
def one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
