"""Token budgets: a judge never spends past ``budget_tokens``.

Before a call the judge reserves an upper bound on its cost (see
``prompt.estimate_tokens``: prompt bytes plus the answer cap sent as
``max_tokens``); after it, the reservation is settled with the tokens the
endpoint reported (or kept whole when it reported none). A call whose
bound does not fit what is left is not made. An attempt that timed out may
have been billed: it is charged a whole estimate, and the retry after it
goes ahead only if one more estimate can be reserved. An HTTP error status
is charged nothing. So spent + reserved never exceeds the limit, as long
as the endpoint honours ``max_tokens``.

One ``Budget`` per judge per run; a batch stage that wants a budget across
several ``judge_changes`` calls keeps the same judges (and so budgets), or
starts one with ``spent=`` read from its own ledger.
"""

import threading


class Budget:
    def __init__(self, limit: int, spent: int = 0):
        self.limit = limit
        self.spent = spent
        self.reserved = 0
        self.calls = 0
        self._lock = threading.Lock()

    @property
    def left(self) -> int:
        with self._lock:
            return self.limit - self.spent - self.reserved

    def reserve(self, tokens: int) -> bool:
        """Hold ``tokens`` for one call; False (and nothing held) if they do not fit."""
        with self._lock:
            if self.spent + self.reserved + tokens > self.limit:
                return False
            self.reserved += tokens
            return True

    def settle(self, reserved: int, used: int):
        """Release a reservation and charge what the call used."""
        with self._lock:
            self.reserved -= reserved
            self.spent += used
            self.calls += 1

    @property
    def idle(self) -> bool:
        with self._lock:
            return self.reserved == 0
