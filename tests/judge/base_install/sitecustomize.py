"""On PYTHONPATH, makes a child process a base install: the jury extra's
package cannot be imported (importlib finds no spec for it)."""

import sys

sys.modules["wordllama"] = None
