"""User-facing errors: one line that names the thing and the problem.

The CLI turns an ``InputError`` into that line on stderr and exit status 2.
Anything else escaping is a bug in mcpdelta, not a user mistake.
"""


class InputError(Exception):
    """Bad usage or unreadable input (a file, a config, a server list)."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where}: {problem}" if where else problem)
        self.where = where
        self.problem = problem
