"""The CI gate: what fails a pull request once the engine has diffed it.

A check compares a server as the change leaves it with what the repository
committed: ``baselines`` reads either side (a file, ``git:REV:PATH``, a
``live:`` capture), ``lockfile`` pins every tool's version, digest and
contract, and ``lockprobes`` what its probe calls returned. The policy sets
the severities; ``approvals`` holds the breaks a team accepted on purpose,
and ``verdict`` decides from both which changes fail the build.
``mcpdelta ci``, ``diff``, ``lock``, ``verify-lock`` and ``lint-bump`` are
its commands (``mcpdelta/commands/``).
"""
