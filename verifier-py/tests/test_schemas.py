"""The fixtures' JSON files and this verifier's JSON reports against the
JSON Schemas of docs/record/."""

import json
import os

import pytest

from conftest import RECORDS, ROOT, missing_fixture
from fabvote_verifier import verify_record

import jsonschema  # noqa: E402  (in the [test] extra: a missing one fails, never skips)

SCHEMAS = os.path.join(ROOT, "docs", "record")

# Each file of a record fixture, with its schema. RECORD.md lets a record
# leave result.json out (no result published), but every committed fixture
# publishes one (internal/record/testdata/records/README.md): an absent file
# here is a lost one, and its schema would go unchecked.
FILES = (("record.json", "record.schema.json"), ("ballots.json", "ballots.schema.json"),
         ("manifest.json", "manifest.schema.json"), ("result.json", "result.schema.json"))


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
    assert "good" in fixtures(), missing_fixture(os.path.join(RECORDS, "good"))


@pytest.mark.parametrize("name", fixtures())
def test_fixture_files(name):
    d = os.path.join(RECORDS, name)
    for fn, sc in FILES:
        p = os.path.join(d, fn)
        assert os.path.isfile(p), missing_fixture(p)
        with open(p) as f:
            assert violations(json.load(f), sc) == [], p


@pytest.mark.parametrize("name", fixtures())
def test_report(name):
    rep = verify_record(os.path.join(RECORDS, name))
    assert violations(json.loads(rep.dumps_json()), "report.schema.json") == []
