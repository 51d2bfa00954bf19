import json

from pipeline.report.safe import json_text


def render(result, **_) -> str:
    return json_text(json.dumps(result.as_json(), indent=2, ensure_ascii=False)) + "\n"
