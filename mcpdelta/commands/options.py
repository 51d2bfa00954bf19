"""Command-line options several commands share, each declared once.

Where commands describe one option in their own words (a probe policy that
differs, a help line that says more), the words are a parameter here and
the option itself is still declared once."""

SEVERITY_CHOICES = ("BREAKING", "POTENTIALLY_BREAKING", "NON_BREAKING", "DOCUMENTATION", "never")


def add_lake(parser):
    """``--lake``: where a command reads or writes the survey's lake."""
    parser.add_argument("--lake", metavar="LAKE", default="lake",
                        help="lake folder, file:// URI or s3://BUCKET/PREFIX (default: ./lake)")


def add_manifest(parser):
    """``MANIFEST``: the one manifest a command reads."""
    parser.add_argument("manifest", metavar="MANIFEST", help="manifest file (- for stdin)")


def add_format(parser, choices=("text", "json")):
    """``--format``: how a command prints what it found, text unless asked."""
    parser.add_argument("--format", choices=choices, default="text")


def add_config(parser, if_present=False):
    """``--config``: the project config file. Every command reads the default
    file only where there is one; ``if_present``: its help says so (ci, diff)."""
    where = ".mcpdelta.yml here, if present" if if_present else ".mcpdelta.yml here"
    parser.add_argument("--config", metavar="FILE", help=f"config file (default: {where})")


def add_profile(parser):
    """``--profile``: the policy profile, in place of the config's."""
    parser.add_argument("--profile", choices=("strict", "balanced", "advisory"))


def add_fail_on(parser):
    """``--fail-on``: the severity from which a change fails the command."""
    parser.add_argument("--fail-on", metavar="SEVERITY", help="|".join(SEVERITY_CHOICES))


def add_severity_override(parser, help=None):
    """``--severity-override RULE=SEVERITY``, repeatable; ``help``: diff's says so."""
    parser.add_argument("--severity-override", metavar="RULE=SEVERITY", action="append", default=[], help=help)


def add_witness(parser, what):
    """``--witness``: the severity from which a schema change is proven by a
    witness; ``what`` is each command's word for it."""
    parser.add_argument("--witness", metavar="SEVERITY", default="BREAKING",
                        help=f"{what}, or never; every BREAKING schema change is proven either way "
                             "(default: BREAKING)")


def add_semantic(parser):
    """``--semantic``: the judges' advisory notes on prose changes."""
    parser.add_argument("--semantic", action="store_true",
                        help="attach advisory judge notes (never changes a severity)")


def add_gate(parser):
    """The gate's options (``diff`` and ``ci``): approvals and the security gate."""
    parser.add_argument("--approvals", metavar="FILE",
                        help="approved breaks (default: .mcpdelta-approvals.yml here, if present)")
    parser.add_argument("--approve", action="store_true",
                        help="add an entry for every unapproved change that fails the build to the "
                             "approvals file, for a human to give a reason and commit")
    parser.add_argument("--reason", metavar="TEXT", help="with --approve: the reason written in each entry")
    parser.add_argument("--fail-on-security", action="store_true",
                        help="also fail when a judge flags a change security-relevant (severities unchanged)")


def add_allow_destructive_probes(
        parser, help="let probes call tools annotated destructiveHint: true (refused by default)"):
    """``--allow-destructive-probes``: lift the probe policy (crawl/probes.py).
    The crawling commands refuse only destructive tools; the gates whose
    probes a pull request can change (ci, diff's live sides, verify-lock)
    refuse tools not annotated read-only too, and pass a ``help`` that says so."""
    parser.add_argument("--allow-destructive-probes", action="store_true", help=help)


def add_workers(parser):
    """``--workers``: how many processes diff the survey's pairs."""
    parser.add_argument("--workers", type=int, metavar="N",
                        help="processes that diff: the survey and N-1 workers (default: one per core)")


def add_wait(parser):
    """``--wait``: what a command does when another is writing the lake."""
    parser.add_argument("--wait", action="store_true",
                        help="if another mcpdelta is writing the lake, wait for it (default: fail at once)")
