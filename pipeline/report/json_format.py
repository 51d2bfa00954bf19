import json


def render(result, **_) -> str:
    return json.dumps(result.as_json(), indent=2, ensure_ascii=False) + "\n"
