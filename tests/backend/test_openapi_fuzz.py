"""schemathesis against the backend's own OpenAPI schema (the backend process with its real stand-in agent
processes behind it): no generated request, valid or deliberately invalid, may produce a server error.

The operations are driven with hypothesis directly (a few examples each, positive and negative
generation) because schemathesis' pytest plugin does not support pytest 9's node ids.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

EXAMPLES_PER_OPERATION = 4


@pytest.fixture(scope="module")
def api_schema(backend_url: str) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(f"{backend_url}/openapi.json")


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_server_errors(api_schema: schemathesis.BaseSchema, mode: GenerationMode) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 8
    called: list[str] = []
    for operation in operations:

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def check(case: schemathesis.Case) -> None:
            response = case.call(timeout=30)
            called.append(f"{case.method} {case.path} {response.status_code}")
            case.validate_response(response, checks=(not_a_server_error,))

        try:
            check()
        except Unsatisfiable:
            # Negative mode cannot invalidate an operation without inputs (GET /api/health, …).
            assert mode is GenerationMode.NEGATIVE, operation.label
    assert len({" ".join(c.split(" ")[:2]) for c in called}) >= 5  # distinct method + path
    if mode is GenerationMode.POSITIVE:
        assert len(called) >= len(operations)
