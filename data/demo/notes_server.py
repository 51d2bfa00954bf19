"""Demo MCP server "notes" at four published versions (official mcp SDK).

How the contract evolves (what a real notes server might do):

1.0.0  add_note(title, body, tags?), search_notes(query, limit?, sort?),
       get_note(note_id), delete_note(note_id) [destructive, idempotent];
       prompt summarize_notes(topic?); resource notes://all, template notes://{note_id}
1.1.0  add_note gains optional ``pinned``; search_notes' description gains a
       constraint ("at least 3 characters"); get_note gains an outputSchema;
       prompt summarize_notes gains optional ``style``
1.2.0  search_notes.limit gets a maximum of 50; delete_note loses its
       idempotent hint (annotation weakened); new tool export_notes
2.0.0  search_notes renamed find_notes; add_note requires a new ``notebook``
       argument and drops ``tags``; sort enum narrowed (no "title");
       get_note's output drops ``updated_at``; prompt argument ``style``
       becomes required
"""

from typing import Annotated, Literal, Optional

from pydantic import BaseModel, Field

from _demo_common import MCPServer, parse_args, serve, vt

VERSIONS = ["1.0.0", "1.1.0", "1.2.0", "2.0.0"]


def build(version: str) -> MCPServer:
    v = vt(version)
    server = MCPServer(
        name="demo-notes",
        version=version,
        instructions="Search notes before creating one; note ids are stable.",
    )
    ro = {"read_only_hint": True, "open_world_hint": False}
    from mcp_types import ToolAnnotations

    if v < (2, 0, 0):
        if v < (1, 1, 0):
            @server.tool(description="Create a note and return its id.", structured_output=False)
            def add_note(title: str, body: str, tags: Optional[list[str]] = None) -> str:
                return "n1"
        else:
            @server.tool(description="Create a note and return its id.", structured_output=False)
            def add_note(
                title: str, body: str, tags: Optional[list[str]] = None, pinned: bool = False
            ) -> str:
                return "n1"
    else:
        @server.tool(description="Create a note in a notebook and return its id.", structured_output=False)
        def add_note(notebook: str, title: str, body: str, pinned: bool = False) -> str:
            return "n1"

    search_desc = "Search notes by text."
    if v >= (1, 1, 0):
        search_desc = "Search notes by text. The query must be at least 3 characters long."
    limit_type = int if v < (1, 2, 0) else Annotated[int, Field(ge=1, le=50)]
    sort_type = Literal["newest", "oldest", "title"] if v < (2, 0, 0) else Literal["newest", "oldest"]

    def search_notes(query: str, limit: limit_type = 10, sort: sort_type = "newest") -> list[str]:  # type: ignore[valid-type]
        return []

    server.tool(
        name="search_notes" if v < (2, 0, 0) else "find_notes",
        description=search_desc,
        annotations=ToolAnnotations(**ro),
    )(search_notes)

    if v < (1, 1, 0):
        @server.tool(description="Fetch one note by id.", annotations=ToolAnnotations(**ro),
                     structured_output=False)
        def get_note(note_id: str) -> str:
            return ""
    elif v < (2, 0, 0):
        class Note(BaseModel):
            id: str
            title: str
            body: str
            updated_at: str

        @server.tool(description="Fetch one note by id.", annotations=ToolAnnotations(**ro))
        def get_note(note_id: str) -> Note:
            return Note(id=note_id, title="", body="", updated_at="")
    else:
        class Note(BaseModel):  # type: ignore[no-redef]
            id: str
            title: str
            body: str

        @server.tool(description="Fetch one note by id.", annotations=ToolAnnotations(**ro))
        def get_note(note_id: str) -> Note:
            return Note(id=note_id, title="", body="")

    delete_hints = {"destructive_hint": True, "idempotent_hint": True}
    if v >= (1, 2, 0):
        delete_hints = {"destructive_hint": True}

    @server.tool(description="Delete a note permanently.", annotations=ToolAnnotations(**delete_hints),
                 structured_output=False)
    def delete_note(note_id: str) -> str:
        return "deleted"

    if v >= (1, 2, 0):
        @server.tool(description="Export every note as Markdown.", annotations=ToolAnnotations(**ro),
                     structured_output=False)
        def export_notes(format: Literal["markdown", "json"] = "markdown") -> str:
            return ""

    if v < (1, 1, 0):
        @server.prompt(description="Summarize the notes on a topic.")
        def summarize_notes(topic: str = "") -> str:
            return f"Summarize my notes about {topic}."
    elif v < (2, 0, 0):
        @server.prompt(description="Summarize the notes on a topic.")
        def summarize_notes(topic: str = "", style: str = "bullets") -> str:
            return f"Summarize my notes about {topic} as {style}."
    else:
        @server.prompt(description="Summarize the notes on a topic.")
        def summarize_notes(style: str, topic: str = "") -> str:
            return f"Summarize my notes about {topic} as {style}."

    @server.resource("notes://all", name="all_notes", description="Every note, newest first.",
                     mime_type="application/json")
    def all_notes() -> str:
        return "[]"

    @server.resource("notes://{note_id}", name="note", description="One note by id.",
                     mime_type="text/markdown")
    def note(note_id: str) -> str:
        return ""

    return server


if __name__ == "__main__":
    args = parse_args(VERSIONS)
    serve(build(args.version), args)
