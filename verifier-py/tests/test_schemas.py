"""The fixtures' JSON files and this verifier's JSON reports against the
JSON Schemas of docs/record/ (skipped where a schema is missing)."""

import json
import os

import pytest

from conftest import RECORDS, ROOT
from fabvote_verifier import verify_record

jsonschema = pytest.importorskip("jsonschema")
SCHEMAS = os.path.join(ROOT, "docs", "record")


def schema(name):
    p = os.path.join(SCHEMAS, name)
    if not os.path.isfile(p):
        pytest.skip(f"no {name}")
    with open(p) as f:
        return json.load(f)


def fixtures():
    if not os.path.isdir(RECORDS):
        return []
    return sorted(d for d in os.listdir(RECORDS) if os.path.isdir(os.path.join(RECORDS, d)))


@pytest.mark.parametrize("name", fixtures())
def test_fixture_files(name):
    d = os.path.join(RECORDS, name)
    for fn, sc in (("record.json", "record.schema.json"), ("ballots.json", "ballots.schema.json"),
                   ("manifest.json", "manifest.schema.json"), ("result.json", "result.schema.json")):
        p = os.path.join(d, fn)
        if os.path.isfile(p):
            with open(p) as f:
                jsonschema.validate(json.load(f), schema(sc))


@pytest.mark.parametrize("name", fixtures())
def test_report(name):
    rep = verify_record(os.path.join(RECORDS, name))
    jsonschema.validate(json.loads(rep.dumps_json()), schema("report.schema.json"))
