"""The fixtures' JSON files and this verifier's JSON reports against the
JSON Schemas of docs/record/."""

import json
import os

import pytest

from conftest import RECORDS, ROOT
from fabvote_verifier import verify_record

import jsonschema  # noqa: E402  (in the [test] extra: a missing one fails, never skips)

SCHEMAS = os.path.join(ROOT, "docs", "record")


def schema(name):
    with open(os.path.join(SCHEMAS, name)) as f:
        return json.load(f)


def violations(doc, name):
    """Every way doc breaks schema name, as text: empty when it conforms."""
    validator = jsonschema.Draft202012Validator(schema(name))
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def fixtures():
    return sorted(d for d in os.listdir(RECORDS) if os.path.isdir(os.path.join(RECORDS, d)))


def test_fixtures_present():
    assert "good" in fixtures(), f"no record fixtures in {RECORDS}"


@pytest.mark.parametrize("name", fixtures())
def test_fixture_files(name):
    d = os.path.join(RECORDS, name)
    for fn, sc in (("record.json", "record.schema.json"), ("ballots.json", "ballots.schema.json"),
                   ("manifest.json", "manifest.schema.json"), ("result.json", "result.schema.json")):
        p = os.path.join(d, fn)
        if os.path.isfile(p):
            with open(p) as f:
                assert violations(json.load(f), sc) == [], p


@pytest.mark.parametrize("name", fixtures())
def test_report(name):
    rep = verify_record(os.path.join(RECORDS, name))
    assert violations(json.loads(rep.dumps_json()), "report.schema.json") == []
