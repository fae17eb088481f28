"""Issue 17's load test on one team library: eight real processes at once (three CLI drivers, three MCP servers
driven by one MCP client process, the offscreen window with its indexer, one more writer), ``OPS`` mixed operations each
(tests/e2e/team_load.py, whose docstring lists them). Then: no operation failed (stale edits are refused as
conflicts, counted apart), every document an operation created is there once and none other, nothing is left to
index, SQL's embedded chunks equal the Chroma server's vectors in every scope, and the audit trail has one entry per
audited write. tests/benchmarks/bench_team_load.py runs the same at 8 × 1,000."""

import pytest

from tests.e2e import team_load

pytestmark = [pytest.mark.servers, pytest.mark.slow]

OPS = 20
"""Operations per process. The issue's 8 × 1,000 runs in tests/benchmarks/bench_team_load.py (the same driver): about
0.16 CPU s an operation after some 40 CPU s of the eight processes' start (an 8 × 20 run: 56-70 CPU s), so even 8 × 100
(~150 CPU s) does not fit the suite's 10 minutes on 2 cores beside the rest. 8 × 20 drawn by the mixes' weights (seeds
17-24) runs every kind of the MCP servers' and the window's, and the CLI's but its two rarest, uploads and searches by
meaning (CLI uploads to a team library: tests/services/test_reconnect.py). Running every kind in every process costs
more than it saves: 8 × 12 with each kind once came to 84 CPU s (an upload and a search by meaning each load
scikit-learn, the model and the Chroma client into a CLI driver)."""


@pytest.mark.timeout(1800)  # a hang guard with room for a loaded machine (the test's 10 minutes ran out at load 20)
def test_eight_processes_of_mixed_operations_on_one_team_library(team_library, tmp_path):
    team_load.run_load(team_library, tmp_path / "run", OPS)
    report = team_load.check(team_library, tmp_path / "run")
    assert report.errors == []
    assert sum(report.ops.values()) == 7 * OPS  # the writer drains: no operations of its own
    assert report.missing == [] and report.unlogged == []
    assert report.jobs_left == 0 and report.not_indexed == []
    assert report.chunks == report.vectors and sum(report.chunks.values()) > 0
    assert report.audit_found == report.audit_expected
