"""Reads whocomes' stats API through plausible-mcp (PyPI), a Plausible
Stats API client written by someone else, as an assistant would call it:
its own functions, with only PLAUSIBLE_BASE_URL pointing at whocomes' tab.

    plausible_client.py SITE_ID   (PLAUSIBLE_BASE_URL, PLAUSIBLE_API_KEY set)

Prints one JSON object: what each of its calls answered (its own JSON, or
its error text under "error").
"""
import json
import sys

from plausible_mcp import server


def read(answer):
    try:
        return json.loads(answer)
    except ValueError:
        return {"error": answer}


site = sys.argv[1]
print(json.dumps({
    "aggregate": read(server.get_aggregate_stats(
        site_id=site, date_range="30d",
        metrics=["visitors", "visits", "pageviews", "bounce_rate", "visit_duration"])),
    "sources": read(server.get_breakdown(
        site_id=site, property_name="source", date_range="30d", limit=100)),
    "pages": read(server.get_breakdown(
        site_id=site, property_name="page", date_range="30d", limit=100)),
    "goals": read(server.get_breakdown(
        site_id=site, property_name="event:goal", date_range="30d", limit=100)),
    "timeseries": read(server.get_timeseries(site_id=site, date_range="30d")),
    "realtime": read(server.get_realtime_visitors(site_id=site)),
}))
