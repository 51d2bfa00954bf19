"""The one shell of every HTML page mcpdelta writes: the survey's page
(``survey.html``), the drift page (``mcpdelta drift --format html``) and
the site's pages. ``shell.html`` is the head and the frame, ``style.css``
the one stylesheet: a page of its own carries it inline (it opens
offline), the site links its copy (``assets/site.css``).

Values go through Jinja2's autoescape, and every string also through
``mcpdelta.safe.visible`` (control and bidi characters shown as escapes):
a name a server or a registry chose is text.
"""

import pathlib

from mcpdelta.safe import visible

FOLDER = pathlib.Path(__file__).resolve().parent
STYLE = FOLDER / "style.css"


def finalize(value):
    """What ``{{ value }}`` prints: nothing for None, a string on one line
    with its control characters escaped (autoescape then handles markup)."""
    if value is None:
        return ""
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return visible(value)
    return value


def environment(*folders):
    """Jinja2 on the templates in ``folders`` and the shell (``shell.html``)."""
    import jinja2  # the survey extra's; a diff never loads it

    return jinja2.Environment(loader=jinja2.FileSystemLoader([*map(str, folders), str(FOLDER)]),
                              autoescape=True, finalize=finalize, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def single_file(title: str, body: str) -> str:
    """A page of its own: the shell around ``body``, HTML whose every value
    is already escaped, with the stylesheet inline."""
    from markupsafe import Markup  # comes with jinja2

    return environment().get_template("shell.html").render(
        title=title, style=Markup(STYLE.read_text(encoding="utf-8")), body=Markup(body))
