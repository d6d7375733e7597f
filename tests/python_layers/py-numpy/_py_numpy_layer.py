"""The py-numpy test layer's support module: a Session that records when it opens and closes and how
many variants allocated with it, for the test of a Python session's lifetime
(tests/test_python_boundary.cpp)."""
import weakref

import lb_variant

EVENTS: list[str] = []  # "open py-numpy", "close py-numpy", in order, over the process
SESSIONS: list = []     # a weak reference to each session made: dead once the adapter drops it


class Session(lb_variant.Session):
    def __init__(self, config: lb_variant.LayerConfig):
        super().__init__(config)
        self.allocations = 0  # variants' allocate() calls given this session (vector_add's)
        EVENTS.append(f"open {config.layer}")
        SESSIONS.append(weakref.ref(self))

    def close(self) -> None:
        EVENTS.append(f"close {self.config.layer}")
