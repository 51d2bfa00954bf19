"""mcpdelta: contract diffs for Model Context Protocol servers."""

__version__ = "0.1.0"
ENGINE_NAME = "mcpdelta"
