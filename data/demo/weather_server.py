"""Demo MCP server "weather" at four published versions (official mcp SDK).

How the contract evolves:

1.0.0  get_forecast(city, days?, units?) -> {city, days: [{date, high, low, summary}]};
       get_alerts(region) [read-only]; prompt plan_trip(city)
1.1.0  get_forecast's description reworded; get_alerts gains optional
       ``severity``; new tool get_air_quality with an outputSchema
1.2.0  units enum narrowed (no "kelvin"); days gets a maximum of 7;
       get_alerts loses its readOnly hint (annotation weakened)
2.0.0  get_forecast requires a new ``country`` argument and its output
       drops ``summary``; get_alerts renamed list_alerts; prompt plan_trip
       gains a required ``dates`` argument

Behaviour (what the same call returns; schemas unchanged unless said above):

get_conditions(city), JSON in a text block, the same schema in every
release: ``temperature`` is ``{value, unit}`` up to 1.1.0, a bare number
with a separate ``unit`` from 1.2.0 on.
get_air_quality's structured result violates its own declared outputSchema
in 1.2.0 only (``aqi`` sent as a string): a bug fixed in 2.0.0.
"""

import json
from typing import Annotated, Literal, Optional

from pydantic import BaseModel, Field

from _demo_common import MCPServer, parse_args, serve, vt

VERSIONS = ["1.0.0", "1.1.0", "1.2.0", "2.0.0"]


def build(version: str) -> MCPServer:
    from mcp_types import CallToolResult, TextContent, ToolAnnotations

    v = vt(version)
    server = MCPServer(name="demo-weather", version=version, title="Demo Weather")

    if v < (2, 0, 0):
        class Day(BaseModel):
            date: str
            high: float
            low: float
            summary: str
    else:
        class Day(BaseModel):  # type: ignore[no-redef]
            date: str
            high: float
            low: float

    class Forecast(BaseModel):
        city: str
        days: list[Day]

    units_t = Literal["metric", "imperial", "kelvin"] if v < (1, 2, 0) else Literal["metric", "imperial"]
    days_t = int if v < (1, 2, 0) else Annotated[int, Field(ge=1, le=7)]
    desc = "Get the weather forecast for a city."
    if v >= (1, 1, 0):
        desc = "Get a daily weather forecast for a city, one entry per day."
    ro = ToolAnnotations(read_only_hint=True, open_world_hint=True)

    if v < (2, 0, 0):
        def get_forecast(city: str, days: days_t = 3, units: units_t = "metric") -> Forecast:  # type: ignore[valid-type]
            return Forecast(city=city, days=[])
    else:
        def get_forecast(city: str, country: str, days: days_t = 3,  # type: ignore[valid-type]
                         units: units_t = "metric") -> Forecast:  # type: ignore[valid-type]
            return Forecast(city=city, days=[])
    server.tool(description=desc, annotations=ro)(get_forecast)

    alerts_ann = ro if v < (1, 2, 0) else ToolAnnotations(open_world_hint=True)
    if v < (1, 1, 0):
        def get_alerts(region: str) -> str:
            return "no alerts"
    else:
        def get_alerts(region: str, severity: Optional[Literal["minor", "severe"]] = None) -> str:
            return "no alerts"
    server.tool(name="get_alerts" if v < (2, 0, 0) else "list_alerts",
                description="Active weather alerts for a region.",
                annotations=alerts_ann, structured_output=False)(get_alerts)

    if v >= (1, 1, 0):
        class AirQuality(BaseModel):
            city: str
            aqi: int
            dominant_pollutant: Optional[str] = None

        @server.tool(description="Current air quality index for a city.", annotations=ro)
        def get_air_quality(city: str) -> AirQuality:
            return AirQuality(city=city, aqi=0)

    @server.tool(description="Current conditions for a city, as JSON.", annotations=ro,
                 structured_output=False)
    def get_conditions(city: str) -> str:
        if v < (1, 2, 0):
            return json.dumps({"city": city, "temperature": {"value": 21, "unit": "C"}, "wind_kmh": 12})
        return json.dumps({"city": city, "temperature": 21.5, "unit": "C", "wind_kmh": 12})

    if v == (1, 2, 0):
        # the published outputSchema stays AirQuality's, but this release's
        # result skips the SDK's validation and breaks it
        tool = server._tool_manager.get_tool("get_air_quality")

        def broken_air_quality(city: str) -> CallToolResult:
            return CallToolResult(content=[TextContent(type="text", text=f"{city}: moderate")],
                                  structured_content={"city": city, "aqi": "moderate"})

        server.remove_tool("get_air_quality")
        server.tool(name="get_air_quality", description="Current air quality index for a city.",
                    annotations=ro)(broken_air_quality)
        fresh = server._tool_manager.get_tool("get_air_quality")
        fresh.fn_metadata.output_model = None
        fresh.fn_metadata.output_schema = tool.fn_metadata.output_schema

    if v < (2, 0, 0):
        @server.prompt(description="Plan a trip around the weather.")
        def plan_trip(city: str) -> str:
            return f"Plan a trip to {city}."
    else:
        @server.prompt(description="Plan a trip around the weather.")
        def plan_trip(city: str, dates: str) -> str:
            return f"Plan a trip to {city} on {dates}."

    return server


if __name__ == "__main__":
    args = parse_args(VERSIONS)
    serve(build(args.version), args)
