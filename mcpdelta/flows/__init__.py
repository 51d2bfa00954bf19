"""Prefect flows over the pipeline's stages (see mcpdelta/flows/survey.py).

Imported before any flow module imports Prefect, this turns Prefect's
telemetry off (its SDK analytics, and the usage reports of the temporary
server a flow run starts without an API of its own) unless the user set
these variables: a survey makes no call the user did not ask for."""

import os

TELEMETRY_OFF = {"PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}

for _name, _value in TELEMETRY_OFF.items():
    os.environ.setdefault(_name, _value)
